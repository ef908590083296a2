"""A worker SIGKILLed in the middle of `Engine.diagnose` (as the OOM killer or a node loss would):
the job is re-queued as abandoned and completed exactly once by another worker.

The slow collector makes the scan take seconds, so the kill lands mid-scan; both the worker and its
work-horse die (process group), and a second worker must pick the job up from RQ's registries.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from aiohttp.test_utils import TestClient
from rq.job import Job

from tests.faults.support import posted_threads
from tests.pipeline.conftest import WorkerProcs, install_demo_job, signed, slack_env, wait_async
from workers.queueing import RETRY_INTERVALS, rq_job_id

pytestmark = pytest.mark.timeout(60)
ROOT = Path(__file__).resolve().parents[2]
SLOW = "files=tests.faults.slow_collector:create_collector"
WORK = "files:ci:kill-me"


@pytest.mark.parametrize("victim", ["worker", "horse"])
async def test_worker_killed_mid_diagnosis_completes_once(
    victim: str,
    client: TestClient,
    fake_slack: Any,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    install_demo_job(log_root, "ci", "kill-me")
    env = {**slack_env(fake_slack), "DENPEX_TEST_CHUNK_DELAY": "0.05", "PYTHONPATH": str(ROOT)}
    first = workers(**env)
    proc = first.start("--collector", SLOW)
    body, headers = signed({"cluster": "ci", "job_id": "kill-me", "state": "FAILED"})
    assert (await client.post("/hooks/job", data=body, headers=headers)).status == 202
    state = lambda: redis_client.hget(f"denpex:job:{WORK}", "state")  # noqa: E731
    await wait_async(lambda: state() == b"diagnosing", 30, "the scan to start\n" + first.output())
    import asyncio

    await asyncio.sleep(0.5)  # well inside the scan (it takes several seconds)
    if victim == "worker":
        first.kill(proc)  # the worker and its work-horse, like a node loss
        second = workers(**{**env, "DENPEX_TEST_CHUNK_DELAY": "0"})
        second.start("--collector", SLOW)
    else:
        kill_work_horse(proc.pid)  # only the horse (OOM killer): its own worker notices and retries
        second = first
    await wait_async(
        lambda: redis_client.hget(f"denpex:post:{WORK}", "status") == b"posted",
        45,
        "the re-run job\n" + second.output(),
    )
    await asyncio.sleep(1.0)
    assert list(posted_threads(fake_slack)) == [WORK]
    diagnosis = json.loads(redis_client.get(f"denpex:diagnosis:{WORK}"))
    assert diagnosis["initiating"]["rank"] == 5
    assert int(redis_client.hget("denpex:stats:diagnoses", diagnosis["category"])) == 1
    job = Job.fetch(rq_job_id(WORK), connection=redis_client)
    assert job.retries_left == len(RETRY_INTERVALS) - 1, "re-run once"


def kill_work_horse(worker_session_pid: int) -> None:
    """SIGKILL the RQ work-horse: the grandchild of `denpex worker` that runs the job."""
    import signal

    import psutil

    supervisor = psutil.Process(worker_session_pid)
    horses = [p for child in supervisor.children() for p in child.children()]
    assert horses, "a work-horse is running the job"
    for horse in horses:
        horse.send_signal(signal.SIGKILL)
