"""The watcher against the fake API server through the real client: failures are reported once,
signed, and survive resourceVersion expiry (410), API server restarts and a Denpex server outage."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import redis

from integrations.kubernetes.reported import MemoryReported, RedisReported
from integrations.kubernetes.sender import HookSender
from integrations.kubernetes.watcher import Watcher, WatchOptions
from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o
from tests.k8s.scenarios import indexed_oom_job
from tests.k8s.sink import HookSink, wait_for


@pytest.fixture
def sink() -> Iterator[HookSink]:
    s = HookSink().start()
    yield s
    s.stop()


def make_watcher(kube: FakeKube, sink: HookSink, **kw) -> Watcher:
    sender = HookSender(sink.url, sink.secret, timeout=5)
    kw.setdefault("watch_timeout", 2)
    kw.setdefault("backoff", (0.05, 0.4))
    reported = kw.pop("reported", None)
    return Watcher(kube.api_client(), sender.send, WatchOptions(cluster="test", **kw), reported=reported)


@pytest.fixture
def running(kube: FakeKube, sink: HookSink) -> Iterator[Watcher]:
    w = make_watcher(kube, sink)
    w.start()
    yield w
    w.stop()


def settle(seconds: float = 0.6) -> None:
    """Give the watch streams time to deliver anything that would be a (wrong) second report."""
    time.sleep(seconds)


def test_indexed_job_failure_is_reported_once_with_every_rank(
    kube: FakeKube, sink: HookSink, running: Watcher
):
    job = indexed_oom_job(kube)
    body = wait_for(lambda: sink.bodies, what="a report")[0]
    settle()
    assert len(sink.bodies) == 1 and not sink.rejected
    assert (body["cluster"], body["namespace"], body["kind"], body["name"]) == (
        "test",
        "default",
        "Job",
        "train",
    )
    assert body["uid"] == job["metadata"]["uid"] and body["state"] == "Failed"
    pods = {p["rank"]: p for p in body["pods"]}
    assert sorted(pods) == list(range(8))
    assert pods[6]["reason"] == "OOMKilled" and pods[6]["exit_code"] == 137 and pods[6]["node"] == "gpu-06"
    assert pods[6]["container"] == "pytorch" and pods[0]["reason"] == "Error"


def test_job_failed_condition_alone_triggers(kube: FakeKube, sink: HookSink, running: Watcher):
    kube.put("jobs", o.indexed_job("plain", 2, failed="DeadlineExceeded"))
    body = wait_for(lambda: sink.bodies, what="a report")[0]
    assert body["reason"] == "DeadlineExceeded" and body["pods"] == []


def test_resumes_after_api_server_restart_without_double_report(
    kube: FakeKube, sink: HookSink, running: Watcher
):
    indexed_oom_job(kube, name="first")
    wait_for(lambda: sink.bodies, what="first report")
    kube.restart()
    indexed_oom_job(kube, name="second", oom=2)
    wait_for(lambda: len(sink.bodies) >= 2, what="second report after restart")
    settle()
    assert [b["name"] for b in sink.bodies] == ["first", "second"]
    # it resumed from its resourceVersion instead of re-listing from scratch
    watches = [p for p in kube.requested("watch=true") if "/jobs" in p]
    assert any("resourceVersion=" in p for p in watches)


def test_relists_on_410_gone_and_reports_only_the_new_failure(
    kube: FakeKube, sink: HookSink, running: Watcher
):
    indexed_oom_job(kube, name="before")
    wait_for(lambda: sink.bodies, what="first report")
    kube.stop()
    kube.store.compact()  # etcd compaction while the watcher was disconnected: its rv is now too old
    indexed_oom_job(kube, name="after", oom=1)
    kube.start()
    wait_for(lambda: len(sink.bodies) >= 2, timeout=15, what="report after 410 re-list")
    settle()
    assert [b["name"] for b in sink.bodies] == ["before", "after"]


def test_retries_while_denpex_server_is_down(kube: FakeKube, sink: HookSink, running: Watcher):
    sink.fail_next = 3
    indexed_oom_job(kube)
    wait_for(lambda: sink.bodies, what="report after 503s")
    settle()
    assert len(sink.bodies) == 1 and sink.fail_next == 0


def test_crashloop_with_restarts_exhausted_reports_the_job(kube: FakeKube, sink: HookSink, running: Watcher):
    job = kube.put("jobs", o.indexed_job("loop", 2))
    uid = job["metadata"]["uid"]
    kube.put("pods", o.job_pod("loop", 0, job_uid=uid, node_name="gpu-00", restart_policy="OnFailure"))
    pod = kube.put(
        "pods",
        o.job_pod(
            "loop",
            1,
            job_uid=uid,
            node_name="gpu-01",
            restart_policy="OnFailure",
            restart_count=1,
            state=o.k.V1ContainerState(waiting=o.k.V1ContainerStateWaiting(reason="CrashLoopBackOff")),
            last_state=o.terminated("OOMKilled", 137),
        ),
    )
    settle()
    assert sink.bodies == []  # one restart is not "exhausted"
    kube.modify(
        "pods",
        "default",
        pod["metadata"]["name"],
        lambda d: d["status"]["containerStatuses"][0].update(restartCount=3),
    )
    body = wait_for(lambda: sink.bodies, what="crashloop report")[0]
    assert body["name"] == "loop" and body["reason"] == "OOMKilled"


def test_pytorchjob_and_jobset_when_their_crds_exist(kube: FakeKube, sink: HookSink, running: Watcher):
    assert set(running.kinds) == {"Job", "PyTorchJob", "JobSet"}
    pj = kube.put("pytorchjobs", o.pytorchjob("llama", 3))
    uid = pj["metadata"]["uid"]
    kube.put("pods", o.pytorch_pod("llama", "Master", 0, job_uid=uid, node_name="gpu-00"))
    for i in range(3):
        kube.put("pods", o.pytorch_pod("llama", "Worker", i, job_uid=uid, node_name=f"gpu-0{i + 1}"))
    kube.modify(
        "pytorchjobs",
        "default",
        "llama",
        lambda d: d.update(o.pytorchjob("llama", 3, failed="Failed") | {"metadata": d["metadata"]}),
    )
    body = wait_for(lambda: sink.bodies, what="pytorchjob report")[0]
    assert body["kind"] == "PyTorchJob" and body["uid"] == uid
    assert {p["name"]: p["rank"] for p in body["pods"]} == {
        "llama-master-0": 0,
        "llama-worker-0": 1,
        "llama-worker-1": 2,
        "llama-worker-2": 3,
    }
    kube.put("jobsets", o.jobset("js", failed="FailedJobs"))
    wait_for(lambda: len(sink.bodies) == 2, what="jobset report")
    assert sink.bodies[1]["kind"] == "JobSet"


def test_without_crds_only_jobs_are_watched(kube: FakeKube, sink: HookSink):
    kube.store.crds.clear()
    w = make_watcher(kube, sink)
    w.start()
    try:
        assert w.kinds == ["Job"]
        indexed_oom_job(kube)
        wait_for(lambda: sink.bodies, what="job report")
        assert not kube.requested("pytorchjobs?")
    finally:
        w.stop()


def test_namespaces_limit_the_watch(kube: FakeKube, sink: HookSink):
    w = make_watcher(kube, sink, namespaces=("ml",))
    w.start()
    try:
        kube.put("jobs", o.indexed_job("elsewhere", 1, namespace="other", failed="BackoffLimitExceeded"))
        kube.put("jobs", o.indexed_job("mine", 1, namespace="ml", failed="BackoffLimitExceeded"))
        wait_for(lambda: sink.bodies, what="report")
        settle()
        assert [b["name"] for b in sink.bodies] == ["mine"]
        assert all("/namespaces/ml/" in p for p in kube.requested("watch=true"))
    finally:
        w.stop()


def test_old_failures_found_at_start_are_not_news(kube: FakeKube, sink: HookSink):
    job = o.indexed_job("ancient", 1, failed="BackoffLimitExceeded")
    job.status.conditions[0].last_transition_time = datetime.now(UTC) - timedelta(days=2)
    kube.put("jobs", job)
    w = make_watcher(kube, sink)
    w.start()
    try:
        kube.put("jobs", o.indexed_job("fresh", 1, failed="BackoffLimitExceeded"))
        wait_for(lambda: sink.bodies, what="fresh report")
        settle()
        assert [b["name"] for b in sink.bodies] == ["fresh"]
    finally:
        w.stop()


def test_a_restarted_watcher_with_redis_does_not_report_again(kube: FakeKube, sink: HookSink, redis_url: str):
    indexed_oom_job(kube)
    for _ in range(2):  # the watcher process restarts; Redis remembers what was sent
        w = make_watcher(kube, sink, reported=RedisReported(redis.Redis.from_url(redis_url)))
        w.start()
        try:
            wait_for(lambda: sink.bodies, what="report")
            settle()
        finally:
            w.stop()
    assert len(sink.bodies) == 1


def test_memory_reported_is_bounded():
    seen = MemoryReported(max_keys=3)
    assert all(seen.claim(k) for k in "abcd")
    assert len(seen) == 3 and not seen.claim("d") and seen.claim("a")  # oldest forgotten first


def test_a_thousand_failing_pods_cost_one_owner_lookup(kube: FakeKube, sink: HookSink, running: Watcher):
    job = kube.put("jobs", o.indexed_job("wide", 64, failed="BackoffLimitExceeded"))
    for i in range(64):
        kube.put(
            "pods",
            o.job_pod(
                "wide",
                i,
                job_uid=job["metadata"]["uid"],
                node_name=f"n{i // 8}",
                phase="Failed",
                state=o.terminated("Error", 1),
            ),
        )
    wait_for(lambda: sink.bodies, what="report")
    settle()
    assert len(sink.bodies) == 1  # its pods[] is the snapshot at report time; the worker re-reads them
    assert len(kube.requested("/namespaces/default/jobs/wide")) == 1


def test_crds_installed_later_are_picked_up(kube: FakeKube, sink: HookSink):
    kube.store.crds.clear()
    w = make_watcher(kube, sink, rediscover_seconds=0.2)
    w.start()
    try:
        assert w.kinds == ["Job"]
        kube.store.crds.add("pytorchjobs")
        wait_for(lambda: "PyTorchJob" in w.kinds, what="re-discovery")
        kube.put("pytorchjobs", o.pytorchjob("late", 1, failed="Failed"))
        body = wait_for(lambda: sink.bodies, what="report of the late kind")[0]
        assert body["kind"] == "PyTorchJob"
    finally:
        w.stop()


def test_rejected_report_is_not_marked_reported(kube: FakeKube, sink: HookSink):
    wrong = HookSender(sink.url, "not-the-secret", timeout=5)
    seen = MemoryReported()
    w = Watcher(
        kube.api_client(),
        wrong.send,
        WatchOptions(cluster="test", watch_timeout=2, backoff=(0.05, 0.4)),
        reported=seen,
    )
    w.start()
    try:
        kube.put("jobs", o.indexed_job("rej", 1, failed="BackoffLimitExceeded"))
        wait_for(lambda: sink.rejected, what="a 401")
        settle()
        assert sink.bodies == [] and sink.rejected[0] == "mismatch"
        assert len(seen) == 0  # a watcher restarted with the right secret will send it
    finally:
        w.stop()
