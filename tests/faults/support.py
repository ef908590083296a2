"""Helpers for the fault-injection tests: a `denpex serve` process, Slack thread checks, peak RSS.

Peak RSS is measured the way `benchmarks/` does it: the command runs under a tiny Python parent
that waits for it and prints `getrusage(RUSAGE_CHILDREN).ru_maxrss`, which Linux folds up over the
whole waited-for tree (worker → work-horse), so the number is the diagnosing process's own peak.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp

from tests.pipeline.conftest import AM_TOKEN, SECRET, VENV_BIN
from tests.support.redis_server import free_port

PEAK_RSS = r"""
import json, resource, subprocess, sys
rc = subprocess.run(sys.argv[1:]).returncode
print(json.dumps({"rc": rc, "maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DENPEX_", "REDIS_"))}
    env.update(extra)
    return env


def run_measured(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int, int, str]:
    """Run `argv` under a measuring parent; returns (exit code, peak RSS in KiB, its stderr)."""
    out = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, *argv], env=env, capture_output=True, text=True, timeout=timeout
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return int(result["rc"]), int(result["maxrss_kb"]), out.stderr


class ServeProc:
    """`denpex serve` on a free 127.0.0.1 port, in its own session."""

    def __init__(self, redis_url: str, log_root: Path, log_file: Path, **env: str) -> None:
        self.port = free_port()
        self.log_file = log_file
        self.env = clean_env(
            REDIS_URL=redis_url,
            DENPEX_WEBHOOK_SECRET=SECRET,
            DENPEX_ALERTMANAGER_TOKEN=AM_TOKEN,
            DENPEX_LOG_ROOT=str(log_root),
            DENPEX_LOG_LEVEL="WARNING",
            DENPEX_MAX_BODY_BYTES=str(1 << 20),
            **env,
        )
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        out = self.log_file.open("wb")
        self.proc = subprocess.Popen(
            [str(VENV_BIN / "denpex"), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        import urllib.request

        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("denpex serve exited:\n" + self.output())
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as resp:  # noqa: S310
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("denpex serve did not answer /healthz:\n" + self.output())

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def output(self) -> str:
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)


def job_key_of(message: dict[str, Any]) -> str | None:
    payload = ((message.get("metadata") or {}).get("event_payload")) or {}
    return payload.get("job_key")


def posted_threads(fake_slack: Any, channel: str = "C0ALERTS") -> dict[str, list[dict[str, Any]]]:
    """job key → [root, replies…]; asserts no job has two roots and no reply index appears twice."""
    roots = fake_slack.roots(channel)
    keys = Counter(job_key_of(m) for m in roots)
    twice = {k: n for k, n in keys.items() if n > 1}
    assert not twice, f"jobs posted more than once: {twice}"
    threads: dict[str, list[dict[str, Any]]] = {}
    for root in roots:
        thread = fake_slack.thread(root["ts"])
        replies = [m for m in thread if m["ts"] != root["ts"]]
        indexes = Counter(
            ((m.get("metadata") or {}).get("event_payload") or {}).get("index")
            for m in replies
            if (m.get("metadata") or {}).get("event_type") == "denpex_reply"
        )
        dup = {i: n for i, n in indexes.items() if n > 1}
        assert not dup, f"thread of {job_key_of(root)} repeats replies {dup}"
        threads[str(job_key_of(root))] = [root, *replies]
    return threads


async def get_json(session: aiohttp.ClientSession, url: str) -> tuple[int, Any]:
    async with session.get(url) as resp:
        return resp.status, await resp.json(content_type=None)
