# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the December 6 (fifth session) blind corpus round, each as a small log in the
format its tool prints (not a copy of a case)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]


def test_an_overflow_at_a_loss_scale_of_one_or_below_is_a_diverged_run(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """DeepSpeed's scaler already at its floor, and the exception that follows cut off: the run diverged."""
    log = (
        " 15%|█▌        | 417/2724 [15:23:53<84:00:48, 131.10s/it][2024-03-01 23:41:42,582] [INFO] [loss_scaler.py:181:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 0, reducing to 0\n"
        " 15%|█▌        | 418/2724 [15:26:04<83:57:06, 131.06s/it]Traceback (most recent call last):\n"
        '  File "./scripts/train.py", line 621, in <module>\n'
        "    main()\n"
        '  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/launcher/api.py", line 246, in launch_agent\n'
        "    raise ChildFailedError(\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nan_divergence"


def test_ordinary_overflows_at_a_high_scale_do_not_decide(diagnose_dir: Run, tmp_path: Path) -> None:
    """Overflows are routine in fp16 while the scale is still large: they are no verdict of their own."""
    log = (
        "[2024-03-01 10:00:01,100] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n"
        "[2024-03-01 10:00:03,200] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 16384, reducing to 8192\n"
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x512 and 1024x10)\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"


def test_nccl_without_a_kernel_for_this_gpu_is_the_environment(diagnose_dir: Run, tmp_path: Path) -> None:
    """`named symbol not found` under NCCL's `unhandled cuda error`: the wheel has no code for the GPU."""
    log = (
        "gpu-node:811:811 [0] NCCL INFO cudaDriverVersion 12080\n"
        "NCCL version 2.14.3+cuda11.8\n"
        "gpu-node:811:811 [0] NCCL WARN Cuda failure 'named symbol not found'\n"
        "RuntimeError: NCCL Error 1: unhandled cuda error\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_a_bootstrap_address_of_family_0_is_mismatched_nccl_versions(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3\n"
        "ncclInternalError: Internal check failed.\n"
        "Last error:\n"
        "ncclSocketInit: connecting to address  with family 0 is neither AF_INET(2) nor AF_INET6(10)\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


STORE_FRAMES = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 40, in <module>\n'
    "    dist.init_process_group(backend='nccl', init_method='env://')\n"
    '  File "/usr/lib/python3.10/site-packages/torch/distributed/rendezvous.py", line 176, in _create_c10d_store\n'
    "    return TCPStore(\n"
)


@pytest.mark.parametrize(
    "error",
    [
        "RuntimeError: Address already in use",
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
    ],
)
def test_a_port_taken_under_the_processes_own_store_is_rank_0s(
    diagnose_dir: Run, tmp_path: Path, error: str
) -> None:
    """Only rank 0 listens on MASTER_PORT in the env:// rendezvous; the others connect as clients."""
    d = diagnose_dir(_log(tmp_path, STORE_FRAMES + error + "\n"))
    assert d.category == "rendezvous_failure"
    assert d.initiating.rank == 0
    assert "only rank 0" in d.root_cause


def test_a_port_taken_by_torchruns_agent_names_no_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    """torchrun's agent binds its own store before any rank exists: no rank is named for it."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/site-packages/torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py", line 55, in next_rendezvous\n'
        "    self._store = TCPStore(  # type: ignore[call-arg]\n"
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "rendezvous_failure"
    assert d.initiating.rank is None
