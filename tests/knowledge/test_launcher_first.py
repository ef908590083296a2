"""torchrun's failure summary gives as its Root Cause the first process it saw *exit*: in a timeout,
one of the ranks that waited (their watchdog fires, the silent rank is still stuck). The diagnosis
names the rank that started it and says, after the root cause, which rank the launcher's block names
and why it differs, so the reader who finds that block is not sent to the wrong rank. Where the
launcher and the diagnosis agree, nothing is added."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.engine import Engine
from knowledge.sources import discover

FIXTURES = Path(__file__).resolve().parents[1] / "realjobs" / "fixtures"
SAID = "torchrun's failure summary gives rank"


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


@pytest.mark.parametrize("job", ["desync", "hang_before_collective"])
def test_a_waiter_the_launcher_saw_exit_first_is_named_after_the_root_cause(engine: Engine, job: str) -> None:
    diag = engine.diagnose(discover([FIXTURES / job / "logs"]))
    assert diag.initiating.rank == 3
    said = f"{SAID} 0 as its Root Cause (first observed failure): the first process it saw exit, not the one"
    assert said in diag.root_cause
    assert diag.root_cause.index(said) > 0  # after the cause, not instead of it
    assert "(rank 3)" in diag.root_cause


@pytest.mark.parametrize("job", ["segfault", "nan_loss", "disk_full_save"])
def test_nothing_is_added_where_the_launcher_and_the_diagnosis_agree(engine: Engine, job: str) -> None:
    diag = engine.diagnose(discover([FIXTURES / job / "logs"]))
    assert SAID not in diag.root_cause
