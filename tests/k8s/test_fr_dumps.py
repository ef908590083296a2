"""Flight Recorder dumps on Kubernetes: a real node agent on 127.0.0.1 serves the pods' trace volume
(real dumps made by real torch, gloo), the collector fetches them for the job's pods through the fake
API server, and the engine names the rank that skipped the collective."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
import urllib3
from aiohttp import web
from kubernetes import client

from denpex.core.models import Evidence, JobRef
from integrations.kubernetes.collector import KubernetesCollector
from integrations.kubernetes.dumps import DumpOptions
from integrations.kubernetes.kernel import KernelLogOptions
from integrations.kubernetes.node_agent import create_app
from knowledge.engine import Engine
from knowledge.masking import Masker
from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o
from tests.flightrec.dumps import FIXTURES
from tests.k8s.scenarios import T0, indexed_oom_job

NOW = lambda: T0 + timedelta(hours=1)  # noqa: E731
TOKEN = "agent-token-fr"
AGENT_LABELS = {"app.kubernetes.io/name": "denpex", "app.kubernetes.io/component": "node-agent"}


@contextmanager
def serve(app: web.Application) -> Iterator[str]:
    """`app` on a free port of 127.0.0.1 in its own thread; yields its base URL."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    bound: list[int] = []

    def run() -> None:
        runner = web.AppRunner(app, shutdown_timeout=0.5)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
        bound.append(runner.addresses[0][1])
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield f"http://127.0.0.1:{bound[0]}"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def agent_app(root: Path | None, max_bytes: int = 1 << 20) -> web.Application:
    return create_app(
        token=TOKEN, mask=Masker.default().mask, source="/dev/null", dumps_root=root, dump_max_bytes=max_bytes
    )


def get(url: str, token: str | None = TOKEN) -> urllib3.BaseHTTPResponse:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return urllib3.request("GET", url, headers=headers, timeout=10, retries=False)


@pytest.fixture
def volume(tmp_path: Path) -> Path:
    """The trace volume's host folder: `/<namespace>/<pod>/` per pod, as `subPathExpr` makes it."""
    root = tmp_path / "fr"
    root.mkdir()
    return root


def put_job(kube: FakeKube, api: client.ApiClient, volume: Path, n: int = 4) -> list[str]:
    """An Indexed Job whose logs only say NCCL timed out, each pod's real dump on its node's volume;
    returns the pod names by completion index (= rank)."""
    indexed_oom_job(kube, n=n, oom=-1)
    listed = client.CoreV1Api(api).list_namespaced_pod("default", label_selector="job-name=train").items
    index = "batch.kubernetes.io/job-completion-index"
    pods = [p.metadata.name for p in sorted(listed, key=lambda p: int(p.metadata.labels[index]))]
    for i, pod in enumerate(pods):
        folder = volume / "default" / pod
        folder.mkdir(parents=True)
        shutil.copy(FIXTURES / "skip_collective" / f"nccl_trace_rank_{i}", folder)
    return pods


def put_agents(kube: FakeKube, url: str, n: int = 4) -> None:
    port = int(url.rsplit(":", 1)[1])
    for i in range(n):
        kube.put(
            "pods",
            o.pod(
                f"denpex-node-agent-{i}",
                namespace="denpex",
                node_name=f"gpu-{i:02d}",
                pod_ip="127.0.0.1",
                container="node-agent",
                ports={"kernel-log": port},
                labels=AGENT_LABELS,
            ),
        )


def collect(api: client.ApiClient, **kw: object) -> Evidence:
    collector = KubernetesCollector(
        api, now=NOW, kernel=KernelLogOptions(token=TOKEN, agent_namespace="denpex", kubelet_path=None), **kw
    )
    return collector.collect(JobRef(scheduler="kubernetes", cluster="t", job_id="train", namespace="default"))


def dumps_of(ev: Evidence) -> dict[str, bytes]:
    return {s.name: b"".join(s.open_bytes()) for s in ev.sources if s.kind == "flight_recorder"}


def test_the_collector_fetches_each_pods_dumps_and_the_engine_names_the_rank(
    api: client.ApiClient, kube: FakeKube, volume: Path
) -> None:
    pods = put_job(kube, api, volume)
    with serve(agent_app(volume)) as url:
        put_agents(kube, url)
        ev = collect(api)
        got = dumps_of(ev)
        assert sorted(got) == [f"{p}/nccl_trace_rank_{i}" for i, p in enumerate(pods)]
        assert (
            got[f"{pods[2]}/nccl_trace_rank_2"]
            == (FIXTURES / "skip_collective" / "nccl_trace_rank_2").read_bytes()
        )
        assert {s.node for s in ev.sources if s.kind == "flight_recorder"} == {
            f"gpu-{i:02d}" for i in range(4)
        }
        assert not [m for m in ev.missing if "Flight Recorder" in m.what]
        diag = Engine.load().diagnose(ev.sources, missing=ev.missing)
    assert diag.suspect_ranks == [2] and diag.initiating.rank == 2
    assert diag.initiating.node == "gpu-02"
    assert diag.collectives.dumps == 4


def test_an_agent_without_a_host_path_is_no_gap(api: client.ApiClient, kube: FakeKube, volume: Path) -> None:
    put_job(kube, api, volume)
    with serve(agent_app(None)) as url:
        put_agents(kube, url)
        assert get(f"{url}/fr-dumps?namespace=default&pod=x").status == 404
        ev = collect(api)
    assert dumps_of(ev) == {} and not [m for m in ev.missing if "Flight Recorder" in m.what]


def test_dumps_off_in_the_collector_asks_nothing(api: client.ApiClient, kube: FakeKube, volume: Path) -> None:
    put_job(kube, api, volume)
    with serve(agent_app(volume)) as url:
        put_agents(kube, url)
        ev = collect(api, dumps=DumpOptions(enabled=False))
    assert dumps_of(ev) == {}


def test_the_agent_needs_the_token_and_refuses_paths(volume: Path, tmp_path: Path) -> None:
    folder = volume / "default" / "train-0-abc"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "skip_collective" / "nccl_trace_rank_0", folder)
    (tmp_path / "host-secret").write_text("the node's own file\n")
    with serve(agent_app(volume)) as url:
        q = "namespace=default&pod=train-0-abc"
        assert get(f"{url}/fr-dumps?{q}", token=None).status == 401
        assert get(f"{url}/fr-dumps/file?{q}&name=nccl_trace_rank_0", token="wrong").status == 401
        for bad in (
            "namespace=..&pod=x",
            "namespace=default&pod=..",
            "namespace=default&pod=a/../..",
            "pod=x",
        ):
            assert get(f"{url}/fr-dumps?{bad}").status == 400, bad
        for name in ("../../host-secret", "..", "sub/x", "/etc/passwd", ""):
            assert get(f"{url}/fr-dumps/file?{q}&name={name}").status == 400, name
        listing = get(f"{url}/fr-dumps?{q}").json()
        assert listing == {
            "files": [{"name": "nccl_trace_rank_0", "size": os.path.getsize(folder / "nccl_trace_rank_0")}],
            "skipped": [],
        }
        resp = get(f"{url}/fr-dumps/file?{q}&name=nccl_trace_rank_0")
        assert resp.status == 200 and resp.data == (folder / "nccl_trace_rank_0").read_bytes()
        assert get(f"{url}/fr-dumps/file?{q}&name=nope").status == 404
        assert get(f"{url}/fr-dumps?namespace=default&pod=never-ran").json() == {"files": [], "skipped": []}


def test_links_are_never_followed(volume: Path, tmp_path: Path) -> None:
    secret = tmp_path / "host-secret"
    secret.write_text("ROOT_ONLY the node's own file\n")
    folder = volume / "default" / "train-0-abc"
    folder.mkdir(parents=True)
    (folder / "nccl_trace_rank_0").symlink_to(secret)  # a pod's link to a file of the node
    (volume / "default" / "train-1-abc").symlink_to(tmp_path)  # a pod folder that is a link
    os.symlink(tmp_path, volume / "evil")  # a namespace that is a link
    with serve(agent_app(volume)) as url:
        q = "namespace=default&pod=train-0-abc"
        listing = get(f"{url}/fr-dumps?{q}").json()
        assert listing == {"files": [], "skipped": [{"name": "nccl_trace_rank_0", "why": "a link"}]}
        resp = get(f"{url}/fr-dumps/file?{q}&name=nccl_trace_rank_0")
        assert resp.status == 403 and b"ROOT_ONLY" not in resp.data
        for q2 in ("namespace=default&pod=train-1-abc", "namespace=evil&pod=host-secret"):
            assert get(f"{url}/fr-dumps?{q2}").json()["files"] == []
            assert b"ROOT_ONLY" not in get(f"{url}/fr-dumps/file?{q2}&name=host-secret").data
        assert get(f"{url}/fr-dumps/file?namespace=evil&pod=x&name=host-secret").status in (403, 404)


def test_size_caps_on_both_sides(api: client.ApiClient, kube: FakeKube, volume: Path) -> None:
    pods = put_job(kube, api, volume)
    big = volume / "default" / pods[1] / "nccl_trace_rank_9"
    big.write_bytes(b"\x80\x02" + b"x" * 4096)
    with serve(agent_app(volume, max_bytes=4000)) as url:
        put_agents(kube, url)
        assert (
            get(f"{url}/fr-dumps/file?namespace=default&pod={pods[1]}&name=nccl_trace_rank_9").status == 413
        )
        ev = collect(api)
        assert f"{pods[1]}/nccl_trace_rank_9" not in dumps_of(ev) and len(dumps_of(ev)) == 4
        [gap] = [m for m in ev.missing if "Flight Recorder" in m.what]
        assert (
            "nccl_trace_rank_9" in gap.what
            and "4098 bytes" in gap.what
            and "DENPEX_FR_MAX_BYTES" in gap.next_action
        )
        small = collect(api, dumps=DumpOptions(byte_cap=1000))  # the collector's own cap
        assert dumps_of(small) == {}
        assert len([m for m in small.missing if "over the 1000-byte limit" in m.what]) == 5


def test_the_chart_mounts_the_trace_volume_read_only_only_when_asked() -> None:
    pytest.importorskip("helm_python", reason="helm-python-sdk (dev extra) renders the chart")
    from tests.k8s.test_helm_chart import by_kind, render, validate

    def agent(values: dict[str, object]) -> dict[str, object]:
        docs = render(values)
        for doc in docs:
            validate(doc)
        return by_kind(docs, "DaemonSet")["rel-denpex-node-agent"]["spec"]["template"]["spec"]

    off = agent({})
    assert "volumes" not in off
    assert "DENPEX_FR_HOST_PATH" not in {e["name"] for e in off["containers"][0]["env"]}
    on = agent({"nodeAgent": {"flightRecorder": {"hostPath": "/var/lib/denpex/fr"}}})
    container = on["containers"][0]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["DENPEX_FR_HOST_PATH"] == "/var/lib/denpex/fr" and env["DENPEX_FR_MAX_BYTES"] == "268435456"
    assert container["volumeMounts"] == [
        {"name": "fr-dumps", "mountPath": "/var/lib/denpex/fr", "readOnly": True}
    ]
    assert on["volumes"] == [
        {"name": "fr-dumps", "hostPath": {"path": "/var/lib/denpex/fr", "type": "DirectoryOrCreate"}}
    ]
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["SYSLOG"]}
    both = agent({"nodeAgent": {"source": "/var/log/kern.log", "flightRecorder": {"hostPath": "/fr"}}})
    assert [v["name"] for v in both["volumes"]] == ["host-logs", "fr-dumps"]


def test_a_pods_link_is_named_in_the_missing_evidence(
    api: client.ApiClient, kube: FakeKube, volume: Path, tmp_path: Path
) -> None:
    pods = put_job(kube, api, volume)
    dump = volume / "default" / pods[0] / "nccl_trace_rank_0"
    dump.unlink()
    dump.symlink_to(tmp_path / "elsewhere")
    with serve(agent_app(volume)) as url:
        put_agents(kube, url)
        ev = collect(api)
    assert sorted(dumps_of(ev)) == [f"{p}/nccl_trace_rank_{i}" for i, p in enumerate(pods) if i]
    [gap] = [m for m in ev.missing if "Flight Recorder" in m.what]
    assert gap.what == f"Flight Recorder dumps of pod {pods[0]}/nccl_trace_rank_0 on gpu-00 (a link)"
    assert "DENPEX_FR_HOST_PATH" in gap.next_action
