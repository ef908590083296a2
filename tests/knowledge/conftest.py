"""Fixtures for the knowledge tests (engine, entries, masking)."""

# --- engine fixtures (engine issue) ---------------------------------------------------------------

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge.engine import Engine
from knowledge.sources import discover
from tests.knowledge.engine_support import entries_dir


@pytest.fixture(scope="session")
def engine() -> Engine:
    """One compiled engine for the session (compiling is the slow part)."""
    return Engine.load(entries_dir())


@pytest.fixture
def diagnose_dir(engine: Engine) -> Callable[[Path], Diagnosis]:
    def run(folder: Path) -> Diagnosis:
        return engine.diagnose(discover([folder]))

    return run
