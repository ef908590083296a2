"""End to end, every process real: `denpex watch-k8s` (KUBECONFIG → the fake API server) → signed
POST → `denpex serve` → Redis/RQ → `denpex worker` (the Kubernetes collector, the real engine) → one
thread in the fake Slack naming the initiating rank and the OOM kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import urllib3

from tests.fakes.k8s import FakeKube
from tests.fakes.k8s.server import free_port
from tests.fakes.slack.fixture import fake_slack
from tests.k8s.scenarios import indexed_oom_job
from tests.k8s.sink import wait_for

__all__ = ["fake_slack"]

SECRET = "e2e-webhook-secret-6d1a"
DENPEX = str(Path(sys.executable).parent / "denpex")


class Procs:
    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env, self.log_dir = env, log_dir
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        out = (self.log_dir / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            [DENPEX, *args], env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def output(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.log_dir.glob("*.log"))
        )

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


@pytest.fixture
def stack(kube: FakeKube, fake_slack: Any, redis_url: str, tmp_path: Path) -> Iterator[tuple[Procs, str]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DENPEX_", "REDIS_", "KUBE"))}
    env.update(
        {
            "REDIS_URL": redis_url,
            "DENPEX_WEBHOOK_SECRET": SECRET,
            "DENPEX_URL": f"http://127.0.0.1:{port}",
            "DENPEX_CLUSTER": "e2e",
            "DENPEX_LOG_LEVEL": "WARNING",
            "DENPEX_NODE_GRACE_SECONDS": "0",
            "KUBECONFIG": str(kube.write_kubeconfig(tmp_path / "kubeconfig")),
            "SLACK_API_URL": fake_slack.base_url,
            "SLACK_BOT_TOKEN": fake_slack.bot_token,
            "DENPEX_CHANNEL": "C0ALERTS",
        }
    )
    procs = Procs(env, tmp_path)
    procs.start("server", "serve", "--host", "127.0.0.1", "--port", str(port))
    procs.start("worker", "worker")
    procs.start("watcher", "watch-k8s", "--watch-timeout", "5")
    try:
        wait_for(lambda: _healthy(port), timeout=30, what="server /healthz\n" + procs.output())
        yield procs, f"http://127.0.0.1:{port}"
    finally:
        procs.stop()


def _healthy(port: int) -> bool:
    try:
        return (
            urllib3.request("GET", f"http://127.0.0.1:{port}/healthz", timeout=2, retries=False).status == 200
        )
    except urllib3.exceptions.HTTPError:
        return False


def everything(message: dict[str, Any], thread: list[dict[str, Any]]) -> str:
    return json.dumps([message, *thread])


@pytest.mark.slow
def test_indexed_job_oom_rank6_to_one_slack_thread(kube: FakeKube, fake_slack: Any, redis_url: str, stack):
    procs, _ = stack
    wait_for(lambda: kube.requested("watch=true"), timeout=30, what="the watcher to watch\n" + procs.output())
    indexed_oom_job(kube)  # 8 ranks: rank 6 OOMKilled, the other 7 NCCL watchdog timeouts
    roots = wait_for(
        lambda: fake_slack.roots("C0ALERTS"), timeout=90, what="the Slack post\n" + procs.output()
    )
    root = roots[0]
    thread = wait_for(
        lambda: [m for m in fake_slack.thread(root["ts"]) if m["ts"] != root["ts"]],
        timeout=30,
        what="the thread replies\n" + procs.output(),
    )
    text = everything(root, thread).lower()
    assert "rank 6" in text, text[:3000]
    assert "oom" in text, text[:3000]
    assert "train" in root["text"]
    # the watcher reported once; the worker collected every rank's log from the API server
    assert len(fake_slack.roots("C0ALERTS")) == 1
    assert len([p for p in kube.requested("/log?") if "container=pytorch" in p]) >= 8
    diag_key = next(k for k in redis.Redis.from_url(redis_url).scan_iter("denpex:diagnosis:*"))
    diagnosis = json.loads(redis.Redis.from_url(redis_url).get(diag_key))
    assert diagnosis["initiating"]["rank"] == 6, diagnosis
    # the other ranks' logs were read (from the Job's start on): their NCCL timeouts are the collateral
    nccl = {
        r for group in diagnosis["collateral"] if group["category"] == "nccl_timeout" for r in group["ranks"]
    }
    assert nccl == {0, 1, 2, 3, 4, 5, 7}, diagnosis["collateral"]
