"""`denpex demo` end to end, as a user runs it: no config, then with Slack configured (the fake)."""

from __future__ import annotations

import re
import socket
import subprocess
from typing import Any

import pytest

from denpex.demo import INITIATING_RANK, PLANTED_TOKEN
from tests.pipeline.conftest import VENV_BIN, worker_env

pytestmark = pytest.mark.timeout(90)


def run_demo(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VENV_BIN / "denpex"), "demo", "--timeout", "60"],
        env=env,
        capture_output=True,
        text=True,
        timeout=80,
    )


def listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def demo_env(**extra: str) -> dict[str, str]:
    env = worker_env("unused", VENV_BIN, **extra)
    for key in ("REDIS_URL", "DENPEX_LOG_ROOT", "DENPEX_NODE_GRACE_SECONDS", "DENPEX_LOG_LEVEL"):
        env.pop(key, None)
    return env


def test_demo_prints_the_thread_naming_rank_5_with_the_token_masked() -> None:
    result = run_demo(demo_env())
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"rank {INITIATING_RANK}" in result.stdout
    assert "ranks 0-4,6,7" in result.stdout  # the collateral, grouped
    assert PLANTED_TOKEN not in result.stdout + result.stderr
    ports = [int(p) for p in re.findall(r"127\.0\.0\.1:(\d+)", result.stderr)]
    assert len(ports) == 2 and not any(listening(p) for p in ports), "demo left its server or Redis running"


def test_demo_posts_when_slack_is_configured(fake_slack: Any) -> None:
    env = demo_env(
        SLACK_API_URL=fake_slack.base_url, SLACK_BOT_TOKEN=fake_slack.bot_token, DENPEX_CHANNEL="C0ALERTS"
    )
    result = run_demo(env)
    assert result.returncode == 0, result.stderr[-3000:]
    (root,) = fake_slack.roots("C0ALERTS")
    assert root["ts"] in result.stdout
    thread = fake_slack.thread(root["ts"])
    assert len(thread) > 1 and f"rank {INITIATING_RANK}" in str(thread)
    sent = "".join(str(c.params) for c in fake_slack.calls()) + str(fake_slack.files)
    assert PLANTED_TOKEN not in sent
