"""Input with nothing to read is said to be so: never a guessed hang, never a crash."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis


def test_empty_and_binary_files_are_no_log_content(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    (tmp_path / "rank0.log").write_bytes(b"")
    (tmp_path / "rank1.log").write_bytes(bytes(range(256)) * 40 + os.urandom(2048).replace(b"\n", b"\x00"))
    diag = diagnose_dir(tmp_path)
    assert diag.entry is None and diag.confidence == 0.0
    assert diag.root_cause.startswith("No log content found")
    assert "hung" not in diag.root_cause
    assert diag.missing_evidence[0].what.startswith("the job's log text")


def test_one_readable_line_is_enough(tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]) -> None:
    (tmp_path / "rank0.log").write_bytes(b"")
    (tmp_path / "rank1.log").write_text(
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    diag = diagnose_dir(tmp_path)
    assert diag.category == "cuda_illegal_access" and diag.initiating.rank == 1
