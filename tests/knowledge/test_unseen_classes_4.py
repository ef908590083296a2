# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the December 6 blind corpus round, each as a small log in the format its tool
prints (not a copy of a case): UCX's crash handler (HPC-X ships it with every MPI/NCCL-over-UCX job)
reporting a fatal signal other than SIGSEGV, with its backtrace banner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]


@pytest.mark.parametrize(
    "what",
    ["4 (Illegal instruction: illegal operand)", "6 (Aborted)", "8 (Floating point exception: integer divide by zero)"],
)
def test_ucx_crash_handler_reports_a_native_crash(diagnose_dir: Run, tmp_path: Path, what: str) -> None:
    log = (
        "Starting training loop at iteration 0\n"
        f"[node7:77120:0:77120] Caught signal {what}\n"
        "==== backtrace (tid:  77120) ====\n"
        " 0  /opt/hpcx/ucx/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x15551d4a3774]\n"
        " 1  /usr/local/lib/python3.12/dist-packages/some_ext.so(+0x204c2) [0x1555]\n"
        "srun: error: node7: tasks 0-7: Exited with exit code 132\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "segfault"


def test_a_bare_shell_illegal_instruction_stays_an_environment_problem(diagnose_dir: Run, tmp_path: Path) -> None:
    """The shell's `Illegal instruction (core dumped)` after an import is a binary built for a newer CPU."""
    log = "$ python -c 'import torch'\nIllegal instruction (core dumped)\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "env_version_mismatch"
