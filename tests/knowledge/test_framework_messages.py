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
