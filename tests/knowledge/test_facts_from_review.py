# ruff: noqa: E501 - realistic log lines are long
"""Facts of a job that blind reviewers of the thread found missing or wrong (December 6, third
session): the node Slurm names when it cancels a job that no rank's line names; each rank's last step
in one combined stream of many ranks, not only the ranks near its end."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]


def test_the_node_slurm_names_in_its_cancel_banner_is_the_jobs_node(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    folder = _log(
        tmp_path,
        "[2026-05-01 08:59:30,000] step 10 loss 2.0\n"
        "slurmstepd: error: *** JOB 77 ON node-b17 CANCELLED AT 2026-05-01T09:00:00 DUE TO TIME LIMIT ***\n",
    )
    d = diagnose_dir(folder)
    assert d.category == "scheduler_kill"
    assert d.facts.nodes == ["node-b17"]
    assert d.initiating.node == "node-b17"


def test_every_ranks_last_step_in_a_long_combined_stream(diagnose_dir: Run, tmp_path: Path) -> None:
    """8 ranks x 40 lines, one block after another (torchrun --tee into one file): rank 0's steps are
    300 lines before the end."""
    lines = ["[default0]:[rank0]: Initializing: world_size=8"]
    for r in range(8):
        lines += [
            f"[default{r}]:[rank{r}]:[2026-05-01 08:00:{s:02d},000] [INFO] step {s} loss 2.0"
            for s in range(40)
        ]
    lines.append("[default3]:[rank3]: ValueError: Loss is nan, stopping training")
    d = diagnose_dir(_log(tmp_path, "\n".join(lines) + "\n"))
    steps = {r.rank: r.last_step for r in d.facts.ranks}
    assert all(steps.get(r) == 39 for r in range(8)), steps


def test_the_settings_a_job_printed_are_kept_once_each(diagnose_dir: Run, tmp_path: Path) -> None:
    """ "Was bf16 already on?" is answered from the line the job printed, never assumed: one line per
    distinct setting and value, however many ranks print the same dump."""
    lines = [
        f"[2026-05-01 08:00:0{r},000] [INFO] [rank{r}] DeepSpeed config: zero_optimization.stage=3 "
        "stage3_gather_16bit_weights_on_model_save=true bf16.enabled=true"
        for r in range(4)
    ]
    lines += [
        "TrainingArguments(per_device_train_batch_size=2, gradient_checkpointing=True, dataloader_num_workers=8,",
        "[2026-05-01 08:10:00,000] [INFO] [rank1] step 10 loss 2.0",
        "[2026-05-01 08:10:05,000] [rank1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    ]
    d = diagnose_dir(_log(tmp_path, "\n".join(lines) + "\n"))
    kept = [e.text for e in d.facts.settings]
    assert len(kept) == 2, kept
    assert "bf16.enabled=true" in kept[0] and "gradient_checkpointing=True" in kept[1]


REALJOBS = Path(__file__).parents[1] / "realjobs" / "fixtures"


def test_a_gloo_jobs_commands_carry_no_nccl_only_switches(diagnose_dir: Run) -> None:
    """A real torchrun job on gloo: `TORCH_NCCL_*` would do nothing, DETAIL checks its collectives."""
    d = diagnose_dir(REALJOBS / "hang_before_collective" / "logs")
    assert d.verify and "NCCL" not in d.verify.split("#")[0]
    assert "TORCH_DISTRIBUTED_DEBUG=DETAIL" in d.verify
    assert 'init_process_group("nccl"' not in d.fix_snippet


def test_an_nccl_jobs_commands_keep_their_switches(diagnose_dir: Run) -> None:
    from denpex.demo import LOGS

    d = diagnose_dir(LOGS)
    assert "PYTORCH_CUDA_ALLOC_CONF" in d.verify  # untouched: the demo job runs NCCL


def test_a_gloo_repro_command_swaps_the_nccl_debug_switches() -> None:
    from knowledge.backend import for_backend

    cmd = "TORCH_NCCL_DESYNC_DEBUG=1 TORCH_NCCL_DUMP_ON_TIMEOUT=1 torchrun --nproc_per_node 4 train.py"
    assert (
        for_backend(cmd, "gloo", debug=True)
        == "TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun --nproc_per_node 4 train.py"
    )
    assert for_backend(cmd, "nccl", debug=True) == cmd
    snippet = 'export NCCL_DEBUG=INFO\ndist.init_process_group(backend="nccl")\n'
    assert for_backend(snippet, "gloo") == 'dist.init_process_group(backend="gloo")\n'


def test_a_ray_workers_lines_are_the_rank_its_own_prefix_names(diagnose_dir: Run, tmp_path: Path) -> None:
    """`[PG 12 Rank 0]` is the rank within a subgroup; the worker's own `[rank6]:` prefix is its rank."""
    log = (
        "(WorkerDict pid=7311) [rank6]:[E1105 10:02:11.900000000 ProcessGroupNCCL.cpp:1515] [PG 12 Rank 0] "
        "Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
        "(WorkerDict pid=7311) [2025-11-05 10:02:11,400 E 7311 7390] logging.cc:97: Unhandled exception: "
        "N3c1016DistBackendErrorE. what(): [PG 12 Rank 0] Process group watchdog thread terminated with exception: "
        "CUDA error: an illegal memory access was encountered\n"
        "(WorkerDict pid=7200) [2025-11-05 10:02:40,000 W 7200 7200] worker exited\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "cuda_illegal_access"
    assert d.initiating.rank == 6
