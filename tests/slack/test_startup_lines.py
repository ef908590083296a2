"""What `denpex serve` and `denpex worker` say when they start (real processes, real Redis)."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

from tests.support.redis_server import free_port

DENPEX = str(Path(sys.executable).parent / "denpex")


def _env(redis_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DENPEX_"))}
    return {**env, "REDIS_URL": redis_url, "DENPEX_WEBHOOK_SECRET": "whsec", "DENPEX_QUEUE": "startup-lines"}


def _wait_for_line(proc: subprocess.Popen[str], needle: str, seconds: float = 30) -> str:
    assert proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if sel.select(timeout=0.5):
            line = proc.stderr.readline()
            if needle in line:
                return line
            assert line or proc.poll() is None, "the process ended before saying it"
    raise AssertionError(f"no line with {needle!r} within {seconds}s")


def test_serve_says_where_it_listens_and_where_its_logs_go(redis_url: str) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [DENPEX, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=_env(redis_url),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = _wait_for_line(proc, "listening on")
        assert f"http://127.0.0.1:{port}" in line and "logs: JSON lines on stderr" in line
    finally:
        proc.terminate()
        proc.wait(15)


def test_worker_without_slack_says_once_that_it_does_not_post(redis_url: str) -> None:
    proc = subprocess.run(
        [DENPEX, "worker", "--burst"], env=_env(redis_url), capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    said = [ln for ln in proc.stderr.splitlines() if "nothing is posted to Slack" in ln]
    assert len(said) == 1 and "SLACK_BOT_TOKEN and DENPEX_CHANNEL not set" in said[0]
