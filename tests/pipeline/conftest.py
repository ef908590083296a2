"""Pipeline fixtures: the app on a real 127.0.0.1 port, real `denpex worker` processes, fake Slack.

Everything is real except Slack (the protocol fake in tests/fakes/slack): redis-server, RQ, the
engine, HTTP. Worker processes run in their own session so a test can SIGKILL a worker together with
its work-horse, as a node loss or the OOM killer would.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from denpex.core.settings import Settings
from integrations.signing import sign
from tests.fakes.slack.fixture import fake_slack

__all__ = ["fake_slack"]

SECRET = "test-webhook-secret-9f2c"
AM_TOKEN = "test-alertmanager-token-41bd"
DEMO_LOGS = Path(__file__).resolve().parents[2] / "denpex" / "demo" / "logs"
PLANTED = "hf_DemoPlantedTok3nXq7ZpL2mVb9RtYw4KcNs"
VENV_BIN = Path(sys.executable).parent


def make_settings(redis_url: str, log_root: Path, **extra: Any) -> Settings:
    values: dict[str, Any] = {
        "REDIS_URL": redis_url,
        "DENPEX_WEBHOOK_SECRET": SECRET,
        "DENPEX_ALERTMANAGER_TOKEN": AM_TOKEN,
        "DENPEX_LOG_ROOT": str(log_root),
        "DENPEX_NODE_GRACE_SECONDS": 2,
        "DENPEX_MAX_BODY_BYTES": 1 << 20,
        "SLACK_BOT_TOKEN": None,
        "DENPEX_CHANNEL": None,
    }
    values.update(extra)
    return Settings(**values)


def signed(
    payload: Any, secret: str = SECRET, ts: float | None = None, path: str = "/hooks/job"
) -> tuple[bytes, dict[str, str]]:
    """Body and v2 headers for a POST to `path` (the route is part of what is signed)."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return body, {"Content-Type": "application/json", **sign(secret, body, ts, path=path)}


@pytest.fixture
def log_root(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    root.mkdir()
    return root


def install_demo_job(log_root: Path, cluster: str, job_id: str) -> Path:
    folder = log_root / cluster / job_id
    shutil.copytree(DEMO_LOGS, folder)
    return folder


class WorkerProcs:
    """`denpex worker` subprocesses, each in its own session; stopped (or killed) by process group."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env, self.log_dir = env, log_dir
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, *args: str, **env: str) -> subprocess.Popen[bytes]:
        out = (self.log_dir / f"worker-{len(self.procs)}.log").open("wb")
        proc = subprocess.Popen(
            [
                str(VENV_BIN / "denpex"),
                "worker",
                "--maintenance-interval",
                "1",
                "--monitoring-interval",
                "1",
                "--heartbeat-grace",
                "2",
                *args,
            ],
            env={**self.env, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def output(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.log_dir.glob("worker-*.log")))

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                with _suppress():
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for proc in self.procs:
            try:
                proc.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                with _suppress():
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> bool:
        return exc[0] is not None and issubclass(exc[0], ProcessLookupError | PermissionError)


def worker_env(redis_url: str, log_root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DENPEX_", "REDIS_"))}
    env.update(
        {
            "REDIS_URL": redis_url,
            "DENPEX_LOG_ROOT": str(log_root),
            "DENPEX_NODE_GRACE_SECONDS": "2",
            "DENPEX_LOG_LEVEL": "WARNING",
            **extra,
        }
    )
    return env


@pytest.fixture
def workers(redis_url: str, log_root: Path, tmp_path: Path) -> Iterator[Callable[..., WorkerProcs]]:
    created: list[WorkerProcs] = []

    def factory(**extra: str) -> WorkerProcs:
        procs = WorkerProcs(worker_env(redis_url, log_root, **extra), tmp_path)
        created.append(procs)
        return procs

    yield factory
    for procs in created:
        procs.stop_all()


def wait_until(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def all_redis_text(client: redis.Redis) -> str:
    """Every key and every value of every type, as one string, for secret scans."""
    parts: list[str] = []
    for key in client.scan_iter(count=1000):
        parts.append(key.decode(errors="replace"))
        kind = client.type(key).decode()
        if kind == "string":
            parts.append((client.get(key) or b"").decode(errors="replace"))
        elif kind == "hash":
            parts.extend(f"{k!r}{v!r}" for k, v in client.hgetall(key).items())
        elif kind == "list":
            parts.extend(v.decode(errors="replace") for v in client.lrange(key, 0, -1))
        elif kind == "set":
            parts.extend(v.decode(errors="replace") for v in client.smembers(key))
        elif kind == "zset":
            parts.extend(v.decode(errors="replace") for v, _ in client.zrange(key, 0, -1, withscores=True))
        elif kind == "stream":
            parts.extend(repr(e) for e in client.xrange(key))
    return "\n".join(parts)


async def wait_async(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    """Like `wait_until`, but yields to the event loop the app under test runs in."""
    import asyncio

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


async def wait_progress(count: Callable[[], int], target: int, stall: float, what: str) -> int:
    """Wait until `count()` reaches `target`, for as long as it keeps rising: fail only when it has not
    moved for `stall` seconds. A busy machine makes the work slower, not wrong; a lost job stalls the
    count for good, so the test still fails on what it is about and never on the machine's load."""
    import asyncio

    best, moved = count(), time.monotonic()
    while best < target:
        if time.monotonic() - moved > stall:
            raise AssertionError(f"{what}: stuck at {best}/{target} for {stall} s")
        await asyncio.sleep(0.1)
        now = count()
        if now > best:
            best, moved = now, time.monotonic()
    return best


def slack_env(slack: Any) -> dict[str, str]:
    return {"SLACK_API_URL": slack.base_url, "SLACK_BOT_TOKEN": slack.bot_token, "DENPEX_CHANNEL": "C0ALERTS"}


def slack_text(slack: Any) -> str:
    """Everything any client sent to the fake Slack (params of every call, files' contents)."""
    calls = [json.dumps(c.params, default=str) for c in slack.calls()]
    files = [json.dumps(f, default=str) for f in slack.files.values()]
    return "\n".join(calls + files)
