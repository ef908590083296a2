"""`/denpex diagnose <namespace>/<name>` on a Kubernetes cluster: the resolver finds the training job
through the real `kubernetes` client (a kubeconfig → the fake API server) and names it the way the
watcher and the collector do (`<name>` for a batch Job, `<Kind>/<name>` otherwise)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.slack.commands import UsageError, parse_diagnose
from bot.slack.jobs import DefaultResolver, UnknownCluster, UnknownJobId
from denpex.core.models import Scheduler
from denpex.core.settings import Settings
from integrations.kubernetes import load_api_client
from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o


@pytest.fixture
def kube(tmp_path: Path) -> Iterator[FakeKube]:
    fake = FakeKube().start()
    fake.put("jobs", o.indexed_job("llama-ft", 8, namespace="ml", failed="BackoffLimitExceeded"))
    fake.put("pytorchjobs", o.pytorchjob("bert-pt", 4, namespace="research", failed="Failed"))
    yield fake
    fake.stop()


def resolver(kube: FakeKube, tmp_path: Path) -> DefaultResolver:
    """The resolver as the composition root builds it: the cluster client is handed in."""
    api = load_api_client(str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
    return DefaultResolver(
        Settings(DENPEX_K8S_CLUSTER="prod", DENPEX_CLUSTER="prod", DENPEX_LOG_ROOT=tmp_path), kube=api
    )


async def test_batch_job_and_pytorchjob_resolve(kube: FakeKube, tmp_path: Path) -> None:
    job = await resolver(kube, tmp_path).resolve("prod", "ml/llama-ft")
    assert (job.scheduler, job.cluster, job.namespace, job.job_id) == (
        Scheduler.kubernetes,
        "prod",
        "ml",
        "llama-ft",
    )
    assert job.key == "kubernetes:prod:ml/llama-ft"  # the watcher's key: one diagnosis for both paths
    job = await resolver(kube, tmp_path).resolve(None, "research/bert-pt")
    assert (job.namespace, job.job_id) == ("research", "PyTorchJob/bert-pt")


async def test_unknown_job_unknown_cluster_and_bad_ids(kube: FakeKube, tmp_path: Path) -> None:
    with pytest.raises(UnknownJobId):
        await resolver(kube, tmp_path).resolve("prod", "ml/no-such-job")
    with pytest.raises(UnknownJobId):
        await resolver(kube, tmp_path).resolve("prod", "4242")  # not <namespace>/<name>
    with pytest.raises(UnknownCluster):
        await resolver(kube, tmp_path).resolve("staging", "ml/llama-ft")


def test_parse_accepts_namespace_slash_name_and_refuses_paths() -> None:
    assert parse_diagnose(["ml/llama-ft", "--cluster", "prod"]) == ("ml/llama-ft", "prod")
    for bad in ("../etc/passwd", "ml/../x", "/abs", "ML/Upper", "a/b/c"):
        with pytest.raises(UsageError):
            parse_diagnose([bad])
