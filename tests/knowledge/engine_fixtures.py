"""Shared fixtures of the engine tests (imported by the test modules that use them).

`DENPEX_TEST_ENTRIES` points the tests at another entries folder (useful while entries are edited).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.models import Diagnosis
from knowledge.engine import Engine
from knowledge.sources import discover


def entries_dir() -> Path | None:
    value = os.environ.get("DENPEX_TEST_ENTRIES")
    return Path(value) if value else None


@pytest.fixture(scope="session")
def engine() -> Engine:
    return Engine.load(entries_dir())


@pytest.fixture
def diagnose_dir(engine: Engine) -> Callable[[Path], Diagnosis]:
    def run(folder: Path) -> Diagnosis:
        return engine.diagnose(discover([folder]))

    return run
