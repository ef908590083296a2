# ruff: noqa: E501 - realistic log lines are long
"""A log copied newest line first (a log search UI's order) is put back in order (knowledge/order.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from knowledge.order import newest_first

Run = Callable[[Path], Diagnosis]

WRITTEN = [
    "[2024-05-01 10:00:00,000] [INFO] [rank1] step 40 loss 1.2",
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "train.py", line 88, in <module>',
    "[rank1]:     loss = model(batch)",
    "[rank1]: RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x512 and 1024x10)",
    "[2024-05-01 10:30:00,000] [E ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800012 milliseconds before timing out.",
]


def test_upside_down_tracebacks_and_falling_clocks_are_newest_first() -> None:
    assert newest_first(list(reversed(WRITTEN)))
    assert not newest_first(WRITTEN)
    stamps = [f"[2024-05-01 10:00:0{s},000] [INFO] step {s}" for s in range(5)]
    assert newest_first(list(reversed(stamps)))
    assert not newest_first(stamps)


def test_interleaved_ranks_written_in_order_are_not_reversed() -> None:
    """Two ranks' tracebacks interleaved line by line: a header may follow another rank's frame."""
    lines = [
        "[rank0]: Traceback (most recent call last):",
        "[rank1]: Traceback (most recent call last):",
        '[rank0]:   File "train.py", line 88, in <module>',
        '[rank1]:   File "train.py", line 88, in <module>',
        "[rank0]: RuntimeError: boom",
        "[rank1]: RuntimeError: boom",
    ]
    assert not newest_first(lines)


def test_a_copy_listed_newest_first_gets_the_diagnosis_of_the_log(diagnose_dir: Run, tmp_path: Path) -> None:
    """Rank 1's shape error came first; rank 0 timed out half an hour later."""
    (tmp_path / "console.log").write_text("\n".join(reversed(WRITTEN)) + "\n")
    d = diagnose_dir(tmp_path)
    assert d.category == "shape_or_user_code_error"
    assert d.initiating.rank == 1
