# ruff: noqa: E501 - realistic log lines are long
"""Failure classes first met in blind corpus cases, each as its own small log in the format the tools
print: a conversion script killed for RAM, Ray's memory monitor table, a Chinese-locale `Killed`, a
store timeout once training runs, ranks timing out while rank 0 is silent, a Ray worker prefix."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]


def test_a_checkpoint_conversion_killed_for_ram_is_a_checkpoint_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "python scripts/convert_hf_checkpoint.py --checkpoint_dir checkpoints/open-llama/7B --model_size 7B\n"
        "Initializing lit-llama\n"
        "Processing pytorch_model-00001-of-00002.bin\n"
        "Killed\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "cpu_oom_checkpoint"
    assert d.initiating.phase == "checkpoint_load"


def test_the_same_kill_in_a_training_loop_stays_a_host_oom(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "python train.py --epochs 3\n" + "".join(f"step {i} loss 2.{i}\n" for i in range(1, 9)) + "Killed\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "host_oom"


def test_a_chinese_locale_killed_after_a_progress_bar_is_a_kill(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "  0%|          | 0/1 [00:00<?, ?it/s]已杀死\n"
    assert diagnose_dir(_log(tmp_path, log)).category in ("host_oom", "cpu_oom_checkpoint")


def test_rays_top_memory_users_table_is_a_host_oom(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "PID     MEM(GB) COMMAND\n"
        "40126   11.20   ray::WorkerDict.actor_rollout_generate_sequences\n"
        "40125   11.17   ray::WorkerDict.actor_rollout_generate_sequences\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "host_oom"


def test_a_store_timeout_at_start_up_is_a_rendezvous_failure(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "Initializing process group\nRuntimeError: Socket Timeout\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "rendezvous_failure"


def test_a_store_timeout_after_training_began_is_a_collective_wait(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "".join(f"ep 1 train, step {i}, ce 0.8{i}, fer 0.9\n" for i in range(5))
        + "".join(f"ep 1 dev eval, step {i}, ce 0.4, fer 0.9\n" for i in range(5))
        + "RuntimeError: Socket Timeout\n"
        "Exception raised from doWait at ../torch/csrc/distributed/c10d/TCPStore.cpp:445 (most recent call first):\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nccl_timeout"
    assert d.initiating.phase == "eval"


def _watchdog(rank: int) -> str:
    return (
        f"[rank{rank}]:[E1129 11:56:57.204156533 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=28956, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
        "for 600022 milliseconds before timing out.\n"
    )


def test_timeouts_without_a_word_from_rank_0_name_rank_0(diagnose_dir: Run, tmp_path: Path) -> None:
    d = diagnose_dir(_log(tmp_path, _watchdog(4) + _watchdog(5)))
    assert d.category == "nccl_timeout"
    assert d.initiating.rank == 0
    assert d.confidence < 0.5


def test_timeouts_that_include_rank_0_do_not_blame_it(diagnose_dir: Run, tmp_path: Path) -> None:
    d = diagnose_dir(_log(tmp_path, _watchdog(0) + _watchdog(4) + _watchdog(5)))
    assert d.initiating.rank != 0


def test_ray_worker_prefixes_do_not_hide_a_traceback(diagnose_dir: Run, tmp_path: Path) -> None:
    prefix = "(RayTrainWorker pid=48213, ip=10.0.0.7) "
    log = "".join(
        prefix + line + "\n"
        for line in (
            "Traceback (most recent call last):",
            '  File "/app/train.py", line 12, in <module>',
            "    main()",
            "ValueError: Using a target size (torch.Size([1, 256])) that is different to the input size (torch.Size([1, 128]))",
        )
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "shape_or_user_code_error"
