"""Is there a training job `<namespace>/<name>`? The look-up behind `/denpex diagnose ns/name`.

The `ApiClient` comes from the composition root (built once per process), so nothing here reads
KUBECONFIG. The answer carries the pipeline's job id (`denpex.core.ids.k8s_job_id`), the one the
watcher and the collector use, so a job found here and one reported by the watcher are one diagnosis.
"""

from __future__ import annotations

from kubernetes import client

from denpex.core.ids import k8s_job_id
from denpex.core.models import JobRef, Scheduler
from integrations.kubernetes.api import find_owner


def find_job(api: client.ApiClient, cluster: str, namespace: str, name: str) -> JobRef | None:
    """The Job, PyTorchJob or JobSet named `name` in `namespace`, or None when none exists."""
    owner = find_owner(api, namespace, name)
    if owner is None:
        return None
    return JobRef(
        scheduler=Scheduler.kubernetes,
        cluster=cluster,
        namespace=namespace,
        job_id=k8s_job_id(owner.kind, owner.name),
    )
