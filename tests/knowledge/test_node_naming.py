"""The initiating node is named whenever a line says where the rank ran."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."


@pytest.mark.parametrize(
    "where",
    [
        "[2026-11-20 02:01:12,331] [INFO] [launch] rank=3 local_rank=1 world_size=4 node=gpu-07",
        "gpu-07:4242:4242 [1] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>",
        "gpu-07:4242:4300 [1] NCCL INFO comm 0x55d0 rank 3 nranks 4 cudaDev 1 busId 1b000 - Init COMPLETE",
    ],
    ids=["launcher-line", "nccl-prefix", "nccl-init"],
)
def test_node_of_the_initiating_rank(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis], where: str
) -> None:
    (tmp_path / "rank3.log").write_text(f"{where}\nstep 10 loss 1.2\n{OOM}\n")
    (tmp_path / "rank0.log").write_text("step 10 loss 1.2\n")
    diag = diagnose_dir(tmp_path)
    assert diag.initiating.rank == 3
    assert diag.initiating.node == "gpu-07"


def test_node_from_torchruns_failure_summary(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    (tmp_path / "console.log").write_text(
        "Root Cause (first observed failure):\n[0]:\n  time      : 2026-11-20_03:14:41\n"
        "  host      : gpu-03\n  rank      : 6 (local_rank: 2)\n  exitcode  : -9 (pid: 414)\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 414\n"
    )
    diag = diagnose_dir(tmp_path)
    assert diag.initiating.rank == 6 and diag.initiating.node == "gpu-03"
