"""Which global rank a pod runs, and which of its containers is the training process.

Training operators encode the rank differently, so the first source that answers wins, in this order:
an Indexed Job's completion index (offset by the JobSet child-job index when there is one), the
Kubeflow replica type and index (Master 0 first, then Workers), a literal `RANK` env var, and finally
the pod name's numeric suffix. A pod none of them answers for gets `None`, and the engine infers the
rank from its log lines instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kubernetes.client import V1Pod

from integrations.kubernetes.api import pod_annotations, pod_containers, pod_labels, pod_name

COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
KF_REPLICA_TYPE = "training.kubeflow.org/replica-type"
KF_REPLICA_INDEX = "training.kubeflow.org/replica-index"
KF_JOB_NAME = "training.kubeflow.org/job-name"
JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name"
JOBSET_JOB_INDEX = "jobset.sigs.k8s.io/job-index"
JOBSET_RJOB = "jobset.sigs.k8s.io/replicatedjob-name"
JOB_NAME_LABELS = ("batch.kubernetes.io/job-name", "job-name")
DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container"

_INDEXED_NAME = re.compile(r"-(\d{1,6})-[a-z0-9]{5}$")  # <job>-<index>-<random>
_SUFFIX = re.compile(r"-(\d{1,6})$")


@dataclass(frozen=True)
class RankedPod:
    pod: V1Pod
    rank: int | None
    how: str  # which source answered: completion-index, kubeflow, env, name, none


def _meta_int(pod: V1Pod, key: str) -> int | None:
    for bag in (pod_labels(pod), pod_annotations(pod)):
        value = bag.get(key)
        if value is not None and str(value).isdigit():
            return int(value)
    return None


def _env_rank(pod: V1Pod) -> int | None:
    for container in pod_containers(pod):
        for env in container.env or []:
            if env.name == "RANK" and env.value is not None and env.value.isdigit():
                return int(env.value)
    return None


def _name_rank(name: str) -> int | None:
    m = _INDEXED_NAME.search(name) or _SUFFIX.search(name)
    return int(m.group(1)) if m else None


def _jobset_offsets(pods: Sequence[V1Pod]) -> dict[tuple[str, int], int]:
    """Rank offset of each JobSet child job: jobs ordered by (replicated job, job index), each as wide
    as its largest completion index + 1."""
    width: dict[tuple[str, int], int] = {}
    for pod in pods:
        labels = pod_labels(pod)
        job_index, idx = _meta_int(pod, JOBSET_JOB_INDEX), _meta_int(pod, COMPLETION_INDEX)
        if job_index is None or idx is None:
            continue
        key = (labels.get(JOBSET_RJOB, ""), job_index)
        width[key] = max(width.get(key, 0), idx + 1)
    offsets: dict[tuple[str, int], int] = {}
    total = 0
    for key in sorted(width):
        offsets[key] = total
        total += width[key]
    return offsets


def assign_ranks(pods: Sequence[V1Pod]) -> list[RankedPod]:
    """Rank every pod of one job (see the module docstring for the order of sources)."""
    masters = sum(1 for p in pods if pod_labels(p).get(KF_REPLICA_TYPE, "").lower() == "master")
    offsets = _jobset_offsets(pods)
    out = []
    for pod in pods:
        labels = pod_labels(pod)
        idx = _meta_int(pod, COMPLETION_INDEX)
        if idx is not None:
            key = (labels.get(JOBSET_RJOB, ""), _meta_int(pod, JOBSET_JOB_INDEX) or 0)
            out.append(RankedPod(pod, offsets.get(key, 0) + idx, "completion-index"))
            continue
        rtype, ridx = labels.get(KF_REPLICA_TYPE, "").lower(), _meta_int(pod, KF_REPLICA_INDEX)
        if rtype and ridx is not None:
            out.append(RankedPod(pod, ridx if rtype == "master" else masters + ridx, "kubeflow"))
            continue
        env = _env_rank(pod)
        if env is not None:
            out.append(RankedPod(pod, env, "env"))
            continue
        named = _name_rank(pod_name(pod))
        out.append(RankedPod(pod, named, "name" if named is not None else "none"))
    return sorted(out, key=lambda r: (r.rank is None, r.rank if r.rank is not None else 0, pod_name(r.pod)))


def main_container(pod: V1Pod) -> str:
    """The training container: the default-container annotation, `pytorch` (Kubeflow's convention),
    the one that terminated with a non-zero exit code, else the first."""
    names = [c.name for c in pod_containers(pod)]
    default = pod_annotations(pod).get(DEFAULT_CONTAINER)
    if default is not None and default in names:
        return default
    if "pytorch" in names:
        return "pytorch"
    for status in (pod.status.container_statuses or []) if pod.status else []:
        term = status.state.terminated if status.state else None
        if term is not None and term.exit_code:
            return str(status.name)
    return names[0] if names else ""
