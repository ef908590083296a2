# ruff: noqa: E501 - realistic log lines are long
"""Messages the frameworks print, read from their sources, that a log may end on: builds that lack a
part or do not fit the GPU, the CUDA driver API's out-of-memory, and save/load lines of more trainers
(a kill after them is a checkpoint host OOM, not a training one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)",
        "ptxas fatal   : Value 'sm_90a' is not defined for option 'gpu-name'",
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
        "RuntimeError: Distributed package doesn't have NCCL built in",
        "RuntimeError: Cannot find a working triton installation. Either the package is not installed or it is too old.",
        "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend.",
        "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'",
    ],
)
def test_a_build_that_lacks_a_part_or_does_not_fit_the_gpu(
    diagnose_dir: Run, tmp_path: Path, line: str
) -> None:
    log = f'[rank0]: Traceback (most recent call last):\n[rank0]:   File "train.py", line 12, in <module>\n[rank0]: {line}\n'
    assert diagnose_dir(_log(tmp_path, log)).category == "env_version_mismatch"


def test_the_cuda_driver_apis_out_of_memory_is_a_gpu_oom(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "{'loss': 0.91, 'epoch': 0.4}\nRuntimeError: CUDA driver error: out of memory\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "gpu_oom"


@pytest.mark.parametrize(
    "line",
    [
        "[2026-01-01 00:00:00] INFO - Saving DCP checkpoint to /ckpt/step_1000",
        "Saving HF checkpoint to /ckpt/hf/step_1000",
        "[trainer] step 1000: checkpoint saving started",
        "Converting DeepSpeed checkpoint to fp32",
        "[titan] 2026-01-01 00:00:00,000 - root - INFO - Loading the checkpoint at step 1000.",
    ],
)
def test_a_kill_after_more_trainers_save_or_load_lines_is_a_checkpoint_host_oom(
    diagnose_dir: Run, tmp_path: Path, line: str
) -> None:
    log = f"step 999 loss 1.82\n{line}\nKilled\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "cpu_oom_checkpoint"


def test_saving_a_dataset_is_not_a_checkpoint(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "Saving the dataset (0/1 shards):   0%|          | 0/100000\nKilled\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "host_oom"


def test_a_torch_built_without_libuv_is_a_build_gap_not_a_rendezvous_failure(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        '  File "C:\\envs\\py312\\Lib\\site-packages\\torch\\distributed\\rendezvous.py", line 189, in _create_c10d_store\n'
        "    return TCPStore(\n"
        "RuntimeError: use_libuv was requested but PyTorch was built without libuv support\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "env_version_mismatch"


@pytest.mark.parametrize(
    "line",
    [
        "step 12 | loss    nan | grad_norm     nan | lr 2.0e-05",
        "| epoch 003:    220 / 1132 loss=2.881, gnorm=inf, clip=100, ups=1.21",
        "iter 4100: loss=nan, tokens/s=81234",
    ],
)
def test_a_progress_line_with_a_nan_loss_or_norm_is_divergence(
    diagnose_dir: Run, tmp_path: Path, line: str
) -> None:
    log = f"step 11 | loss 2.3224 | grad_norm 0.9120 | lr 2.0e-05\n{line}\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "nan_divergence"


def test_a_log_that_stops_after_a_finished_data_bar_is_not_an_epoch_end_save(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """HF datasets' bars (`Filter`, `Map`, examples per second) reach 100 % too: preparing data, no save."""
    log = (
        "Loading dataset from /data/gsm8k\n"
        "Filtering prompts longer than 1024 tokens (num_proc=16): 100%|██████████| 7473/7473 [12:01<00:00, 10.36examples/s]\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category != "cpu_oom_checkpoint"
    assert d.initiating.phase != "checkpoint_save"


def test_an_allocator_reporting_cuda_error_capitalised_is_a_gpu_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = "RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "gpu_oom"
