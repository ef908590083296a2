"""The Redis primary killed (`kill -9`) during a burst of 50 webhooks, with Sentinel: nothing lost,
nothing posted twice, and 503 + `Retry-After` (never 500) while no primary is known.

Real processes only: a primary, a replica with an append-only file, three `redis-server --sentinel`
(tests/failover/cluster.py), `denpex serve` and `denpex worker --processes 2` configured with
`DENPEX_REDIS_SENTINELS` alone (no `REDIS_URL`), the fake Slack server. Most of the burst is sent by
the project's own Slurm hook (`deploy/slurm/denpex-slurm-hook`, its `post`: retries on 5xx and
connection errors with backoff); a few webhooks sent right after the kill go through a probe that
retries the same way, honours `Retry-After`, and records every answer.

The contract: every webhook is finally answered 202 (or 200 duplicate of an accepted one), and every
job is posted to Slack exactly once, by the workers, after the failover.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import redis

from tests.failover.cluster import SentinelCluster
from tests.faults.support import ServeProc, posted_threads
from tests.pipeline.conftest import (
    SECRET,
    WorkerProcs,
    install_demo_job,
    signed,
    slack_env,
    wait_until,
    worker_env,
)

pytestmark = pytest.mark.timeout(240)  # the deadlines inside fire first, with their message

HOOK = Path(__file__).resolve().parents[2] / "deploy" / "slurm" / "denpex-slurm-hook"
BURST = 50
#: of the burst, sent by the probe right after the kill (the rest by the Slurm hook's `post`)
PROBES = 4
#: the primary is killed once this many jobs were admitted on it
KILL_AFTER = 12


def load_hook() -> ModuleType:
    """The hook file as a module (compiled by hand: no __pycache__ next to the deployable file)."""
    module = ModuleType("denpex_slurm_hook")
    module.__file__ = str(HOOK)
    exec(compile(HOOK.read_text(), str(HOOK), "exec"), module.__dict__)  # noqa: S102 - our own file
    return module


def probe(url: str, payload: dict[str, Any], deadline: float) -> list[tuple[int, str | None]]:
    """POST until a 2xx, as the hooks do (retry 5xx and connection errors), waiting `Retry-After`.

    Returns every answer as (status, Retry-After); 0 is no answer at all."""
    answers: list[tuple[int, str | None]] = []
    while True:
        body, headers = signed(payload)
        request = urllib.request.Request(url + "/hooks/job", data=body, headers=headers)  # noqa: S310
        wait = 0.5
        try:
            with urllib.request.urlopen(request, timeout=10) as resp:  # noqa: S310 - 127.0.0.1
                answers.append((resp.status, resp.headers.get("Retry-After")))
                return answers
        except urllib.error.HTTPError as exc:
            retry_after = exc.headers.get("Retry-After")
            answers.append((exc.code, retry_after))
            if exc.code < 500:
                return answers
            wait = float(retry_after) if retry_after else wait
        except OSError:
            answers.append((0, None))
        if time.monotonic() > deadline:
            raise AssertionError(f"{payload['job_id']} never accepted: {answers}")
        time.sleep(min(wait, 2.0))


def admitted_on(port: int) -> int:
    r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1, socket_connect_timeout=1)
    try:
        return sum(1 for _ in r.scan_iter("denpex:dedupe:*", count=1000))
    finally:
        r.close()


def quiet(client: redis.Redis) -> bool:
    """No job waiting, running or scheduled for a retry: a duplicate would have shown up by now."""
    busy = client.llen("rq:queue:denpex")
    for key in client.scan_iter("rq:*denpex*", count=1000):
        kind = client.type(key)
        if kind == b"zset" and b"finished" not in key and b"failed" not in key:
            busy += client.zcard(key)
    return busy == 0


class Burst:
    """50 webhooks: most sent by the Slurm hook's `post`, the primary killed once `KILL_AFTER` jobs
    are admitted on it, and `PROBES` webhooks sent right after the kill by the recording probe."""

    def __init__(self, cluster: SentinelCluster, url: str, jobs: list[str]) -> None:
        self.cluster, self.url, self.jobs = cluster, url, jobs
        self.hook = load_hook()
        self.conf = {"DENPEX_URL": url, "DENPEX_WEBHOOK_SECRET": SECRET, "DENPEX_TIMEOUT": "10"}
        self.conf["DENPEX_ATTEMPTS"] = "8"  # backoff 1, 2, 4, 8, 8… s: 39 s in all
        self.killed = threading.Event()
        self.timings: dict[str, float] = {}

    def payload(self, i: int) -> dict[str, Any]:
        return {"cluster": "ci", "job_id": self.jobs[i], "state": "FAILED"}

    def kill_when_admitted(self) -> None:
        wait_until(lambda: admitted_on(self.cluster.primary_port) >= KILL_AFTER, 60, "jobs admitted")
        self.cluster.kill_primary()
        self.killed.set()
        t0 = time.monotonic()
        self.cluster.wait_promoted(30)
        self.timings["kill_to_promoted_s"] = round(time.monotonic() - t0, 2)

    def send(self, i: int) -> str:
        time.sleep(i * 0.04)  # spread the burst over ~2 s, so the kill lands inside it
        return str(self.hook.post(self.conf, "/hooks/job", self.payload(i), attempts=8))

    def probe_after_kill(self, i: int) -> list[tuple[int, str | None]]:
        self.killed.wait(60)
        return probe(self.url, self.payload(i), time.monotonic() + 60)

    def run(self) -> tuple[list[str], list[list[tuple[int, str | None]]]]:
        """The hook's outcome per hooked webhook, and every answer each probe got."""
        with ThreadPoolExecutor(max_workers=BURST + 1) as pool:
            killer = pool.submit(self.kill_when_admitted)
            outcomes = [pool.submit(self.send, i) for i in range(BURST - PROBES)]
            probes = [pool.submit(self.probe_after_kill, i) for i in range(BURST - PROBES, BURST)]
            sent = [f.result() for f in outcomes]
            answers = [f.result() for f in probes]
            killer.result()
        return sent, answers


def assert_failover_answers(sent: list[str], answers: list[list[tuple[int, str | None]]]) -> None:
    assert all(o.startswith(("sent 202", "sent 200")) for o in sent), Counter(sent)
    codes = [code for log in answers for code, _ in log]
    assert 500 not in codes, answers
    unavailable = [(code, after) for log in answers for code, after in log if code == 503]
    assert unavailable, f"no probe saw the failover window: {answers}"
    assert all(after and int(after) > 0 for _, after in unavailable), "503 without Retry-After"
    assert all(log[-1][0] in (200, 202) for log in answers), f"each probe's retry was queued: {answers}"


def test_primary_killed_during_a_burst_every_job_posted_once(
    sentinel_cluster: SentinelCluster, fake_slack: Any, log_root: Path, tmp_path: Path
) -> None:
    cluster, jobs = sentinel_cluster, [f"f{i:02d}" for i in range(BURST)]
    for job in jobs:
        install_demo_job(log_root, "ci", job)
    sentinel = {"DENPEX_REDIS_SENTINELS": cluster.sentinels, "DENPEX_REDIS_SENTINEL_MASTER": "mymaster"}
    serve = ServeProc("", log_root, tmp_path / "serve.log", **sentinel)  # no REDIS_URL at all
    workers = WorkerProcs(worker_env("", log_root, **sentinel, **slack_env(fake_slack)), tmp_path)
    started = time.monotonic()
    try:
        workers.start("--processes", "2")
        serve.start(60.0)
        burst = Burst(cluster, serve.url, jobs)
        burst.timings["ready_s"] = round(time.monotonic() - started, 2)
        sent, answers = burst.run()
        assert burst.killed.is_set(), "the primary was killed during the burst"
        assert_failover_answers(sent, answers)

        client = cluster.client(cluster.wait_promoted(30))

        def all_posted() -> bool:
            return len(fake_slack.roots("C0ALERTS")) >= BURST and quiet(client)

        wait_until(all_posted, 90, "every job posted")
        burst.timings["all_posted_s"] = round(time.monotonic() - started, 2)
        threads = posted_threads(fake_slack)  # asserts no job has two roots, no reply posted twice
        assert sorted(threads) == sorted(f"files:ci:{j}" for j in jobs)
        statuses = [client.hget(f"denpex:post:files:ci:{j}", "status") for j in jobs]
        assert statuses == [b"posted"] * BURST, Counter(statuses)
        assert "Error handling request" not in serve.output(), "a request failed with 500"
        report = {
            "burst": BURST,
            "admitted_before_kill": KILL_AFTER,
            "probe_answers": dict(Counter(code for log in answers for code, _ in log)),
            "hook_outcomes": dict(Counter(o.split(" (")[0] for o in sent)),
            **burst.timings,
        }
        print(json.dumps(report))
    finally:
        serve.stop()
        workers.stop_all()
