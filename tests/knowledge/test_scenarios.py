"""Golden multi-rank scenarios: the initiating rank and the failure class, not the loudest symptom."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from knowledge.engine import Engine
from tests.knowledge import scenarios

Run = Callable[[Path], Diagnosis]


def collateral_ranks(diag: Diagnosis) -> set[int]:
    return {r for g in diag.collateral for r in g.ranks}


def test_rank5_oom_initiates_and_watchdog_ranks_are_collateral(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.oom_then_watchdog(tmp_path))
    assert diag.category == "gpu_oom"
    assert diag.initiating.rank == 5
    assert diag.initiating.time is not None and diag.initiating.time.startswith("2026-11-20T03:14:02")
    assert any("CUDA out of memory" in ev.text for ev in diag.initiating.evidence)
    assert all(ev.source == "rank5.log" for ev in diag.initiating.evidence)
    assert collateral_ranks(diag) == {0, 1, 2, 3, 4, 6, 7}
    group = next(g for g in diag.collateral if 0 in g.ranks)
    assert group.category == "nccl_timeout"
    assert "rank 5" in group.why
    assert group.first_time is not None and group.first_time.startswith("2026-11-20T03:24:02")
    assert diag.confidence >= 0.7
    assert diag.stats.files == 8 and diag.stats.ranks == 8


def test_xid79_on_one_node_beats_nccl_errors_everywhere(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.xid_cascade(tmp_path))
    assert diag.category == "gpu_hardware_xid"
    assert diag.initiating.node == "gpu-03"
    assert diag.initiating.rank == 26  # NCCL's busId 18000 is PCI 0000:18:00, the Xid's GPU
    assert "Xid 79" in diag.root_cause
    assert len(collateral_ranks(diag)) == 63
    assert "gpu-03" in diag.nodes and any("Xid" in ev.text for ev in diag.nodes["gpu-03"])


def test_desync_names_the_rank_running_another_collective(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.desync(tmp_path, odd=3))
    assert diag.category == "nccl_timeout"
    assert diag.initiating.rank == 3
    assert "ALLGATHER" in diag.root_cause and "REDUCE_SCATTER" in diag.root_cause


def test_straggler_is_the_rank_whose_last_step_lags(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.straggler(tmp_path, slow=6))
    assert diag.category == "nccl_timeout"
    assert diag.initiating.rank == 6
    assert diag.confidence < 0.8  # inferred, not observed


def test_sigkilled_first_observed_failure_is_a_victim(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.sigkill_reported(tmp_path))
    assert diag.category == "gpu_oom"
    assert diag.initiating.rank == 6
    assert 3 in collateral_ranks(diag)


def test_clean_time_limit_is_a_scheduler_kill(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.time_limit(tmp_path))
    assert diag.category == "scheduler_kill"
    assert diag.initiating.rank is None


def test_time_limit_long_after_progress_stopped_is_a_hang(tmp_path: Path, diagnose_dir: Run) -> None:
    # every rank's last step is at 03:10:00; the scheduler kills the job an hour later
    diag = diagnose_dir(scenarios.time_limit(tmp_path, kill_at=600 + 3600))
    assert diag.category == "hang_no_error"
    assert any("DUE TO TIME LIMIT" in ev.text for ev in diag.initiating.evidence)
    assert "60 min" in diag.root_cause, diag.root_cause


def test_time_limit_shortly_after_steady_progress_stays_a_scheduler_kill(
    tmp_path: Path, diagnose_dir: Run
) -> None:
    # a long run (steps every 4 s for 2 h 13 min) killed 10 min after its last step: < 15 min, < 10 %
    diag = diagnose_dir(scenarios.time_limit(tmp_path, kill_at=2000 * 4 + 600, steps=2000))
    assert diag.category == "scheduler_kill"
    assert "600 s before this, where steps had come every 4 s" in diag.root_cause, diag.root_cause


def test_time_limit_says_when_progress_went_quiet_before_the_kill(tmp_path: Path, diagnose_dir: Run) -> None:
    # steps every 4 s, the last at 03:10:00, the kill at 03:11:40: too short to call a hang, too long to
    # ignore — the root cause names the gap so the reader checks; a kill 4 s after a step says nothing
    quiet = diagnose_dir(scenarios.time_limit(tmp_path / "quiet"))
    assert quiet.category == "scheduler_kill"
    assert "2026-11-20T03:10:00.000Z, 100 s before this, where steps had come every 4 s" in quiet.root_cause
    busy = diagnose_dir(scenarios.time_limit(tmp_path / "busy", kill_at=150 * 4 + 4))
    assert busy.category == "scheduler_kill"
    assert "last progress line" not in busy.root_cause, busy.root_cause


def test_zero3_checkpoint_gather_is_not_a_plain_gpu_oom(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.zero3_save(tmp_path))
    assert diag.category == "gpu_oom_checkpoint_gather"
    assert diag.entry is not None and diag.entry.id == "zero3-checkpoint-gather-oom"
    assert diag.initiating.rank == 0
    assert collateral_ranks(diag) == set(range(1, 8))


def test_fsdp_full_state_dict_cpu_oom_is_not_a_plain_host_oom(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.fsdp_cpu_save(tmp_path))
    assert diag.category == "cpu_oom_checkpoint"
    assert diag.entry is not None and diag.entry.id == "fsdp-full-state-dict-cpu-oom"
    assert diag.initiating.node == "gpu-01"
    assert diag.initiating.rank == 2  # the OOM killer's pid is the one torchrun reported for local rank 2


def test_host_oom_without_checkpoint_context(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.host_oom(tmp_path))
    assert diag.category == "host_oom"
    assert diag.initiating.rank == 1


def test_tails_keep_each_ranks_last_lines(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.oom_then_watchdog(tmp_path))
    tail = next(t for t in diag.tails if t.rank == 5)
    assert 0 < len(tail.lines) <= 20
    assert "CUDA out of memory" in tail.lines[-1].text
    assert tail.lines[-1].line == (tmp_path / "rank5.log").read_text().count("\n")


def test_xid_on_the_ranks_node_explains_its_cuda_error(tmp_path: Path, diagnose_dir: Run) -> None:
    diag = diagnose_dir(scenarios.xid_without_bus_ids(tmp_path))
    assert diag.category == "gpu_hardware_xid"
    assert diag.initiating.node == "gpu-01"


def test_local_ranks_of_a_second_node_become_global(tmp_path: Path, diagnose_dir: Run) -> None:
    """Node 2 of a 2-node torchrun job: `[default0]:[rank8]:` gives the offset for `[default5]:` lines."""
    lines = [f"[default{r}]:[rank{r + 8}]:{line}" for r in range(8) for line in scenarios.training(r, 3)]
    lines += [f"[default5]:{line.removeprefix('[rank5]:')}" for line in scenarios.gpu_oom(5)]
    scenarios.write(tmp_path / "gpu-02", "combined.log", lines)
    scenarios.write(tmp_path / "gpu-01", "combined.log", scenarios.training(0, 3))
    diag = diagnose_dir(tmp_path)
    assert diag.category == "gpu_oom"
    assert diag.initiating.rank == 13


def test_scheduler_record_is_a_summary_not_the_first_failure(engine: Engine) -> None:
    """srun --label output without times; the scheduler's record carries a time but came after."""
    from denpex.core.models import LogSource

    combined = (
        b"0: rank 0: step 1 loss=2.31\n1: rank 1: step 1 loss=2.31\n1: Traceback (most recent call last):\n"
        b"1: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
        b"srun: error: vm: task 1: Exited with exit code 1\n"
    )
    record = (
        b"slurm: JobId=97 JobName=label NodeList=vm NumTasks=2 End=2026-11-29T19:31:15\n"
        b"slurm: JobState=CANCELLED ExitCode=0:15\n"
        b"slurmstepd: error: *** STEP 97.0 ON vm CANCELLED AT 2026-11-29T19:31:15 ***\n"
    )
    diag = engine.diagnose(
        [
            LogSource(name="label_97.out", data=combined),
            LogSource(name="job-97", data=record, kind="scheduler"),
        ]
    )
    assert diag.category == "gpu_oom"
    assert diag.initiating.rank == 1


def test_untimed_combined_log_orders_ranks_by_line(engine: Engine) -> None:
    from denpex.core.models import LogSource

    data = (
        b"[rank3]: Traceback (most recent call last):\n"
        b"[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n"
        b"[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote "
        b"process exited or there was a network error, NCCL version 2.21.5\n"
        b"[rank0]: ncclRemoteError: A call failed possibly due to a network error or a remote process "
        b"exiting prematurely.\n"
    )
    diag = engine.diagnose([LogSource(name="combined.log", data=data)])
    assert diag.initiating.rank == 3
    assert diag.category == "gpu_oom"


def test_application_xid_is_evidence_not_the_cause(tmp_path: Path, diagnose_dir: Run) -> None:
    """Xid 13 (graphics engine exception) follows the rank's illegal memory access: a software bug."""
    scenarios.write(
        tmp_path,
        "rank0.log",
        [
            *scenarios.training(0, 20),
            "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered",
            "[rank0]: CUDA kernel errors might be asynchronously reported at some other API call.",
        ],
    )
    scenarios.write(
        tmp_path,
        "node-gpu-01.dmesg",
        [
            "[Fri Nov 20 03:01:30 2026] NVRM: Xid (PCI:0000:1b:00): 13, pid=4242, name=python, Graphics "
            "SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address"
        ],
    )
    diag = diagnose_dir(tmp_path)
    assert diag.category == "cuda_illegal_access"
    assert diag.initiating.rank == 0
