"""Fault-injection fixtures: the pipeline's real components (redis-server, `denpex worker`, `denpex
serve`, the fake Slack) reused from tests/pipeline, plus a server process on a real port.

Every test here injects one fault and asserts the contract that must survive it (nothing lost,
nothing posted twice, clear errors, bounded memory), each bounded in time for a 2-core CI box.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.server import build_deps, create_app
from knowledge.masking import Masker
from tests.faults.support import ServeProc
from tests.pipeline.conftest import fake_slack, log_root, make_settings, workers

__all__ = ["fake_slack", "log_root", "workers"]


@pytest.fixture
async def client(redis_url: str, log_root: Path) -> AsyncIterator[TestClient]:
    """The server app in this test's event loop, on a real 127.0.0.1 port."""
    settings = make_settings(redis_url, log_root)
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


@pytest.fixture
def serve(redis_url: str, log_root: Path, tmp_path: Path) -> Iterator[Callable[..., ServeProc]]:
    """Start `denpex serve` as its own process (so load on the test's side cannot skew its latency)."""
    started: list[ServeProc] = []

    def factory(**env: str) -> ServeProc:
        proc = ServeProc(redis_url, log_root, tmp_path / f"serve-{len(started)}.log", **env)
        started.append(proc)
        proc.start()
        return proc

    yield factory
    for proc in started:
        proc.stop()
