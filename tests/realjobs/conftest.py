"""Fixtures of the real-jobs tests: one compiled engine for the session."""

from __future__ import annotations

import pytest

from knowledge.engine import Engine
from tests.knowledge.engine_support import entries_dir


@pytest.fixture(scope="session")
def engine() -> Engine:
    """Compiling the knowledge base is the slow part; every fixture shares one engine."""
    return Engine.load(entries_dir())


def pytest_configure(config: pytest.Config) -> None:
    # until pyproject.toml lists it (markers = [...]): keeps `-m realjobs_live` selectable, warning-free
    config.addinivalue_line(
        "markers", "realjobs_live: runs real torchrun jobs (needs torch==2.13.0; skipped without torch)"
    )
