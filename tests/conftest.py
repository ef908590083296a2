"""Fixtures every area shares. Area-specific fixtures live in that area's conftest."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.support.redis_server import RedisServer

# slack_sdk ignores NO_PROXY: a proxy variable from the environment would send test traffic astray.
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
    os.environ.pop(_var, None)


@pytest.fixture(scope="session", autouse=True)
def denpex_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every process the tests start keeps its compiled knowledge (`knowledge/cache.py`) in one fresh
    directory of this session, never the user's `~/.cache/denpex` nor another run's."""
    path = tmp_path_factory.mktemp("denpex-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DENPEX_CACHE_DIR", str(path))
        yield path


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> Iterator[str]:
    """A URL to an empty database of the session's private redis-server."""
    if redis_server.proc is None or redis_server.proc.poll() is not None:
        redis_server.start()  # a fault-injection test may have left it stopped
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    yield redis_server.url


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()
