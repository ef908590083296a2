"""`denpex watch-k8s` and `denpex node-agent` as real processes: configuration errors are one line,
the watcher finds the cluster through KUBECONFIG and answers /healthz, the agent serves over HTTP."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import urllib3

from tests.fakes.k8s import FakeKube
from tests.fakes.k8s.server import free_port
from tests.k8s.scenarios import indexed_oom_job
from tests.k8s.sink import HookSink, wait_for

DENPEX = str(Path(sys.executable).parent / "denpex")


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DENPEX_", "REDIS_", "KUBE"))}
    env.update({"HOME": str(tmp_path), "DENPEX_LOG_LEVEL": "WARNING", **extra})
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DENPEX, *args], env=env, capture_output=True, text=True, timeout=60)


def test_watcher_needs_url_and_secret(tmp_path: Path):
    result = run(["watch-k8s"], clean_env(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "denpex watch-k8s: DENPEX_URL is not set; it is required for this command"
    ]


def test_watcher_without_a_cluster_says_so(tmp_path: Path):
    env = clean_env(tmp_path, DENPEX_URL="http://127.0.0.1:9", DENPEX_WEBHOOK_SECRET="x")
    result = run(["watch-k8s"], env)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("denpex: cannot find a Kubernetes cluster")


def test_node_agent_needs_its_token(tmp_path: Path):
    result = run(["node-agent"], clean_env(tmp_path))
    assert result.returncode == 2
    assert "DENPEX_NODE_AGENT_TOKEN is not set" in result.stderr


@pytest.fixture
def sink() -> Iterator[HookSink]:
    s = HookSink().start()
    yield s
    s.stop()


def get(url: str, **headers: str) -> urllib3.BaseHTTPResponse | None:
    try:
        return urllib3.request("GET", url, headers=headers, timeout=3, retries=False)
    except urllib3.exceptions.HTTPError:
        return None


def test_watch_k8s_process_reports_and_answers_healthz(kube: FakeKube, sink: HookSink, tmp_path: Path):
    health = free_port()
    env = clean_env(
        tmp_path,
        DENPEX_URL=sink.url,
        DENPEX_WEBHOOK_SECRET=sink.secret,
        DENPEX_CLUSTER="cli",
        KUBECONFIG=str(kube.write_kubeconfig(tmp_path / "kubeconfig")),
    )
    proc = subprocess.Popen(
        [DENPEX, "watch-k8s", "--watch-timeout", "5", "--health-port", str(health)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ok = wait_for(
            lambda: (r := get(f"http://127.0.0.1:{health}/healthz")) is not None and r.status == 200,
            timeout=30,
            what="watcher /healthz",
        )
        assert ok
        indexed_oom_job(kube)
        body = wait_for(lambda: sink.bodies, timeout=30, what="the report")[0]
        assert body["cluster"] == "cli" and body["name"] == "train"
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert "watching Job, JobSet, PyTorchJob in all namespaces" in err


def test_node_agent_process_serves_with_token(tmp_path: Path):
    source = tmp_path / "kern.log"
    source.write_text(
        "Nov 29 19:01:00 n kernel: Out of memory: Killed process 7 (python3) token=ghp_"
        "abcdefghijklmnopqrstuvwxyz0123456789\n"
    )
    port = free_port()
    env = clean_env(tmp_path, DENPEX_NODE_AGENT_TOKEN="tok")
    proc = subprocess.Popen(
        [DENPEX, "node-agent", "--host", "127.0.0.1", "--port", str(port), "--source", str(source)],
        env=env,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: get(f"http://127.0.0.1:{port}/healthz"), timeout=30, what="node-agent up")
        url = f"http://127.0.0.1:{port}/kernel-log?since=2026-11-29T19:00:00Z&until=2026-11-29T19:05:00Z"
        assert get(url).status == 401  # type: ignore[union-attr]
        resp = get(url, Authorization="Bearer tok")
        assert resp is not None and resp.status == 200
        text = resp.data.decode()
        assert "Out of memory: Killed process 7" in text and "ghp_" not in text
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
