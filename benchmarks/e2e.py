"""End-to-end section: webhook → Slack post latency, and /healthz during a duplicate storm.

Real components only, all on 127.0.0.1: a private `redis-server`, `denpex serve` (its own process),
`denpex worker --processes 4`, and the protocol-faithful fake Slack (tests/fakes/slack), which
records the time of every Web API call. Logs: one synthetic 64-rank × 8 MB job, hard-linked into a
folder per failure under DENPEX_LOG_ROOT; failures arrive through signed `POST /hooks/job`.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import redis

from benchmarks.logsets import generate, link_copies
from integrations.signing import sign
from tests.fakes.slack import FakeSlack
from tests.faults.storm import duplicate_storm, percentile
from tests.faults.support import ServeProc, clean_env
from tests.pipeline.conftest import SECRET, VENV_BIN
from tests.support.redis_server import RedisServer


class Stack:
    """redis-server + fake Slack + `denpex serve` + `denpex worker -n N`, started and stopped together."""

    def __init__(self, workdir: Path, processes: int) -> None:
        self.workdir, self.processes = workdir, processes
        self.log_root = workdir / "logs"
        self.log_root.mkdir(parents=True, exist_ok=True)
        self.redis = RedisServer()
        self.slack = FakeSlack()
        self.serve: ServeProc | None = None
        self.worker: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Stack:
        self.redis.start()
        self.slack.start()
        self._unlimited_plan()
        slack = {
            "SLACK_API_URL": self.slack.base_url,
            "SLACK_BOT_TOKEN": self.slack.bot_token,
            "DENPEX_CHANNEL": "C0ALERTS",
        }
        self.serve = ServeProc(self.redis.url, self.log_root, self.workdir / "serve.log")
        self.serve.start()
        env = clean_env(
            REDIS_URL=self.redis.url, DENPEX_LOG_ROOT=str(self.log_root), DENPEX_LOG_LEVEL="WARNING", **slack
        )
        out = (self.workdir / "worker.log").open("wb")
        argv = [str(VENV_BIN / "denpex"), "worker", "--processes", str(self.processes)]
        self.worker = subprocess.Popen(
            argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        self._wait_workers()
        return self

    def _unlimited_plan(self) -> None:
        """Redeem an evaluation code with a high daily limit: the free plan's 3 a day would cut the run."""
        from workers.quota import Quota

        r = redis.Redis.from_url(self.redis.url)
        quota = Quota(r)
        (code,) = quota.create_codes(days=1, daily_limit=100_000, count=1)
        assert quota.redeem(self.slack.workspace.team_id, code).ok
        r.close()

    def _wait_workers(self, timeout: float = 60) -> None:
        from rq import Worker

        r = redis.Redis.from_url(self.redis.url)
        deadline = time.monotonic() + timeout
        while len(Worker.all(connection=r)) < self.processes:
            if time.monotonic() > deadline:
                log = (self.workdir / "worker.log").read_text()
                raise RuntimeError("workers did not start: " + log[-2000:])
            time.sleep(0.2)
        r.close()

    def __exit__(self, *exc: object) -> None:
        if self.worker is not None and self.worker.poll() is None:
            os.killpg(self.worker.pid, signal.SIGTERM)
            try:
                self.worker.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.worker.pid, signal.SIGKILL)
        if self.serve is not None:
            self.serve.stop()
        self.slack.stop()
        self.redis.stop()


def _key(params: dict[str, Any]) -> Any:
    return ((params.get("metadata") or {}).get("event_payload") or {}).get("job_key")


def _posted_at(slack: FakeSlack, key: str) -> tuple[float, float] | None:
    """(root posted, last thread message posted) from the fake's call log, once the thread is done."""
    calls = slack.calls()
    root = next((c for c in calls if c.method == "chat.postMessage" and c.ok and _key(c.params) == key), None)
    if root is None:
        return None
    ts = root.response.get("ts")
    thread = [c.at for c in calls if c.ok and c.params.get("thread_ts") == ts]
    return (root.at, max(thread)) if thread else None


async def _send(session: aiohttp.ClientSession, url: str, job_id: str) -> float:
    body = (f'{{"cluster": "bench", "job_id": "{job_id}", "state": "FAILED", "exit_code": "1:0"}}').encode()
    sent = time.time()
    headers = {"Content-Type": "application/json", **sign(SECRET, body, path="/hooks/job")}
    async with session.post(url + "/hooks/job", data=body, headers=headers) as resp:
        if resp.status != 202:
            raise RuntimeError(f"webhook answered {resp.status}: {await resp.text()}")
    return sent


async def _drive(stack: Stack, n: int, interval: float, warmup: int, done_wait: float) -> dict[str, Any]:
    assert stack.serve is not None
    sent: dict[str, float] = {}
    async with aiohttp.ClientSession() as session:
        for i in range(warmup):  # fork, import and page-cache warm-up; not counted
            await _send(session, stack.serve.url, f"warm{i}")
        await _wait_all(stack.slack, [f"files:bench:warm{i}" for i in range(warmup)], done_wait)
        for i in range(n):
            sent[f"files:bench:j{i}"] = await _send(session, stack.serve.url, f"j{i}")
            await asyncio.sleep(interval)
    done = await _wait_all(stack.slack, list(sent), done_wait)
    root = [done[k][0] - sent[k] for k in sent]
    full = [done[k][1] - sent[k] for k in sent]
    return {
        "n": n,
        "interval": interval,
        "root": _stats(root),
        "thread": _stats(full),
        "engine": _stats(_engine_seconds(stack.redis.url, list(sent))),
    }


def _engine_seconds(url: str, keys: list[str]) -> list[float]:
    """`Engine.diagnose` wall seconds per job, as the diagnosis recorded them (stats.seconds)."""
    import json

    r = redis.Redis.from_url(url)
    try:
        return [float(json.loads(r.get(f"denpex:diagnosis:{k}") or "{}")["stats"]["seconds"]) for k in keys]
    finally:
        r.close()


async def _wait_all(slack: FakeSlack, keys: list[str], limit: float) -> dict[str, tuple[float, float]]:
    deadline = time.monotonic() + limit
    while True:
        got = {k: _posted_at(slack, k) for k in keys}
        if all(got.values()):
            return {k: v for k, v in got.items() if v is not None}
        if time.monotonic() > deadline:
            missing = [k for k, v in got.items() if v is None]
            raise RuntimeError(f"not posted within {limit} s: {missing[:5]} (+{len(missing)})")
        await asyncio.sleep(0.2)


def _stats(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 2),
        "p99": round(percentile(values, 0.99), 2),
        "max": round(max(values), 2),
        "min": round(min(values), 2),
    }


def pipeline_latency(
    workdir: Path,
    *,
    failures: int,
    ranks: int,
    mb_per_rank: float,
    processes: int,
    interval: float,
    seed: int,
) -> dict[str, Any]:
    src = generate(workdir / "e2e-src", ranks, mb_per_rank, seed=seed)
    with Stack(workdir / "e2e", processes) as stack:
        for i in range(2):
            link_copies(src.folder, stack.log_root / "bench" / f"warm{i}")
        for i in range(failures):
            link_copies(src.folder, stack.log_root / "bench" / f"j{i}")
        result = asyncio.run(_drive(stack, failures, interval, warmup=2, done_wait=120 + failures * 5))
    result.update(
        {
            "ranks": ranks,
            "mb_per_rank": mb_per_rank,
            "gb_per_job": round(src.bytes / 1e9, 3),
            "processes": processes,
        }
    )
    print(f"  e2e: {result}", file=sys.stderr)
    return result


def healthz_storm(workdir: Path, reports: int) -> dict[str, Any]:
    """1,000 duplicate reports of one job against `denpex serve`, /healthz probed every 10 ms."""
    payload = {"cluster": "hpc", "job_id": "31337", "state": "FAILED", "node_list": "gpu-[01-08]"}
    with Stack(workdir / "storm", 1) as stack:
        assert stack.serve is not None

        async def idle() -> list[float]:
            out = []
            async with aiohttp.ClientSession() as session:
                for _ in range(50):
                    t0 = time.perf_counter()
                    async with session.get(stack.serve.url + "/healthz") as resp:  # type: ignore[union-attr]
                        await resp.read()
                    out.append((time.perf_counter() - t0) * 1000)
            return out

        quiet = asyncio.run(idle())
        storm = asyncio.run(duplicate_storm(stack.serve.url, SECRET, payload, n=reports))
    storm["healthz_idle"] = {
        "p50_ms": round(statistics.median(quiet), 1),
        "p95_ms": round(percentile(quiet, 0.95), 1),
    }
    print(f"  storm: {storm}", file=sys.stderr)
    return storm
