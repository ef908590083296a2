"""1,000 duplicate reports of one failed job against a `denpex serve` process: one job is queued,
diagnosed and posted once, and `/healthz` keeps answering throughout the storm.

The latency bound asserted here is deliberately generous (a loaded 2-core CI box must not flake);
the measured p50/p95/max are printed and the benchmark (`python -m benchmarks.run`) reports them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue

from tests.faults.storm import duplicate_storm
from tests.faults.support import ServeProc, posted_threads
from tests.pipeline.conftest import SECRET, WorkerProcs, install_demo_job, slack_env, wait_async

pytestmark = pytest.mark.timeout(90)
HEALTHZ_HARD_LIMIT_MS = 1000.0
JOB = {
    "cluster": "hpc",
    "job_id": "31337",
    "state": "FAILED",
    "exit_code": "1:0",
    "node_list": "gpu-[01-08]",
    "user": "alice",
    "name": "llama-ft",
}
WORK = "slurm:hpc:31337"


async def test_thousand_duplicates_one_diagnosis_and_healthz_answers(
    serve: Callable[..., ServeProc],
    fake_slack: Any,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    install_demo_job(log_root, "hpc", "31337")
    server = serve()
    result = await duplicate_storm(server.url, SECRET, JOB, n=1000, connections=50)
    print(json.dumps(result))
    assert result["statuses"] == {202: 1, 200: 999}, result
    assert Queue("denpex", connection=redis_client).count == 1
    health = result["healthz"]
    assert health["n"] >= 5 and set(health["statuses"]) == {200}, health
    assert health["max_ms"] < HEALTHZ_HARD_LIMIT_MS, health
    assert server.alive(), server.output()

    procs = workers(**slack_env(fake_slack), DENPEX_NODE_GRACE_SECONDS="0")
    procs.start("--collector", "slurm=integrations.files:create_collector")
    await wait_async(
        lambda: redis_client.hget(f"denpex:post:{WORK}", "status") == b"posted",
        40,
        "the one post\n" + procs.output(),
    )
    await asyncio.sleep(1.0)
    assert list(posted_threads(fake_slack)) == [WORK]
    assert sum(int(v) for v in redis_client.hvals("denpex:stats:diagnoses")) == 1
