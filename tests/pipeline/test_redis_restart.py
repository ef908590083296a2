"""Redis restarted in the middle of a run: nothing accepted is lost, nothing is posted twice.

Production Redis persists (AOF); this test runs its own redis-server with `appendonly yes` and
restarts it on the same port while jobs are queued and running. Senders retry on 503 or a refused
connection, as the Slurm hooks and the Kubernetes watcher do.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis
from aiohttp.test_utils import TestClient, TestServer

from bot.server import build_deps, create_app
from knowledge.masking import Masker
from tests.pipeline.conftest import (
    WorkerProcs,
    install_demo_job,
    make_settings,
    signed,
    slack_env,
    wait_async,
    worker_env,
)
from tests.support.redis_server import RedisServer

pytestmark = pytest.mark.timeout(120)
JOBS = 12


class PersistentRedis(RedisServer):
    """The shared test server, but with an append-only file, as production runs it."""

    def __init__(self, port: int | None = None) -> None:
        super().__init__(port, appendonly=True)


@pytest.fixture
def aof_redis() -> Iterator[PersistentRedis]:
    server = PersistentRedis()
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def client(aof_redis: PersistentRedis, log_root: Path) -> AsyncIterator[TestClient]:
    settings = make_settings(aof_redis.url, log_root)
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


async def send_with_retry(client: TestClient, payload: dict[str, Any], deadline: float) -> int:
    while True:
        body, headers = signed(payload)
        try:
            resp = await client.post("/hooks/job", data=body, headers=headers)
            if resp.status < 500:
                return resp.status
        except aiohttp.ClientError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("webhook never accepted")
        await asyncio.sleep(0.3)


async def test_redis_restart_mid_run_loses_nothing(
    client: TestClient,
    aof_redis: PersistentRedis,
    fake_slack: Any,
    log_root: Path,
    tmp_path: Path,
    workers: Callable[..., WorkerProcs],
) -> None:
    for i in range(JOBS):
        install_demo_job(log_root, "ci", f"r{i}")
    procs = WorkerProcs(worker_env(aof_redis.url, log_root, **slack_env(fake_slack)), tmp_path)
    try:
        procs.start("--processes", "2")
        deadline = time.monotonic() + 40
        first = [
            send_with_retry(client, {"cluster": "ci", "job_id": f"r{i}"}, deadline) for i in range(JOBS // 2)
        ]
        assert set(await asyncio.gather(*first)) == {202}
        await asyncio.to_thread(aof_redis.restart, 1.0)
        rest = [
            send_with_retry(client, {"cluster": "ci", "job_id": f"r{i}"}, deadline)
            for i in range(JOBS // 2, JOBS)
        ]
        assert set(await asyncio.gather(*rest)) <= {200, 202}

        def keys() -> list[str]:
            roots = fake_slack.roots("C0ALERTS")
            return [str(((m.get("metadata") or {}).get("event_payload") or {}).get("job_key")) for m in roots]

        def all_posted() -> bool:
            r = redis.Redis.from_url(aof_redis.url)
            try:
                return all(r.hget(f"denpex:post:files:ci:r{i}", "status") == b"posted" for i in range(JOBS))
            except redis.RedisError:
                return False
            finally:
                r.close()

        await wait_async(all_posted, 90, "every job posted\n" + procs.output())
        history = fake_slack.web_client().conversations_history(
            channel="C0ALERTS", include_all_metadata=True, limit=1000
        )
        posted = [m["metadata"]["event_payload"]["job_key"] for m in history["messages"] if m.get("metadata")]
        assert sorted(posted) == sorted(f"files:ci:r{i}" for i in range(JOBS)), json.dumps(keys())
    finally:
        procs.stop_all()
