"""The node-agent over real HTTP: bearer auth, time windows, masking, and the collector using it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import urllib3
from kubernetes import client

from denpex.core.models import JobRef
from integrations.kubernetes.collector import KubernetesCollector
from integrations.kubernetes.kernel import KernelLogOptions
from integrations.kubernetes.node_agent import boot_wall_time, create_app, read_kernel_log
from knowledge.masking import Masker
from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o
from tests.k8s.scenarios import T0, indexed_oom_job

#: the collector's clock, an hour after the fixtures' jobs ran (never the real date)
NOW = lambda: T0 + timedelta(hours=1)  # noqa: E731

TOKEN = "agent-token-123"
BOOT = datetime(2026, 11, 29, 18, 0, 0, tzinfo=UTC).timestamp()


def kmsg(seconds_after_boot: float, text: str, prio: int = 3, seq: int = 1) -> str:
    return f"{prio},{seq},{int(seconds_after_boot * 1e6)},-;{text}"


@pytest.fixture
def kmsg_file(tmp_path: Path) -> Path:
    path = tmp_path / "kmsg"
    path.write_text(
        "\n".join(
            [
                kmsg(60, "eth0: link up", 6, 1),
                kmsg(3660, "NVRM: Xid (PCI:0000:05:00): 79, pid=4242, GPU has fallen off the bus.", 3, 2),
                " SUBSYSTEM=pci",
                kmsg(
                    3661, 'audit: cmdline="curl https://bob:hunter2pass@example.com/x" password=hunter2', 5, 3
                ),
                kmsg(7200, "much later", 6, 4),
            ]
        )
        + "\n"
    )
    return path


@pytest.fixture
def agent(kmsg_file: Path) -> Iterator[str]:
    """The node-agent app on a free port of 127.0.0.1 (chosen by the OS), in its own thread."""
    app = create_app(token=TOKEN, mask=Masker.default().mask, source=str(kmsg_file), boot=lambda: BOOT)
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    bound: list[int] = []

    def run() -> None:
        from aiohttp import web

        runner = web.AppRunner(app, shutdown_timeout=0.5)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
        bound.append(runner.addresses[0][1])
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(10)
    yield f"http://127.0.0.1:{bound[0]}"
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


def get(url: str, token: str | None = TOKEN) -> urllib3.BaseHTTPResponse:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return urllib3.request("GET", url, headers=headers, timeout=10, retries=False)


def test_requires_the_bearer_token(agent: str):
    assert get(f"{agent}/kernel-log", token=None).status == 401
    assert get(f"{agent}/kernel-log", token="wrong").status == 401
    assert get(f"{agent}/healthz", token=None).status == 200


def test_serves_the_window_masked(agent: str):
    since = datetime(2026, 11, 29, 19, 0, 0, tzinfo=UTC)
    resp = get(
        f"{agent}/kernel-log?since={since.isoformat()}&until={(since + timedelta(minutes=5)).isoformat()}"
    )
    assert resp.status == 200 and resp.headers["Content-Type"].startswith("text/plain")
    lines = resp.data.decode().splitlines()
    assert lines[0] == (
        "2026-11-29T19:01:00.000000Z kernel: NVRM: Xid (PCI:0000:05:00): 79, pid=4242, "
        "GPU has fallen off the bus."
    )
    assert len(lines) == 2 and "hunter2" not in lines[1] and "[MASKED:" in lines[1]


def test_bad_time_is_400(agent: str):
    resp = get(f"{agent}/kernel-log?since=yesterday")
    assert resp.status == 400 and b"since='yesterday'" in resp.data


def test_reads_syslog_files_too(tmp_path: Path):
    path = tmp_path / "kern.log"
    path.write_text(
        "Nov 29 18:00:00 n kernel: old\nNov 29 19:01:00 n kernel: Out of memory: Killed process 7\n"
        "  continuation\nNov 29 21:00:00 n kernel: late\n"
    )
    since = datetime(2026, 11, 29, 19, 0, tzinfo=UTC)
    got = list(read_kernel_log(str(path), since, since + timedelta(hours=1), BOOT))
    assert got == ["Nov 29 19:01:00 n kernel: Out of memory: Killed process 7", "  continuation"]


def test_collector_uses_the_node_agent_before_the_kubelet(api: client.ApiClient, kube: FakeKube, agent: str):
    indexed_oom_job(kube, n=2, oom=1)
    port = int(agent.rsplit(":", 1)[1])
    for node in ("gpu-00", "gpu-01"):
        kube.put(
            "pods",
            o.pod(
                f"denpex-node-agent-{node}",
                namespace="denpex",
                node_name=node,
                pod_ip="127.0.0.1",
                container="node-agent",
                ports={"kernel-log": port},
                labels={"app.kubernetes.io/name": "denpex", "app.kubernetes.io/component": "node-agent"},
            ),
        )
    job = JobRef(
        scheduler="kubernetes",
        cluster="t",
        job_id="train",
        namespace="default",
        start=datetime(2026, 11, 29, 19, 0, tzinfo=UTC),
        end=datetime(2026, 11, 29, 19, 5, tzinfo=UTC),
    )
    ev = KubernetesCollector(
        api, now=NOW, kernel=KernelLogOptions(token=TOKEN, agent_namespace="denpex")
    ).collect(job)
    kernel = {s.node: b"".join(s.open_bytes()).decode() for s in ev.sources if s.kind == "kernel"}
    assert set(kernel) == {"gpu-00", "gpu-01"} and ev.missing == []
    assert "Xid (PCI:0000:05:00): 79" in kernel["gpu-01"] and "hunter2" not in kernel["gpu-01"]
    assert not kube.requested("/proxy/")  # the kubelet was not needed


def test_collector_with_a_wrong_token_falls_back_and_says_why(
    api: client.ApiClient, kube: FakeKube, agent: str
):
    indexed_oom_job(kube, n=1, oom=0)
    port = int(agent.rsplit(":", 1)[1])
    kube.put(
        "pods",
        o.pod(
            "agent-0",
            namespace="denpex",
            node_name="gpu-00",
            pod_ip="127.0.0.1",
            ports={"kernel-log": port},
            labels={"app.kubernetes.io/name": "denpex", "app.kubernetes.io/component": "node-agent"},
        ),
    )
    kube.store.node_files.clear()
    ev = KubernetesCollector(api, now=NOW, kernel=KernelLogOptions(token="wrong")).collect(
        JobRef(scheduler="kubernetes", cluster="t", job_id="train", namespace="default")
    )
    assert [m.what for m in ev.missing] == [
        "kernel log of gpu-00 (node-agent answered HTTP 401; kubelet logs/kern.log: HTTP 404)"
    ]


def test_reads_this_machines_ring_buffer_through_syslog_syscall():
    """The production source: klogctl(2). Skipped where this sandbox lacks CAP_SYSLOG."""
    now = datetime.now(UTC)
    try:
        lines = list(
            read_kernel_log("klog", now - timedelta(days=3650), now + timedelta(days=1), boot_wall_time())
        )
    except PermissionError:
        pytest.skip("no CAP_SYSLOG here")
    assert lines and all(" kernel: " in line for line in lines)
