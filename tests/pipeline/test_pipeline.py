"""End to end with real processes: webhook → Redis/RQ → `denpex worker` → engine → fake Slack.

Proves exactly-once (8 node epilogs and retried controller hooks → one diagnosis, one thread), the
node grace period, recovery from a SIGKILLed worker, and that no planted secret reaches Redis or Slack.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from aiohttp.test_utils import TestClient, TestServer
from rq import Queue, Worker
from rq.job import Job

from bot.server import build_deps, create_app
from knowledge.masking import Masker
from tests.pipeline.conftest import (
    PLANTED,
    WorkerProcs,
    all_redis_text,
    install_demo_job,
    make_settings,
    signed,
    slack_env,
    slack_text,
    wait_async,
)
from workers.queueing import RETRY_INTERVALS, rq_job_id

pytestmark = pytest.mark.timeout(90)
FILES_FOR_SLURM = "slurm=integrations.files:create_collector"


@pytest.fixture
async def client(redis_url: str, log_root: Path) -> AsyncIterator[TestClient]:
    settings = make_settings(redis_url, log_root)
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


async def send(client: TestClient, path: str, payload: Any) -> int:
    body, headers = signed(payload, path=path)
    resp = await client.post(path, data=body, headers=headers)
    return resp.status


def post_state(r: redis.Redis, work: str) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in r.hgetall(f"denpex:post:{work}").items()}


def assert_one_thread(fake_slack: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    roots = fake_slack.roots("C0ALERTS")
    assert len(roots) == 1, [r.get("text") for r in roots]
    thread = fake_slack.thread(roots[0]["ts"])
    replies = [m for m in thread if m["ts"] != roots[0]["ts"]]
    assert len({m["ts"] for m in replies}) == len(replies)
    posted = [c for c in fake_slack.calls("chat.postMessage") if c.ok]
    assert len(posted) == 1 + len([m for m in replies if not m.get("files")])
    return roots[0], replies


async def test_files_job_posted_once_without_secrets(
    client: TestClient,
    fake_slack: Any,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    install_demo_job(log_root, "ci", "4242")
    procs = workers(**slack_env(fake_slack))
    procs.start()
    payload = {
        "cluster": "ci",
        "job_id": "4242",
        "state": "FAILED",
        "exit_code": "1:0",
        "user": "alice",
        "name": "llama-ft",
        "extra": {"ignored": True},
    }
    assert await send(client, "/hooks/job", payload) == 202
    await wait_async(
        lambda: post_state(redis_client, "files:ci:4242").get("status") == "posted",
        60,
        "the post\n" + procs.output(),
    )
    root, replies = assert_one_thread(fake_slack)
    assert replies, "the diagnosis goes in the thread"
    everything = json.dumps(root) + json.dumps(replies)
    assert "5" in root["text"] and "rank 5" in everything.lower()
    assert PLANTED not in slack_text(fake_slack)
    assert PLANTED not in all_redis_text(redis_client)
    diagnosis = json.loads(redis_client.get("denpex:diagnosis:files:ci:4242"))
    assert diagnosis["initiating"]["rank"] == 5
    assert redis_client.ttl("denpex:diagnosis:files:ci:4242") > 0
    metrics = await (await client.get("/metrics")).text()
    assert f'denpex_diagnoses_total{{category="{diagnosis["category"]}"}} 1.0' in metrics
    assert "denpex_failure_to_post_seconds_count 1.0" in metrics


async def test_eight_nodes_and_retries_give_one_diagnosis_and_one_post(
    client: TestClient,
    fake_slack: Any,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    install_demo_job(log_root, "hpc", "777")
    nodes = [f"gpu-{i:02d}" for i in range(1, 9)]
    job = {
        "cluster": "hpc",
        "job_id": 777,
        "state": "FAILED",
        "exit_code": "1:0",
        "node_list": "gpu-[01-08]",
        "user": "alice",
        "name": "llama-ft",
    }
    reports = [
        send(
            client,
            "/hooks/slurm/node",
            {"cluster": "hpc", "job_id": "777", "node": n, "kernel_log": f"[1.0] {n}: nothing unusual\n"},
        )
        for n in nodes
    ]
    statuses = await asyncio.gather(*reports, *[send(client, "/hooks/slurm", job) for _ in range(8)])
    assert statuses[:8] == [202] * 8
    assert sorted(statuses[8:]) == [200] * 7 + [202]
    assert Queue("denpex", connection=redis_client).count == 1
    procs = workers(**slack_env(fake_slack), DENPEX_NODE_GRACE_SECONDS="30")
    procs.start("--processes", "2", "--collector", FILES_FOR_SLURM)
    await wait_async(
        lambda: post_state(redis_client, "slurm:hpc:777").get("status") == "posted",
        60,
        "the post\n" + procs.output(),
    )
    await asyncio.sleep(1.0)  # a second worker would have had time to post a duplicate
    assert_one_thread(fake_slack)
    diagnosis = json.loads(redis_client.get("denpex:diagnosis:slurm:hpc:777"))
    assert not [m for m in diagnosis["missing_evidence"] if m["what"].startswith("kernel log of")]
    assert int(redis_client.hget("denpex:stats:diagnoses", diagnosis["category"])) == 1


async def test_missing_node_log_is_waited_for_then_reported(
    client: TestClient,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    install_demo_job(log_root, "hpc", "778")
    await send(
        client,
        "/hooks/slurm/node",
        {"cluster": "hpc", "job_id": "778", "node": "gpu-01", "kernel_log": "[1.0] fine\n"},
    )
    assert (
        await send(
            client,
            "/hooks/slurm",
            {"cluster": "hpc", "job_id": "778", "state": "FAILED", "nodes": ["gpu-01", "gpu-02"]},
        )
        == 202
    )
    procs = workers()  # no Slack: diagnose and store only
    procs.start("--collector", FILES_FOR_SLURM)
    raw = await wait_async(
        lambda: redis_client.get("denpex:diagnosis:slurm:hpc:778"), 60, "the diagnosis\n" + procs.output()
    )
    missing = [m["what"] for m in json.loads(raw)["missing_evidence"]]
    assert "kernel log of gpu-02" in missing and "kernel log of gpu-01" not in missing


async def test_sigkilled_worker_job_completes_once_on_a_new_worker(
    client: TestClient,
    fake_slack: Any,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    install_demo_job(log_root, "hpc", "900")
    env = {**slack_env(fake_slack), "DENPEX_NODE_GRACE_SECONDS": "8"}
    first = workers(**env)
    victim = first.start("--collector", FILES_FOR_SLURM)
    # send once the worker listens, so the job is surely mid-wait (for gpu-07) when it is killed
    await wait_async(lambda: Worker.count(connection=redis_client) >= 1, 60, "the worker\n" + first.output())
    assert (
        await send(
            client,
            "/hooks/slurm",
            {"cluster": "hpc", "job_id": "900", "state": "FAILED", "nodes": ["gpu-07"]},
        )
        == 202
    )
    state = lambda: redis_client.hget("denpex:job:slurm:hpc:900", "state")  # noqa: E731
    await wait_async(lambda: state() == b"collecting", 30, "the job to start\n" + first.output())
    first.kill(victim)  # worker and work-horse, mid-job (waiting for gpu-07's kernel log)
    assert not fake_slack.roots("C0ALERTS")
    second = workers(**env)
    second.start("--collector", FILES_FOR_SLURM)
    await wait_async(
        lambda: post_state(redis_client, "slurm:hpc:900").get("status") == "posted",
        60,
        "the re-queued job\n" + second.output(),
    )
    assert_one_thread(fake_slack)
    job = Job.fetch(rq_job_id("slurm:hpc:900"), connection=redis_client)
    assert job.retries_left == len(RETRY_INTERVALS) - 1, "re-queued once, as an abandoned job"
    missing = json.loads(redis_client.get("denpex:diagnosis:slurm:hpc:900"))["missing_evidence"]
    assert any(m["what"] == "kernel log of gpu-07" for m in missing)
