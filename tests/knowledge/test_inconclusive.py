"""Input with nothing to read is said to be so: never a guessed hang, never a crash."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis


def test_empty_and_binary_files_are_no_log_content(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    (tmp_path / "rank0.log").write_bytes(b"")
    noise = random.Random(61).randbytes(2048).replace(b"\n", b"\x00")  # its last `\r` leaves "zl"
    (tmp_path / "rank1.log").write_bytes(bytes(range(256)) * 40 + noise)
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


def test_an_unphased_kill_names_the_checkpoint_oom_as_the_alternative(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    """An exit -9 with no line saying what the job was doing: host_oom with lowered confidence, the
    checkpoint host OOM as the alternative, and the one fact that decides it asked for first."""
    (tmp_path / "console.log").write_text(
        "Parameter Offload: Total persistent parameters: 414720 in 81 params\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 "
        "(pid: 53038) of binary: /usr/bin/python\n"
    )
    diag = diagnose_dir(tmp_path)
    assert diag.category == "host_oom" and diag.initiating.phase is None
    assert diag.confidence < 0.5
    assert [a.category for a in diag.alternatives][:1] == ["cpu_oom_checkpoint"]
    assert "saving a checkpoint" in diag.missing_evidence[0].what
