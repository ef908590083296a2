"""The collector's client-side rate limit: a token bucket in front of every Kubernetes API request."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest

from denpex.core.models import JobRef
from denpex.core.settings import Settings
from integrations.kubernetes import create_collector
from integrations.kubernetes.collector import KubernetesCollector
from integrations.kubernetes.throttle import BURST, QPS, RateLimit, ThrottledApiClient
from tests.fakes.k8s import FakeKube
from tests.k8s.scenarios import T0, indexed_oom_job


class FakeTime:
    """A clock that moves only when the limiter sleeps (or the test says so)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []
        self.lock = threading.Lock()

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        with self.lock:
            self.sleeps.append(seconds)
            self.now += seconds


def test_burst_goes_at_once_then_qps_a_second():
    t = FakeTime()
    limit = RateLimit(qps=4, burst=3, clock=t.clock, sleep=t.sleep)
    waits = [limit.acquire() for _ in range(6)]
    assert waits == [0, 0, 0, 0.25, 0.25, 0.25]
    assert limit.waited == pytest.approx(0.75)


def test_tokens_refill_up_to_burst_only():
    t = FakeTime()
    limit = RateLimit(qps=10, burst=2, clock=t.clock, sleep=t.sleep)
    assert [limit.acquire() for _ in range(2)] == [0, 0]
    t.now += 60  # a quiet minute earns 600 tokens, but the bucket holds 2
    assert [limit.acquire() for _ in range(3)] == [0, 0, pytest.approx(0.1)]


def test_waiters_queue_up_without_a_clock_step():
    """Requests asked at the same instant are spaced 1/qps apart, not released together."""
    t = FakeTime()
    t.sleep = lambda s: t.sleeps.append(s)  # type: ignore[method-assign] # the clock stands still
    limit = RateLimit(qps=2, burst=1, clock=t.clock, sleep=t.sleep)
    waits = sorted(limit.acquire() for _ in range(4))
    assert waits == [0, 0.5, 1.0, 1.5]


@pytest.mark.parametrize(("qps", "burst"), [(0, 1), (-1, 5), (5, 0)])
def test_nonsense_limits_refused(qps: float, burst: int):
    with pytest.raises(ValueError, match="qps must be"):
        RateLimit(qps=qps, burst=burst)


def test_every_request_of_a_collection_takes_a_token(kube: FakeKube):
    """A whole diagnosis' requests (owner, pods, events, node agents, kubelets, every pod log) pass the
    limiter: after the burst, each one waited 1/qps."""
    indexed_oom_job(kube)  # 8 pods on 8 nodes
    t = FakeTime()
    limit = RateLimit(qps=50, burst=5, clock=t.clock, sleep=t.sleep)
    api = ThrottledApiClient(kube.configuration(), limit=limit)
    try:
        before = len(kube.store.requests)
        ev = KubernetesCollector(api, now=lambda: T0 + timedelta(hours=1)).collect(
            JobRef(scheduler="kubernetes", cluster="test", job_id="train", namespace="default")
        )
        logs = [b"".join(s.open_bytes()) for s in ev.sources if s.kind == "rank"]
    finally:
        api.close()
    assert len(logs) == 8 and all(logs)
    requests = len(kube.store.requests) - before
    assert requests > 8 + 8  # at least the 8 logs and the 8 kubelets
    assert len(t.sleeps) == requests - 5
    assert all(s == pytest.approx(1 / 50) for s in t.sleeps)


def test_the_workers_collector_is_throttled(kube: FakeKube, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("KUBECONFIG", str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
    collector = create_collector(Settings())
    assert isinstance(collector, KubernetesCollector)
    assert isinstance(collector.api, ThrottledApiClient)
    assert (collector.api.limit.qps, collector.api.limit.burst) == (QPS, BURST)
