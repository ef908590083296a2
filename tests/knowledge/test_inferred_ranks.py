# ruff: noqa: E501 - realistic log lines are long
"""Ranks and phases the engine infers from what launchers and progress bars leave out
(knowledge/stragglers.py, knowledge/roundstep.py): each inference, and the case where it must not fire."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from knowledge import roundstep, stragglers

Run = Callable[[Path], Diagnosis]

AGENT = "W0613 07:54:19.850000 180275 site-packages/torch/distributed/elastic/multiprocessing/api.py:897]"


def _write(folder: Path, name: str, lines: list[str]) -> None:
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _sigterms(pids: list[int]) -> list[str]:
    return [f"{AGENT} Sending process {p} closing signal SIGTERM" for p in pids]


def test_the_child_torchrun_did_not_stop_is_the_one_that_died(tmp_path: Path, diagnose_dir: Run) -> None:
    """torchrun stops 53038, 53039, 53041 and reports an exit -9 without a pid: 53040, local rank 2."""
    lines = [
        "Parameter Offload: Total persistent parameters: 414720 in 81 params",
        *_sigterms([53038, 53039, 53041]),
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank",
    ]
    _write(tmp_path, "console.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "host_oom"
    assert diag.initiating.rank == 2
    assert "53040" in diag.root_cause, diag.root_cause


def test_no_rank_when_the_missing_pid_cannot_be_placed() -> None:
    """A missing pid at either end of the list (or two holes) could be any of two children: no rank."""
    assert stragglers.unsignalled_child(_sigterms([101, 102, 103])) is None
    assert stragglers.unsignalled_child(_sigterms([101, 103, 105])) is None
    found = stragglers.unsignalled_child(_sigterms([101, 103, 104]))
    assert found is not None and found.rank == 1


def test_deepspeed_launcher_names_the_failed_childs_local_rank(tmp_path: Path, diagnose_dir: Run) -> None:
    lines = [
        "[2023-07-20 15:45:13,980] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 3966",
        "[2023-07-20 15:45:13,981] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 3967",
        "[2023-07-20 15:45:13,982] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=1', '--deepspeed', 'ds.json'] exits with return code = -7",
    ]
    _write(tmp_path, "console.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.initiating.rank == 1


def test_oom_killer_pid_maps_through_deepspeeds_kill_order(tmp_path: Path, diagnose_dir: Run) -> None:
    """DeepSpeed stops its children in local-rank order; the kernel's victim pid is the first of them."""
    _write(
        tmp_path,
        "console.log",
        [
            "[2025-06-02 20:51:24,182] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 410126",
            "[2025-06-02 20:51:24,184] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 410127",
            "[2025-06-02 20:51:26,612] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 410128",
        ],
    )
    _write(
        tmp_path,
        "node-local.dmesg",
        [
            "[856341.770960] Out of memory: Killed process 410127 (python) total-vm:79905000kB, anon-rss:22957108kB, file-rss:72036kB, shmem-rss:15143164kB, UID:1000 pgtables:78032kB oom_score_adj:0"
        ],
    )
    diag = diagnose_dir(tmp_path)
    assert diag.category in ("host_oom", "cpu_oom_checkpoint")
    assert diag.initiating.rank == 1


def test_the_rank_still_preprocessing_is_the_one_the_others_waited_for(
    tmp_path: Path, diagnose_dir: Run
) -> None:
    timeout = (
        "[default{r}]:[E ProcessGroupNCCL.cpp:475] [Rank {r}] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600888 milliseconds before timing out."
    )
    lines = [
        "[default0]:Grouping texts in chunks of 2049:   8%|▊         | 726000/9672101 [02:32<30:38, 4866.01 examples/s]",
        timeout.format(r=2),
        timeout.format(r=3),
    ]
    _write(tmp_path, "combined.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "nccl_timeout"
    assert diag.initiating.rank == 0


def test_main_process_first_barrier_names_rank_0(tmp_path: Path, diagnose_dir: Run) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/src/llmtuner/dsets/preprocess.py", line 176, in preprocess_dataset',
        '    with training_args.main_process_first(desc="dataset map pre-processing"):',
        '  File "/envs/llama/lib/python3.10/site-packages/transformers/training_args.py", line 2035, in main_process_first',
        "    dist.barrier()",
        '  File "/envs/llama/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 3328, in barrier',
        "    work = default_pg.barrier(opts=opts)",
    ]
    _write(tmp_path, "console.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "nccl_timeout"
    assert diag.initiating.rank == 0


def _killed_after_bar(step: int, total: int) -> list[str]:
    return [
        f"  5%|▍         | {step}/{total} [11:11:27<255:23:04, 216.68s/it]{AGENT} Sending process 180494 closing signal SIGTERM",
        f"{AGENT} Sending process 180495 closing signal SIGTERM",
        "E0613 07:54:22.195000 180275 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 3 (pid: 180497) of binary: /envs/bin/python3.11",
    ]


def test_kill_on_a_round_step_is_read_as_a_save_and_says_it_is_inferred(
    tmp_path: Path, diagnose_dir: Run
) -> None:
    _write(tmp_path, "console.log", _killed_after_bar(200, 4443))
    diag = diagnose_dir(tmp_path)
    assert diag.category == "cpu_oom_checkpoint"
    assert diag.initiating.rank == 3
    assert diag.initiating.phase == "checkpoint_save"
    assert "step 200" in diag.missing_evidence[0].what
    assert "host_oom" in {a.category for a in diag.alternatives}


def test_kill_on_an_ordinary_step_stays_a_host_oom(tmp_path: Path, diagnose_dir: Run) -> None:
    _write(tmp_path, "console.log", _killed_after_bar(217, 4443))
    diag = diagnose_dir(tmp_path)
    assert diag.category == "host_oom"
    assert diag.initiating.phase != "checkpoint_save"


def test_round_step_needs_a_bar_just_above_the_kill() -> None:
    bar = "  5%|▍         | 300/4443 [11:11:27<255:23:04, 216.68s/it]"
    numbered = [(10, bar), *((10 + i, f"noise {i}") for i in range(1, 20))]
    assert roundstep.round_step_save(0, numbered, 12) is not None
    assert roundstep.round_step_save(0, numbered, 29) is None  # too far below the bar
    done = [(10, "100%|██████████| 4400/4400 [11:11:27<00:00, 1.2s/it]")]
    assert roundstep.round_step_save(0, done, 11) is None  # the end of training is not a save interval


def _epoch_then(lines: list[str]) -> list[str]:
    return [
        "Training Epoch: 1/3, step 46/47 completed (loss: 0.1500): 100%|██████████| 47/47 [34:52<00:00, 44.52s/it]",
        "evaluating Epoch: 100%|██████████| 17/17 [01:08<00:00,  4.00s/it]",
        *lines,
    ]


def test_a_death_after_the_epochs_last_bar_is_read_as_a_save(tmp_path: Path, diagnose_dir: Run) -> None:
    """Training and evaluation bars at their totals, then the agent stops everyone: the epoch-end save."""
    _write(
        tmp_path,
        "console.log",
        _epoch_then(
            [
                "W0304 01:00:36.891000 3535919 site-packages/torch/distributed/elastic/agent/server/api.py:725] Received Signals.SIGTERM death signal, shutting down workers",
                *_sigterms([3536001, 3536002, 3536003]),
            ]
        ),
    )
    diag = diagnose_dir(tmp_path)
    assert diag.category == "cpu_oom_checkpoint"
    assert diag.initiating.phase == "checkpoint_save" and diag.initiating.phase_inferred


def test_a_failure_while_the_next_bar_runs_is_not_a_save(tmp_path: Path, diagnose_dir: Run) -> None:
    _write(
        tmp_path,
        "console.log",
        _epoch_then(
            [
                "Training Epoch: 2/3, step 3/47 completed (loss: 0.1400):   6%|▋         | 3/47 [02:12<32:00, 44.0s/it]",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.2 GiB is free.",
            ]
        ),
    )
    diag = diagnose_dir(tmp_path)
    assert diag.category == "gpu_oom"
    assert diag.initiating.phase == "train"


def _gloo_timeout(rank: int) -> str:
    return (
        f"[default{rank}]:[rank{rank}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/"
        "tcp/unbound_buffer.cc:78] Timed out waiting 10000ms for recv operation to complete"
    )


def test_a_waiter_that_died_first_is_not_the_initiator(tmp_path: Path, diagnose_dir: Run) -> None:
    """Rank 3 hung; ranks 1 and 2 timed out, and torchrun stopped rank 0 before its own timeout fired.
    The child torchrun did not stop (rank 2) died of the timeout: a waiter, not the start. Ranks 0 and 3
    are both silent, so no rank is named and both are given as the candidates."""
    lines = [
        "[default0]:2026-12-01 21:43:40,966 INFO train: Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4",
        "[default3]:2026-12-01 21:43:40,976 INFO train: Initializing distributed: GLOBAL_RANK: 3, MEMBER: 4/4",
        "[default0]:2026-12-01 21:43:47,355 INFO train: Starting training: 10 steps, world size 4",
        "[default0]:2026-12-01 21:43:47,443 INFO train: step 3/10 loss 1.1026",
        _gloo_timeout(1),
        _gloo_timeout(2),
        *_sigterms([32026, 32027, 32029]),
        "E1201 21:44:00.902000 32010 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 2 (pid: 32028) of binary: /usr/bin/python3",
    ]
    _write(tmp_path, "console.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "nccl_timeout"
    assert diag.initiating.rank is None
    assert "ranks 0 and 3 never reported a timeout" in diag.root_cause, diag.root_cause


def test_the_one_silent_rank_is_still_named_when_all_others_timed_out(
    tmp_path: Path, diagnose_dir: Run
) -> None:
    lines = [
        "[default0]:2026-12-01 21:43:47,355 INFO train: Starting training: 10 steps, world size 4",
        *(_gloo_timeout(r) for r in (0, 1, 2)),
        *_sigterms([32027, 32028, 32029]),
        "E1201 21:44:00.902000 32010 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 0 (pid: 32026) of binary: /usr/bin/python3",
    ]
    _write(tmp_path, "console.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.initiating.rank == 3, diag.root_cause
