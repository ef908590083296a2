"""The one Redis client builder (`workers.redisconn`), its settings, WAIT, and the 503 middleware.

Real servers only: a closed port or unreachable Sentinels stand for "no primary known"; the
Sentinel cluster of tests/failover/cluster.py for WAIT and for RQ over a Sentinel-managed client.
"""

from __future__ import annotations

import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis
import redis.sentinel
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from pydantic import ValidationError
from rq import Queue

from bot.server import build_deps, create_app
from bot.unavailable import RETRY_AFTER_SECONDS, redis_unavailable
from denpex.core.settings import MissingSetting, Settings
from knowledge.masking import Masker
from tests.failover.cluster import MASTER, SentinelCluster
from tests.pipeline.conftest import make_settings, signed, wait_until
from tests.support.redis_server import free_port
from workers.redisconn import (
    RedisTarget,
    async_client,
    await_replica,
    is_sentinel_client,
    sync_client,
    wait_for_replica,
)

pytestmark = pytest.mark.timeout(90)


def test_sentinel_settings_are_parsed_and_checked_at_start_up() -> None:
    settings = Settings(
        DENPEX_REDIS_SENTINELS=" 10.0.0.1:26379, sentinel-2:26380 ",
        DENPEX_REDIS_SENTINEL_PASSWORD="s3nt",
        REDIS_URL="redis://:datapw@ignored:6379/3",
    )
    assert settings.sentinels == [("10.0.0.1", 26379), ("sentinel-2", 26380)]
    assert settings.redis_sentinel_master == "mymaster"
    target = RedisTarget.from_settings(settings)
    assert target.uses_sentinel and target.sentinel_password == "s3nt"
    assert target.data_node_kwargs() == {"db": 3, "password": "datapw"}  # the URL's host is not used
    assert "s3nt" not in repr(target) and "datapw" not in target.describe()
    for bad in ("10.0.0.1", "host:port", ":26379", "h:0", "h:99999", "h:٢٦٣٧٩"):
        with pytest.raises(ValidationError, match="DENPEX_REDIS_SENTINELS"):
            Settings(DENPEX_REDIS_SENTINELS=bad)
    with pytest.raises(MissingSetting, match="REDIS_URL is not set"):
        RedisTarget.from_settings(Settings(REDIS_URL=None, DENPEX_REDIS_SENTINELS=None))


def test_url_mode_is_unchanged_and_never_waits(redis_url: str) -> None:
    client = sync_client(RedisTarget(url=redis_url))
    try:
        client.set("k", "v")
        assert not is_sentinel_client(client)
        assert wait_for_replica(client) is None  # no Sentinel: nothing to wait for
        assert RedisTarget(url=redis_url).describe() == "REDIS_URL"
    finally:
        client.close()


@pytest.fixture(params=["closed-port", "no-sentinel-answers"])
async def unreachable(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[TestClient]:
    """The server with no Redis primary to be found: a closed port, or Sentinels that do not answer
    (`MasterNotFoundError`, as while a failover is under way)."""
    root = tmp_path / "logs"
    root.mkdir()
    if request.param == "closed-port":
        settings = make_settings(f"redis://127.0.0.1:{free_port()}/0", root)
    else:
        sentinels = f"127.0.0.1:{free_port()},127.0.0.1:{free_port()}"
        settings = make_settings("", root, DENPEX_REDIS_SENTINELS=sentinels)
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        yield client


async def test_no_primary_known_answers_503_with_retry_after(unreachable: TestClient) -> None:
    body, headers = signed({"cluster": "ci", "job_id": "j1", "state": "FAILED"})
    resp = await unreachable.post("/hooks/job", data=body, headers=headers)
    assert resp.status == 503, await resp.text()
    assert resp.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)
    health = await unreachable.get("/healthz")
    assert health.status == 503 and health.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)


async def test_a_redis_error_escaping_a_handler_is_503_not_500() -> None:
    async def broken(request: web.Request) -> web.Response:
        raise redis.sentinel.MasterNotFoundError("No master found for 'mymaster'")

    app = web.Application(middlewares=[redis_unavailable])
    app.router.add_get("/x", broken)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        resp = await client.get("/x")
        assert resp.status == 503 and resp.headers["Retry-After"] == str(RETRY_AFTER_SECONDS)


class Interrupted(Exception):
    pass


def _interrupt(signum: int, frame: object) -> None:
    raise Interrupted


def assert_interrupted_read_is_dropped(client: redis.Redis) -> None:
    """A blocking read cut short by a signal (RQ's warm shutdown) must not leave its late reply
    on the connection for the next command to read."""
    client.set("denpex:test:k", "v")
    previous = signal.signal(signal.SIGALRM, _interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(Interrupted):
            client.blpop(["denpex:test:empty"], timeout=0.6)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    until = time.monotonic() + 1.2  # past the moment the server answers the interrupted BLPOP
    while time.monotonic() < until:
        assert client.get("denpex:test:k") == b"v"


async def test_sentinel_clients_wait_for_the_replica_and_carry_rq(sentinel_cluster: SentinelCluster) -> None:
    cluster = sentinel_cluster
    target = RedisTarget(sentinels=tuple(("127.0.0.1", p) for p in cluster.sentinel_ports), master=MASTER)
    sync, aio = sync_client(target), async_client(target)
    try:
        assert is_sentinel_client(sync) and is_sentinel_client(aio)
        await aio.set("denpex:test", "1")
        assert await await_replica(aio) == 1
        queue = Queue("denpex-test", connection=sync)
        job = queue.enqueue("os.getcwd")
        assert wait_for_replica(sync) == 1
        assert cluster.client(cluster.replica_port).exists(f"rq:job:{job.id}")  # on the replica
        assert_interrupted_read_is_dropped(sync)
        cluster.procs["replica"].kill()
        cluster.procs["replica"].wait(10)

        def replica_gone() -> bool:
            return not sync.role()[2]

        wait_until(replica_gone, 10, "the primary to notice its replica is gone")
        assert wait_for_replica(sync) is None  # no replica connected: nothing to wait for, no stall
    finally:
        sync.close()
        await aio.aclose()
