"""Slack misbehaves while a real `denpex worker` posts: 429 with Retry-After, 500s, a hung request.

Contract: the job's thread is posted exactly once — one root, each reply once — however Slack fails,
because the SDK retries 429s (honouring Retry-After), RQ retries everything else, and a retry finds
what an earlier attempt already posted (message metadata) instead of posting it again. The worker
talks to the fake Slack over real HTTP through slack_sdk with `DENPEX_SLACK_TIMEOUT=2`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from aiohttp.test_utils import TestClient

from tests.faults.support import posted_threads
from tests.pipeline.conftest import WorkerProcs, install_demo_job, signed, slack_env, wait_async

pytestmark = pytest.mark.timeout(45)
WORK = "files:ci:slack-fault"


def inject(fake_slack: Any, fault: str) -> None:
    if fault == "429":  # more than the SDK's 3 retries: the 5th attempt comes from an RQ retry
        fake_slack.fail_next(5, status=429, retry_after=1, method="chat.postMessage")
    elif fault == "500":
        fake_slack.fail_next(2, status=500, method="chat.postMessage")
    elif fault == "hang":  # Slack posts the root 3 s later, after the worker's 2 s timeout gave up
        fake_slack.hang_next(3.0, 1, method="chat.postMessage")
    elif fault == "hang_history":  # the recovery lookup itself hangs once, on top of the hung post
        fake_slack.hang_next(3.0, 1, method="chat.postMessage")
        fake_slack.hang_next(3.0, 1, method="conversations.history")


@pytest.mark.parametrize("fault", ["429", "500", "hang", "hang_history"])
async def test_slack_fault_is_retried_and_posted_exactly_once(
    fault: str,
    client: TestClient,
    fake_slack: Any,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    install_demo_job(log_root, "ci", "slack-fault")
    inject(fake_slack, fault)
    procs = workers(**slack_env(fake_slack), DENPEX_SLACK_TIMEOUT="2")
    procs.start()
    body, headers = signed({"cluster": "ci", "job_id": "slack-fault", "state": "FAILED"})
    assert (await client.post("/hooks/job", data=body, headers=headers)).status == 202

    def posted() -> bool:
        return redis_client.hget(f"denpex:post:{WORK}", "status") == b"posted"

    await wait_async(posted, 35, f"the post despite Slack {fault}\n" + procs.output())
    if fault.startswith("hang"):  # a hung request that Slack still completes lands late: wait for it
        await asyncio.sleep(4.5)
    threads = posted_threads(fake_slack)
    assert list(threads) == [WORK]
    _root, *replies = threads[WORK]
    assert replies, "the diagnosis is in the thread"
    ok_posts = [c for c in fake_slack.calls("chat.postMessage") if c.ok]
    texts = [m for m in replies if not m.get("files")]  # the evidence file is shared, not posted
    assert len(ok_posts) == 1 + len(texts), "every message was sent once"
    failed = [c for c in fake_slack.calls("chat.postMessage") if not c.ok]
    if fault in ("429", "500"):
        assert len(failed) == {"429": 5, "500": 2}[fault], "the fault was really injected"
    assert int(redis_client.hget("denpex:stats:diagnoses", root_category(redis_client)) or 0) == 1


def root_category(redis_client: redis.Redis) -> str:
    import json

    return str(json.loads(redis_client.get(f"denpex:diagnosis:{WORK}"))["category"])
