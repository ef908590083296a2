"""No floods on the real cluster (issue 17 part 5): `sbatch --array=0-199` of a script that fails at
once, with the real hooks → `denpex serve` → `denpex worker --processes 3` → fake Slack: one thread,
whose root counts all 200 tasks, every task an incident, one quota unit.

The single node has one task slot per CPU (`CR_Core_Memory`, `CPUs=$(nproc)` in dev-cluster.sh), so
on 2 cores Slurm runs 2 tasks at a time, each slot taking ~0.7 s per task (two Python hooks): ~140 s
for the array alone; the workers' diagnoses (~1-2 s of CPU each on a loaded box) trail it. The
duration and the workers' lag are printed; `DENPEX_TEST_ARRAY_TASKS` runs a smaller array.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from bot.slack.render import job_key_from_message
from tests.fakes.slack import FakeSlack
from tests.slurm.support import Cluster, hooks_env, make_hook_log, sh, wait_until
from tests.slurm.test_e2e import SECRET, Pipeline
from tests.support.redis_server import RedisServer
from workers.incidents import IncidentBook
from workers.quota import Quota

TASKS = int(os.environ.get("DENPEX_TEST_ARRAY_TASKS", "200"))
ARRAY_JOB = """#!/bin/bash
echo "shard $SLURM_ARRAY_TASK_ID: FileNotFoundError: [Errno 2] No such file or directory: 'shards/part.bin'"
exit 3
"""

pytestmark = pytest.mark.timeout(720)


class ArrayPipeline(Pipeline):
    """The e2e pipeline with three worker processes and a short node grace (tiny jobs, many of them)."""

    def start(self) -> None:
        self.env["DENPEX_NODE_GRACE_SECONDS"] = "5"
        self.env["DENPEX_LOG_LEVEL"] = "WARNING"
        self.start_server()
        self.worker = self._spawn("worker", "worker", "--processes", "3")


@pytest.fixture(scope="module")
def array_pipeline(
    slurm_cluster: Cluster, redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ArrayPipeline]:
    if redis_server.proc is None or redis_server.proc.poll() is not None:
        redis_server.start()
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    hook_log = make_hook_log()
    kernel_log = hook_log.parent / "kmsg.log"  # a short kernel log: the node hook runs 200 times
    kernel_log.write_text("[Wed Dec  2 03:00:00 2026] Linux version 5.15.0-105-generic\n")
    with FakeSlack() as slack:
        pipe = ArrayPipeline(slack, redis_server.url, tmp_path_factory.mktemp("floods-logs"))
        pipe.hook_log = hook_log  # type: ignore[attr-defined]
        with redis.Redis.from_url(redis_server.url) as client:  # a Scale workspace: incidents in full
            quota = Quota(client)
            assert quota.redeem(slack.workspace.team_id, quota.create_codes(daily_limit=500)[0]).ok
        pipe.start()
        try:
            with hooks_env(
                DENPEX_URL=pipe.url,
                DENPEX_WEBHOOK_SECRET=SECRET,
                DENPEX_CLUSTER="ci",
                DENPEX_HOOK_LOG=str(hook_log),
                DENPEX_TIMEOUT="3",
                DENPEX_KERNEL_LOG_FILE=str(kernel_log),
            ):
                yield pipe
        finally:
            pipe.stop()
            shutil.rmtree(hook_log.parent, ignore_errors=True)


def array_tasks(client: redis.Redis, array: str) -> dict[str, bytes]:
    """job key → state, of the jobs the hooks reported as tasks of `array`."""
    out: dict[str, bytes] = {}
    for key in client.scan_iter("denpex:job:slurm:ci:*", count=1000):
        facts, state = client.hmget(key, "facts", "state")
        if facts and f"ArrayJobId={array} ".encode() in facts:
            out[key.decode().removeprefix("denpex:job:")] = state or b""
    return out


def root_text(message: dict[str, Any]) -> str:
    return json.dumps([message.get("text"), message.get("blocks")])


def test_200_task_array_failing_alike_is_one_thread_counting_200(
    slurm_cluster: Cluster, array_pipeline: ArrayPipeline
) -> None:
    started = time.monotonic()
    array = slurm_cluster.submit(ARRAY_JOB, f"--array=0-{TASKS - 1}", "-o", "shard_%A_%a.out", name="shards")
    client = redis.Redis.from_url(array_pipeline.redis_url)

    def all_shown() -> bool:
        tasks = array_tasks(client, array)
        return len(tasks) == TASKS and all(s == b"posted" for s in tasks.values())

    try:
        wait_until(all_shown, 600, f"all {TASKS} tasks shown", interval=0.5)
    except AssertionError as exc:
        states = Counter(array_tasks(client, array).values())
        hooks = array_pipeline.hook_log.read_text()[-3000:]  # type: ignore[attr-defined]
        queue = sh("squeue", "-h")[:2000]
        raise AssertionError(f"{exc}: {states}\n{queue}\n{hooks}\n{array_pipeline.output()}") from None
    seconds = time.monotonic() - started
    tasks = array_tasks(client, array)
    roots = [m for m in array_pipeline.slack.roots("C0ALERTS") if job_key_from_message(m) in tasks]
    assert len(roots) == 1, [r.get("text") for r in roots]
    text = root_text(roots[0])
    assert f"{TASKS} tasks of array `{array}` failed alike:* 0-{TASKS - 1}" in text, text
    assert len(array_pipeline.slack.thread(roots[0]["ts"])) > 1, "the diagnosis is in the thread"
    recorded = [i for i in IncidentBook(client).incidents("ci") if i.job_key in tasks]
    assert len(recorded) == TASKS
    assert {client.hget(f"denpex:job:{k}", "ts") for k in tasks} == {roots[0]["ts"].encode()}
    client.close()
    received = [float(client.hget(f"denpex:job:{k}", "received_at") or 0) for k in tasks]
    shown = [float(client.hget(f"denpex:job:{k}", "updated_at") or 0) for k in tasks]
    lag = max(shown) - max(received)  # how far the workers trailed the last report
    print(json.dumps({"tasks": TASKS, "seconds": round(seconds, 1), "worker_lag": round(lag, 1)}))
