"""The collector and watcher against a real cluster (DENPEX_TEST_KUBECONFIG; skipped without it).

Creates a throwaway namespace with an Indexed Job of 3 pods where index 1 exits 3 after printing a
CUDA OOM line, waits for the Job's Failed condition, then checks what the fake-server tests check:
rank mapping, logs, termination facts, and one signed report from the watcher. Needs permission to
create namespaces and Jobs and an image registry that serves `busybox`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from kubernetes import client

from denpex.core.models import JobRef
from integrations.kubernetes.collector import KubernetesCollector
from integrations.kubernetes.sender import HookSender
from integrations.kubernetes.watcher import Watcher, WatchOptions
from tests.k8s.sink import HookSink, wait_for

pytestmark = pytest.mark.k8s_live

SCRIPT = (
    'echo "[rank${JOB_COMPLETION_INDEX}]: step 1 loss 2.5"; '
    'if [ "$JOB_COMPLETION_INDEX" = 1 ]; then '
    'echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"; exit 3; fi; sleep 5'
)


@pytest.fixture
def failed_job(live_api: client.ApiClient) -> Iterator[tuple[str, str]]:
    core, batch = client.CoreV1Api(live_api), client.BatchV1Api(live_api)
    ns = f"denpex-test-{uuid.uuid4().hex[:6]}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    job = client.V1Job(
        metadata=client.V1ObjectMeta(name="live"),
        spec=client.V1JobSpec(
            completions=3,
            parallelism=3,
            completion_mode="Indexed",
            backoff_limit=0,
            template=client.V1PodTemplateSpec(
                spec=client.V1PodSpec(
                    restart_policy="Never",
                    containers=[
                        client.V1Container(name="pytorch", image="busybox:1.36", command=["sh", "-c", SCRIPT])
                    ],
                )
            ),
        ),
    )
    batch.create_namespaced_job(ns, job)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            status = batch.read_namespaced_job("live", ns).status
            if any(c.type == "Failed" and c.status == "True" for c in status.conditions or []):
                break
            time.sleep(2)
        else:
            pytest.fail("the live Job did not fail within 180 s")
        yield ns, "live"
    finally:
        core.delete_namespace(ns)


def test_live_collector(live_api: client.ApiClient, failed_job: tuple[str, str]):
    ns, name = failed_job
    ev = KubernetesCollector(live_api).collect(
        JobRef(scheduler="kubernetes", cluster="live", job_id=name, namespace=ns)
    )
    ranks = {s.rank: s for s in ev.sources if s.kind == "rank"}
    assert set(ranks) <= {0, 1, 2} and 1 in ranks
    assert b"CUDA out of memory" in b"".join(ranks[1].open_bytes())
    status = b"".join(next(s for s in ev.sources if s.name == "k8s-pod-status").open_bytes()).decode()
    assert "[rank1]:" in status and "exitCode=3" in status


def test_live_watcher_reports_once(live_api: client.ApiClient, failed_job: tuple[str, str]):
    ns, name = failed_job
    sink = HookSink().start()
    options = WatchOptions(cluster="live", namespaces=(ns,), watch_timeout=10)
    watcher = Watcher(live_api, HookSender(sink.url, sink.secret).send, options)
    watcher.start()
    try:
        body = wait_for(lambda: sink.bodies, timeout=60, what="the report")[0]
        time.sleep(3)
        assert len(sink.bodies) == 1 and body["name"] == name and body["namespace"] == ns
    finally:
        watcher.stop()
        sink.stop()
