"""Redis restarted in the middle of a burst of 50 failure webhooks: no job is lost or doubled.

The contract between senders and the server (the Slurm hooks and the Kubernetes watcher keep it):

- 202 `queued` or 200 `duplicate` means the job is recorded durably (Redis runs with an append-only
  file, as in production) and will be diagnosed and posted exactly once;
- 503, or no answer at all (connection refused or reset), means nothing was promised: the sender
  retries, and the retry is accepted once Redis is back — it is never mistaken for a duplicate of
  its own failed first attempt.

Real `redis-server` (restarted on the same port), real `denpex worker` processes, fake Slack.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis
from aiohttp.test_utils import TestClient, TestServer

from bot.server import build_deps, create_app
from knowledge.masking import Masker
from tests.faults.support import posted_threads
from tests.pipeline.conftest import (
    WorkerProcs,
    install_demo_job,
    make_settings,
    signed,
    slack_env,
    wait_progress,
    worker_env,
)
from tests.pipeline.test_redis_restart import PersistentRedis
from workers.quota import Quota

pytestmark = pytest.mark.timeout(300)  # the waits below fail on a stall, not on a slow machine
BURST = 50


@pytest.fixture
def aof_redis() -> Iterator[PersistentRedis]:
    server = PersistentRedis()
    server.start()
    yield server
    server.stop()


class StopRedisOnce:
    """A masker that stops Redis while the server is inside `accept` for job `victim` (once).

    Masking runs after the dedupe gate was won and before the job is recorded and enqueued: the
    exact window in which a crash leaves the gate closed with nothing behind it.
    """

    def __init__(self, server: PersistentRedis, victim: str) -> None:
        self.inner, self.server, self.victim, self.fired = Masker.default(), server, victim, False

    def mask(self, text: str) -> str:
        if not self.fired and self.victim in text:
            self.fired = True
            self.server.stop()
        return self.inner.mask(text)


async def send_until_accepted(
    session: aiohttp.ClientSession, url: str, payload: dict[str, Any], deadline: float, log: list[int]
) -> int:
    """A sender as the hooks behave: retry on 5xx and connection errors, stop on any other answer."""
    while True:
        body, headers = signed(payload)
        try:
            async with session.post(url + "/hooks/job", data=body, headers=headers) as resp:
                log.append(resp.status)
                if resp.status < 500:
                    return resp.status
        except aiohttp.ClientError:
            log.append(0)
        if time.monotonic() > deadline:
            raise AssertionError(f"{payload} never accepted: {log}")
        await asyncio.sleep(0.2)


def diagnosed_count(url: str) -> int:
    r = redis.Redis.from_url(url)
    try:
        return sum(int(v) for v in r.hvals("denpex:stats:diagnoses"))
    except redis.RedisError:
        return -1
    finally:
        r.close()


@pytest.fixture
async def aof_client(aof_redis: PersistentRedis, log_root: Path) -> AsyncIterator[TestClient]:
    settings = make_settings(aof_redis.url, log_root)
    app = create_app(settings, build_deps(settings, StopRedisOnce(aof_redis, "victim")))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


async def test_burst_of_50_with_redis_restart_loses_nothing(
    aof_client: TestClient,
    aof_redis: PersistentRedis,
    fake_slack: Any,
    log_root: Path,
    tmp_path: Path,
    workers: Callable[..., WorkerProcs],
) -> None:
    jobs = [f"b{i:02d}" for i in range(BURST)]
    for job in jobs:
        install_demo_job(log_root, "ci", job)
    quota = Quota(redis.Redis.from_url(aof_redis.url))  # 50 diagnoses: a Scale workspace, not the free 3
    (code,) = quota.create_codes(days=14, daily_limit=2 * BURST)
    assert quota.redeem(fake_slack.workspace.team_id, code).ok
    procs = WorkerProcs(worker_env(aof_redis.url, log_root, **slack_env(fake_slack)), tmp_path)
    url = str(aof_client.make_url("")).rstrip("/")
    answers: dict[str, list[int]] = {job: [] for job in jobs}
    try:
        procs.start("--processes", "2")

        accepted_before = asyncio.Event()
        restart = threading.Thread(target=aof_redis.restart, kwargs={"down_seconds": 1.0})

        async def one(i: int, session: aiohttp.ClientSession) -> int:
            await asyncio.sleep(i * 0.03)  # a burst spread over 1.5 s, so the restart lands inside it
            payload = {"cluster": "ci", "job_id": jobs[i], "state": "FAILED"}
            status = await send_until_accepted(session, url, payload, time.monotonic() + 30, answers[jobs[i]])
            if sum(log == [202] for log in answers.values()) >= 10 and not accepted_before.is_set():
                accepted_before.set()
                restart.start()  # Redis goes down with 10 jobs accepted and 40 still to come
            return status

        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=15)) as session:
            finals = await asyncio.gather(*[one(i, session) for i in range(BURST)])
        restart.join(10)
        assert accepted_before.is_set()
        assert set(finals) <= {200, 202}, Counter(finals)
        retried = sum(1 for log in answers.values() if len(log) > 1)
        assert retried, "the restart happened during the burst: some senders had to retry"

        await wait_progress(lambda: diagnosed_count(aof_redis.url), BURST, 45, "every job diagnosed")
        await wait_progress(lambda: len(fake_slack.roots("C0ALERTS")), BURST, 30, "every job posted")
        await asyncio.sleep(1.0)  # time for any duplicate to show up
        threads = posted_threads(fake_slack)
        assert sorted(threads) == sorted(f"files:ci:{j}" for j in jobs)
        assert diagnosed_count(aof_redis.url) == BURST, "each job diagnosed exactly once"
        print(
            json.dumps(
                {
                    "burst": BURST,
                    "senders_that_retried": retried,
                    "answers": dict(Counter(s for log in answers.values() for s in log)),
                }
            )
        )
    finally:
        procs.stop_all()


async def test_redis_dying_inside_accept_does_not_turn_the_retry_into_a_duplicate(
    aof_client: TestClient,
    aof_redis: PersistentRedis,
    log_root: Path,
) -> None:
    install_demo_job(log_root, "ci", "victim")
    payload = {"cluster": "ci", "job_id": "victim", "state": "FAILED"}
    body, headers = signed(payload)
    first = await aof_client.post("/hooks/job", data=body, headers=headers)
    assert first.status == 503, await first.text()  # Redis died mid-accept: nothing promised
    await asyncio.to_thread(aof_redis.start)
    log: list[int] = []
    url = str(aof_client.make_url("")).rstrip("/")
    async with aiohttp.ClientSession() as session:
        status = await send_until_accepted(session, url, payload, time.monotonic() + 20, log)
    assert status == 202, f"the retry must be queued, not answered 'duplicate': {log}"
    r = redis.Redis.from_url(aof_redis.url)
    try:
        assert r.exists("denpex:job:files:ci:victim")
        assert r.llen("rq:queue:denpex") == 1
    finally:
        r.close()
