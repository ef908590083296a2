"""End-to-end section: webhook → Slack post latency, and /healthz during a duplicate storm.

Real components only, all on 127.0.0.1: a private `redis-server`, `denpex serve` (its own process),
`denpex worker --processes 4`, and the protocol-faithful fake Slack (tests/fakes/slack), which
records the time of every Web API call. Logs: one synthetic 64-rank × 8 MB job, hard-linked into a
folder per failure under DENPEX_LOG_ROOT; failures arrive through signed `POST /hooks/job`.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC
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
from workers.queueing import rq_job_id


class Stack:
    """redis-server + fake Slack + `denpex serve` + `denpex worker -n N`, started and stopped together."""

    def __init__(self, workdir: Path, processes: int, env: dict[str, str] | None = None) -> None:
        self.workdir, self.processes = workdir, processes
        self.env = {"DENPEX_NODE_GRACE_SECONDS": "0", **(env or {})}  # no node epilogs in a benchmark
        self.log_root = workdir / "logs"
        self.log_root.mkdir(parents=True, exist_ok=True)
        self.redis = RedisServer()
        self.slack = FakeSlack()
        self.serve: ServeProc | None = None
        self.worker: subprocess.Popen[bytes] | None = None
        self.worker_env: dict[str, str] = {}

    def __enter__(self) -> Stack:
        self.redis.start()
        self.slack.start()
        self._unlimited_plan()
        slack = {
            "SLACK_API_URL": self.slack.base_url,
            "SLACK_BOT_TOKEN": self.slack.bot_token,
            "DENPEX_CHANNEL": "C0ALERTS",
        }
        self.serve = ServeProc(self.redis.url, self.log_root, self.workdir / "serve.log", **self.env)
        self.serve.start()
        self.worker_env = clean_env(
            REDIS_URL=self.redis.url,
            DENPEX_LOG_ROOT=str(self.log_root),
            DENPEX_LOG_LEVEL="WARNING",
            **slack,
            **self.env,
        )
        out = (self.workdir / "worker.log").open("wb")
        argv = [str(VENV_BIN / "denpex"), "worker", "--processes", str(self.processes)]
        self.worker = subprocess.Popen(
            argv, env=self.worker_env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        self._wait_workers()
        return self

    def stop_workers(self) -> None:
        """Stop `denpex worker` (the rest keeps running): jobs sent now stay queued."""
        if self.worker is not None and self.worker.poll() is None:
            os.killpg(self.worker.pid, signal.SIGTERM)
            try:
                self.worker.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.worker.pid, signal.SIGKILL)
                self.worker.wait(5)

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
        self.stop_workers()
        if self.serve is not None:
            self.serve.stop()
        self.slack.stop()
        self.redis.stop()
        shutil.rmtree(self.redis.dir, ignore_errors=True)  # RedisServer leaves its temp folder


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


@dataclass(frozen=True)
class Hook:
    """One failure report: the signed POST (path, JSON body) and the job key its Slack thread carries."""

    key: str
    path: str
    body: bytes


def files_hook(job_id: str, cluster: str = "bench") -> Hook:
    body = json.dumps({"cluster": cluster, "job_id": job_id, "state": "FAILED", "exit_code": "1:0"})
    return Hook(f"files:{cluster}:{job_id}", "/hooks/job", body.encode())


async def send(session: aiohttp.ClientSession, url: str, hook: Hook) -> float:
    sent = time.time()
    headers = {"Content-Type": "application/json", **sign(SECRET, hook.body, path=hook.path)}
    async with session.post(url + hook.path, data=hook.body, headers=headers) as resp:
        if resp.status != 202:
            raise RuntimeError(f"webhook answered {resp.status}: {await resp.text()}")
    return sent


async def drive(
    stack: Stack, hooks: list[Hook], interval: float | None, warmup: list[Hook], done_wait: float
) -> dict[str, Any]:
    """Send the warm-up hooks and wait for their threads (not counted), then `hooks` one every
    `interval` s (None: each once the previous one's thread is posted); every latency
    is from the POST to the fake Slack's record of the post."""
    assert stack.serve is not None
    sent: dict[str, float] = {}
    async with aiohttp.ClientSession() as session:
        for hook in warmup:  # fork, import and page-cache warm-up; not counted
            await send(session, stack.serve.url, hook)
        await _wait_all(stack.slack, [h.key for h in warmup], done_wait)
        for hook in hooks:
            sent[hook.key] = await send(session, stack.serve.url, hook)
            if interval is None:
                await _wait_all(stack.slack, [hook.key], done_wait)
            else:
                await asyncio.sleep(interval)
    done = await _wait_all(stack.slack, list(sent), done_wait)
    root = [done[k][0] - sent[k] for k in sent]
    full = [done[k][1] - sent[k] for k in sent]
    engine = _engine_seconds(stack.redis.url, list(sent))
    started = _started_at(stack.redis.url, list(sent))
    queued = [started[k] - sent[k] for k in sent]
    work = [done[k][0] - started[k] for k in sent]
    return {
        "n": len(hooks),
        "interval": interval,
        "root": _stats(root),
        "thread": _stats(full),
        "engine": _stats(engine),
        # where the time goes: waiting for a worker, then the job until its root post
        "queued": _stats(queued),
        "work": _stats(work),
        "other": _stats([w - e for w, e in zip(work, engine, strict=True)]),
    }


def _engine_seconds(url: str, keys: list[str]) -> list[float]:
    """`Engine.diagnose` wall seconds per job, as the diagnosis recorded them (stats.seconds)."""
    r = redis.Redis.from_url(url)
    try:
        return [float(json.loads(r.get(f"denpex:diagnosis:{k}") or "{}")["stats"]["seconds"]) for k in keys]
    finally:
        r.close()


def _started_at(url: str, keys: list[str]) -> dict[str, float]:
    """When a worker took each job off the queue (the RQ job's `started_at`, epoch seconds)."""
    from rq.job import Job

    r = redis.Redis.from_url(url)
    try:
        out = {}
        for k in keys:
            at = Job.fetch(rq_job_id(k), connection=r).started_at
            assert at is not None, k
            out[k] = (at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp()
        return out
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
        hooks = [files_hook(f"j{i}") for i in range(failures)]
        warm = [files_hook(f"warm{i}") for i in range(2)]
        result = asyncio.run(drive(stack, hooks, interval, warm, done_wait=600 + failures * 20))
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
