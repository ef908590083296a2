"""Builders for the objects tests put into the fake API server, made from the client's own models.

Core objects are `kubernetes.client` models (V1Pod, V1Job, …) so the serialised shape is exactly the
client's; Kubeflow PyTorchJobs and JobSets have no model in the client and are plain dicts shaped as
their CRDs define them (`kubeflow.org/v1`, `jobset.x-k8s.io/v1alpha2`).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from kubernetes import client as k

SIGNALS = {137: 9, 139: 11, 134: 6, 143: 15}


def _suffix(*parts: object) -> str:
    return hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()[:5]  # noqa: S324 - a name, not security


def node(name: str) -> k.V1Node:
    return k.V1Node(
        metadata=k.V1ObjectMeta(name=name, labels={"kubernetes.io/hostname": name}),
        status=k.V1NodeStatus(conditions=[k.V1NodeCondition(type="Ready", status="True")]),
    )


def terminated(reason: str, exit_code: int, at: datetime | None = None) -> k.V1ContainerState:
    at = at or datetime.now(UTC)
    return k.V1ContainerState(
        terminated=k.V1ContainerStateTerminated(
            reason=reason,
            exit_code=exit_code,
            signal=SIGNALS.get(exit_code) if reason == "OOMKilled" else None,
            started_at=at,
            finished_at=at,
        )
    )


def pod(
    name: str,
    *,
    namespace: str = "default",
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    node_name: str | None = None,
    container: str = "pytorch",
    phase: str = "Running",
    state: k.V1ContainerState | None = None,
    last_state: k.V1ContainerState | None = None,
    restart_count: int = 0,
    env: dict[str, str] | None = None,
    restart_policy: str = "Never",
    extra_containers: tuple[str, ...] = (),
    owner: tuple[str, str, str] | None = None,  # (kind, name, uid)
    pod_ip: str | None = None,
    ports: dict[str, int] | None = None,
) -> k.V1Pod:
    containers = [
        k.V1Container(
            name=container,
            image="ghcr.io/example/train:1",
            env=[k.V1EnvVar(name=n, value=v) for n, v in (env or {}).items()] or None,
            ports=[k.V1ContainerPort(name=n, container_port=p) for n, p in (ports or {}).items()] or None,
        )
    ] + [k.V1Container(name=c, image="busybox") for c in extra_containers]
    statuses = [
        k.V1ContainerStatus(
            name=container,
            image="ghcr.io/example/train:1",
            image_id="",
            ready=phase == "Running",
            restart_count=restart_count,
            state=state or k.V1ContainerState(running=k.V1ContainerStateRunning()),
            last_state=last_state,
        )
    ]
    refs = None
    if owner:
        api = {"Job": "batch/v1", "PyTorchJob": "kubeflow.org/v1", "JobSet": "jobset.x-k8s.io/v1alpha2"}[
            owner[0]
        ]
        refs = [
            k.V1OwnerReference(api_version=api, kind=owner[0], name=owner[1], uid=owner[2], controller=True)
        ]
    return k.V1Pod(
        metadata=k.V1ObjectMeta(
            name=name,
            namespace=namespace,
            labels=labels or {},
            annotations=annotations,
            owner_references=refs,
        ),
        spec=k.V1PodSpec(containers=containers, node_name=node_name, restart_policy=restart_policy),
        status=k.V1PodStatus(phase=phase, container_statuses=statuses, pod_ip=pod_ip),
    )


def indexed_job(
    name: str,
    completions: int,
    *,
    namespace: str = "default",
    uid: str | None = None,
    failed: str | None = None,
    labels: dict[str, str] | None = None,
    start: datetime | None = None,
) -> k.V1Job:
    """An Indexed batch/v1 Job; `failed` is the Failed condition's reason (e.g. BackoffLimitExceeded)."""
    conditions = None
    if failed:
        conditions = [
            k.V1JobCondition(
                type="Failed",
                status="True",
                reason=failed,
                message="Job has reached the specified backoff limit",
                last_transition_time=datetime.now(UTC),
            )
        ]
    return k.V1Job(
        metadata=k.V1ObjectMeta(name=name, namespace=namespace, uid=uid, labels=labels),
        spec=k.V1JobSpec(
            completions=completions,
            parallelism=completions,
            completion_mode="Indexed",
            backoff_limit=0,
            template=k.V1PodTemplateSpec(
                spec=k.V1PodSpec(
                    restart_policy="Never", containers=[k.V1Container(name="pytorch", image="train")]
                )
            ),
        ),
        status=k.V1JobStatus(
            conditions=conditions,
            failed=completions if failed else None,
            start_time=start or datetime.now(UTC),
        ),
    )


def job_pod(
    job: str, index: int, *, job_uid: str, node_name: str, namespace: str = "default", **kw: Any
) -> k.V1Pod:
    """A pod of an Indexed Job, named and labelled as the Job controller does."""
    labels = {
        "batch.kubernetes.io/job-name": job,
        "job-name": job,
        "batch.kubernetes.io/controller-uid": job_uid,
        "controller-uid": job_uid,
        "batch.kubernetes.io/job-completion-index": str(index),
    }
    annotations = {"batch.kubernetes.io/job-completion-index": str(index)}
    return pod(
        f"{job}-{index}-{_suffix(job, index)}",
        namespace=namespace,
        labels=labels,
        annotations=annotations,
        node_name=node_name,
        owner=("Job", job, job_uid),
        **kw,
    )


def pytorchjob(
    name: str, workers: int, *, namespace: str = "default", failed: str | None = None, uid: str | None = None
) -> dict[str, Any]:
    conditions = [{"type": "Created", "status": "True", "reason": "PyTorchJobCreated"}]
    if failed:
        conditions.append(
            {
                "type": "Failed",
                "status": "True",
                "reason": failed,
                "message": f"PyTorchJob {name} is failed because 1 Worker replica(s) failed.",
                "lastTransitionTime": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        )
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if uid:
        meta["uid"] = uid
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": meta,
        "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1}, "Worker": {"replicas": workers}}},
        "status": {"conditions": conditions},
    }


def pytorch_pod(
    job: str, rtype: str, index: int, *, job_uid: str, node_name: str, namespace: str = "default", **kw: Any
) -> k.V1Pod:
    labels = {
        "training.kubeflow.org/job-name": job,
        "training.kubeflow.org/operator-name": "pytorchjob-controller",
        "training.kubeflow.org/replica-type": rtype.lower(),
        "training.kubeflow.org/replica-index": str(index),
    }
    if rtype.lower() == "master":
        labels["training.kubeflow.org/job-role"] = "master"
    return pod(
        f"{job}-{rtype.lower()}-{index}",
        namespace=namespace,
        labels=labels,
        node_name=node_name,
        owner=("PyTorchJob", job, job_uid),
        **kw,
    )


def jobset(
    name: str, *, namespace: str = "default", failed: str | None = None, uid: str | None = None
) -> dict[str, Any]:
    conditions = []
    if failed:
        conditions.append(
            {
                "type": "Failed",
                "status": "True",
                "reason": failed,
                "message": "jobset failed due to reaching max number of restarts",
                "lastTransitionTime": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        )
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if uid:
        meta["uid"] = uid
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": meta,
        "spec": {"replicatedJobs": [{"name": "workers", "replicas": 2}]},
        "status": {"conditions": conditions},
    }


def event(
    namespace: str,
    kind: str,
    name: str,
    uid: str,
    reason: str,
    message: str,
    type_: str = "Warning",
    seq: int = 0,
) -> k.CoreV1Event:
    now = datetime.now(UTC)
    return k.CoreV1Event(
        metadata=k.V1ObjectMeta(name=f"{name}.{_suffix(reason, message, seq)}", namespace=namespace),
        involved_object=k.V1ObjectReference(kind=kind, name=name, namespace=namespace, uid=uid),
        reason=reason,
        message=message,
        type=type_,
        first_timestamp=now,
        last_timestamp=now,
        count=1,
    )
