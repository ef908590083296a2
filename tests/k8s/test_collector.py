"""The collector against the fake API server through the real client: ranks, logs, facts, kernel logs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from kubernetes import client

from denpex.core.models import Evidence, JobRef
from integrations.base import UnknownJob
from integrations.kubernetes.collector import KubernetesCollector
from integrations.kubernetes.kernel import KernelLogOptions
from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o
from tests.k8s.scenarios import T0, indexed_oom_job, training_lines

#: the collector's clock, an hour after the fixtures' jobs ran (never the real date)
NOW = lambda: T0 + timedelta(hours=1)  # noqa: E731


def ref(job_id: str = "train", namespace: str = "default") -> JobRef:
    return JobRef(scheduler="kubernetes", cluster="test", job_id=job_id, namespace=namespace)


def text(evidence: Evidence, name: str) -> str:
    source = next(s for s in evidence.sources if s.name == name)
    return b"".join(source.open_bytes()).decode()


def rank_sources(evidence: Evidence) -> dict[str, tuple[int | None, str | None]]:
    return {s.name: (s.rank, s.node) for s in evidence.sources if s.kind == "rank"}


def test_indexed_job_every_rank_facts_events_and_kernel_log(api: client.ApiClient, kube: FakeKube):
    indexed_oom_job(kube)
    ev = KubernetesCollector(api, now=NOW).collect(ref())
    ranks = rank_sources(ev)
    assert sorted(r for r, _ in ranks.values()) == list(range(8))
    assert all(node == f"gpu-{rank:02d}" for rank, node in ranks.values())
    assert ev.job is not None and ev.job.nodes == [f"gpu-{i:02d}" for i in range(8)]
    status = text(ev, "k8s-pod-status")
    assert "k8s: Job default/train condition Failed reason=BackoffLimitExceeded" in status
    oom = next(line for line in status.splitlines() if "OOMKilled" in line)
    assert oom.startswith("2026-11-29T19:01:00Z k8s: [rank6]: pod train-6-")
    assert "node gpu-06 container pytorch terminated reason=OOMKilled exitCode=137 signal=9 (SIGKILL)" in oom
    assert "[rank6]: event Pod train-6-" in text(ev, "kube-events")
    assert "OOMKilling" in text(ev, "kube-events")
    rank6 = next(n for n, (r, _) in ranks.items() if r == 6)
    assert text(ev, rank6).splitlines() == training_lines(6)
    kern = next(s for s in ev.sources if s.kind == "kernel")
    assert kern.node == "gpu-06" and b"Memory cgroup out of memory" in b"".join(kern.open_bytes())
    assert kube.requested("/api/v1/nodes/gpu-06/proxy/logs/kern.log")  # the raw path, '/' not encoded
    missing = [m.what for m in ev.missing]
    assert len(missing) == 7 and all(w.startswith("kernel log of gpu-0") for w in missing)


def test_logs_stream_lazily(api: client.ApiClient, kube: FakeKube):
    indexed_oom_job(kube, n=3, oom=1)
    ev = KubernetesCollector(api, now=NOW).collect(ref())
    assert not kube.requested("/log?")  # nothing read until the engine iterates a source
    next(s for s in ev.sources if s.kind == "rank").open_bytes().__next__()
    assert len(kube.requested("/log?")) == 1


def test_previous_container_log_and_caps(api: client.ApiClient, kube: FakeKube):
    job = kube.put("jobs", o.indexed_job("rs", 1, failed="BackoffLimitExceeded"))
    pod = kube.put(
        "pods",
        o.job_pod(
            "rs",
            0,
            job_uid=job["metadata"]["uid"],
            node_name="gpu-00",
            restart_policy="OnFailure",
            restart_count=1,
            phase="Failed",
            state=o.terminated("Error", 1),
            last_state=o.terminated("OOMKilled", 137),
        ),
    )
    name = pod["metadata"]["name"]
    kube.set_log("default", name, "pytorch", [f"current {i}" for i in range(100)], start=T0)
    kube.set_log(
        "default",
        name,
        "pytorch",
        ["first life", "torch.OutOfMemoryError: CUDA out of memory."],
        previous=True,
        start=T0,
    )
    ev = KubernetesCollector(api, now=NOW, tail_lines=10, limit_bytes=40).collect(ref("rs"))
    assert text(ev, f"{name}.pytorch.previous.log").startswith("first life\ntorch.OutOfMemoryError")
    current = text(ev, f"{name}.pytorch.log")
    assert current.startswith("current 90\ncurrent 91") and len(current) == 40
    assert any("tailLines=10" in p and "limitBytes=40" in p for p in kube.requested("/log"))
    assert "previous instance terminated reason=OOMKilled exitCode=137" in text(ev, "k8s-pod-status")


def test_previous_log_gone_is_skipped_not_fatal(api: client.ApiClient, kube: FakeKube):
    job = kube.put("jobs", o.indexed_job("gone", 1))
    pod = kube.put(
        "pods", o.job_pod("gone", 0, job_uid=job["metadata"]["uid"], node_name="gpu-00", restart_count=2)
    )
    kube.set_log("default", pod["metadata"]["name"], "pytorch", ["alive"])
    ev = KubernetesCollector(api, now=NOW).collect(ref("gone"))
    assert text(ev, f"{pod['metadata']['name']}.pytorch.previous.log") == ""  # 400 from the API: nothing
    assert text(ev, f"{pod['metadata']['name']}.pytorch.log") == "alive\n"


def test_since_seconds_from_job_start(api: client.ApiClient, kube: FakeKube):
    indexed_oom_job(kube, n=1, oom=0)
    job = ref().model_copy(update={"start": T0})
    ev = KubernetesCollector(api, now=NOW).collect(job)
    text(ev, next(iter(rank_sources(ev))))
    assert any("sinceSeconds=" in p for p in kube.requested("/log"))


def test_pytorchjob_ranks_master_first(api: client.ApiClient, kube: FakeKube):
    pj = kube.put("pytorchjobs", o.pytorchjob("llama", 3, failed="Failed"))
    uid = pj["metadata"]["uid"]
    for rtype, idx, node in (
        ("Worker", 2, "n3"),
        ("Master", 0, "n0"),
        ("Worker", 0, "n1"),
        ("Worker", 1, "n2"),
    ):
        kube.put(
            "pods",
            o.pytorch_pod("llama", rtype, idx, job_uid=uid, node_name=node, extra_containers=("istio",)),
        )
    ev = KubernetesCollector(api, now=NOW, kernel=KernelLogOptions(kubelet_path=None)).collect(
        ref("PyTorchJob/llama")
    )
    assert rank_sources(ev) == {
        "llama-master-0.pytorch.log": (0, "n0"),
        "llama-worker-0.pytorch.log": (1, "n1"),
        "llama-worker-1.pytorch.log": (2, "n2"),
        "llama-worker-2.pytorch.log": (3, "n3"),
    }
    assert "k8s: PyTorchJob default/llama condition Failed" in text(ev, "k8s-pod-status")


def test_rank_from_env_then_name_suffix(api: client.ApiClient, kube: FakeKube):
    job = kube.put("jobs", o.indexed_job("plain", 2))
    labels = {"batch.kubernetes.io/job-name": "plain"}
    kube.put("pods", o.pod("plain-a", labels=labels, node_name="n0", env={"RANK": "5", "WORLD_SIZE": "8"}))
    kube.put("pods", o.pod("plain-worker-3", labels=labels, node_name="n1"))
    kube.put("pods", o.pod("plain-zz", labels=labels, node_name="n2"))
    assert job
    ev = KubernetesCollector(api, now=NOW, kernel=KernelLogOptions(kubelet_path=None)).collect(ref("plain"))
    assert rank_sources(ev) == {
        "plain-a.pytorch.log": (5, "n0"),
        "plain-worker-3.pytorch.log": (3, "n1"),
        "plain-zz.pytorch.log": (None, "n2"),
    }


def test_jobset_ranks_offset_by_child_job(api: client.ApiClient, kube: FakeKube):
    kube.put("jobsets", o.jobset("js", failed="FailedJobs"))
    for job_index in range(2):
        for idx in range(2):
            labels = {
                "jobset.sigs.k8s.io/jobset-name": "js",
                "jobset.sigs.k8s.io/replicatedjob-name": "workers",
                "jobset.sigs.k8s.io/job-index": str(job_index),
                "batch.kubernetes.io/job-completion-index": str(idx),
            }
            kube.put(
                "pods", o.pod(f"js-workers-{job_index}-{idx}-abcde", labels=labels, node_name=f"n{job_index}")
            )
    ev = KubernetesCollector(api, now=NOW, kernel=KernelLogOptions(kubelet_path=None)).collect(
        ref("JobSet/js")
    )
    assert sorted(r for r, _ in rank_sources(ev).values()) == [0, 1, 2, 3]
    assert rank_sources(ev)["js-workers-1-0-abcde.pytorch.log"] == (2, "n1")


def test_pending_container_is_missing_evidence(api: client.ApiClient, kube: FakeKube):
    job = kube.put("jobs", o.indexed_job("pend", 1))
    waiting = o.k.V1ContainerState(waiting=o.k.V1ContainerStateWaiting(reason="ImagePullBackOff"))
    kube.put("pods", o.job_pod("pend", 0, job_uid=job["metadata"]["uid"], node_name="n0", state=waiting))
    ev = KubernetesCollector(api, now=NOW, kernel=KernelLogOptions(kubelet_path=None)).collect(ref("pend"))
    assert rank_sources(ev) == {}
    assert any("never ran: ImagePullBackOff" in m.what for m in ev.missing)
    assert "waiting reason=ImagePullBackOff" in text(ev, "k8s-pod-status")


def test_unknown_job_and_deleted_owner(api: client.ApiClient, kube: FakeKube):
    with pytest.raises(UnknownJob):
        KubernetesCollector(api, now=NOW).collect(ref("nope"))
    kube.put("pods", o.job_pod("orphan", 0, job_uid="u", node_name="n0"))
    ev = KubernetesCollector(api, now=NOW, kernel=KernelLogOptions(kubelet_path=None)).collect(ref("orphan"))
    assert len(rank_sources(ev)) == 1 and any("not found in the API" in m.what for m in ev.missing)


def test_node_proxy_forbidden_is_missing_evidence(api: client.ApiClient, kube: FakeKube):
    indexed_oom_job(kube, n=1, oom=0)
    kube.store.node_proxy_forbidden = True
    ev = KubernetesCollector(api, now=NOW).collect(ref())
    assert [m.what for m in ev.missing] == [
        "kernel log of gpu-00 (no node-agent token configured; kubelet logs/kern.log: HTTP 403)"
    ]


def test_paged_pod_list_for_many_ranks(api: client.ApiClient, kube: FakeKube):
    job = kube.put("jobs", o.indexed_job("big", 1200, failed="BackoffLimitExceeded"))
    for i in range(1200):
        kube.put("pods", o.job_pod("big", i, job_uid=job["metadata"]["uid"], node_name=f"n{i // 8}"))
    ev = KubernetesCollector(api, now=NOW, kernel=KernelLogOptions(kubelet_path=None)).collect(ref("big"))
    assert sorted(r for r, _ in rank_sources(ev).values()) == list(range(1200))
    assert any("continue=" in p for p in kube.requested("/pods?"))
