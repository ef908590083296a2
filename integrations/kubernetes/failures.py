"""Is this object a failed training job (or a pod that dooms one)? Pure functions over API dicts.

The watcher sees Jobs, PyTorchJobs, JobSets and pods as the JSON dicts of watch events. A failure is:
a `Failed=True` condition on the owner; or a pod in phase `Failed`; or a container crash-looping
after `max_restarts` restarts (restarts exhausted for restartPolicy OnFailure/Always). A pod failure
is reported as its owning job, so each job is reported once whichever signal arrives first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from integrations.kubernetes.kernel import parse_time
from integrations.kubernetes.ranks import JOB_NAME_LABELS, JOBSET_NAME, KF_JOB_NAME
from integrations.kubernetes.report import REASON_CHARS


@dataclass(frozen=True)
class Failure:
    kind: str  # Job | PyTorchJob | JobSet
    namespace: str
    name: str
    reason: str
    message: str
    at: datetime | None  # when it failed, if the API says
    uid: str | None = None  # the owner's uid (a re-created job of the same name is a new failure)


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _when(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str) and value:
        try:
            return parse_time(value)
        except ValueError:
            return None
    return None


def owner_failure(kind: str, obj: dict[str, Any]) -> Failure | None:
    """A Job/PyTorchJob/JobSet with a `Failed` condition. A Job that belongs to a JobSet is left to
    its JobSet, so the JobSet is what gets reported."""
    meta = _meta(obj)
    if kind == "Job" and JOBSET_NAME in (meta.get("labels") or {}):
        return None
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "Failed" and str(cond.get("status")) == "True":
            return Failure(
                kind,
                meta.get("namespace", "default"),
                meta["name"],
                cond.get("reason") or "Failed",
                cond.get("message") or "",
                _when(cond.get("lastTransitionTime")),
                meta.get("uid"),
            )
    return None


JOBSET_UID = "jobset.sigs.k8s.io/jobset-uid"


def pod_owner(pod: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, name) of the training job a pod belongs to, from the labels the controllers set."""
    labels = _meta(pod).get("labels") or {}
    if labels.get(JOBSET_NAME):
        return "JobSet", labels[JOBSET_NAME]
    if labels.get(KF_JOB_NAME):
        return "PyTorchJob", labels[KF_JOB_NAME]
    for key in JOB_NAME_LABELS:
        if labels.get(key):
            return "Job", labels[key]
    return None


def _statuses(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return list((pod.get("status") or {}).get("containerStatuses") or [])


def owner_uid(pod: dict[str, Any], kind: str) -> str | None:
    """The uid of the pod's training job without an API call: the JobSet's uid label, else the
    controller owner reference (Job, PyTorchJob)."""
    meta = _meta(pod)
    if kind == "JobSet":
        return (meta.get("labels") or {}).get(JOBSET_UID)
    for ref in meta.get("ownerReferences") or []:
        if ref.get("controller") and ref.get("kind") == kind:
            return ref.get("uid")
    return None


def pod_failure(pod: dict[str, Any], max_restarts: int = 3) -> Failure | None:
    """A failed pod of a training job (phase Failed, or crash-looping with restarts exhausted)."""
    failure = _pod_failure(pod, max_restarts)
    return replace(failure, uid=owner_uid(pod, failure.kind)) if failure else None


def _pod_failure(pod: dict[str, Any], max_restarts: int) -> Failure | None:
    owner = pod_owner(pod)
    if owner is None:
        return None
    meta, status = _meta(pod), pod.get("status") or {}
    where = f"pod {meta['name']} on {(pod.get('spec') or {}).get('nodeName') or '?'}"
    for cs in _statuses(pod):
        term = (cs.get("state") or {}).get("terminated") or {}
        last = (cs.get("lastState") or {}).get("terminated") or {}
        waiting = (cs.get("state") or {}).get("waiting") or {}
        if status.get("phase") == "Failed" and term:
            reason = term.get("reason") or "Error"
            return Failure(
                owner[0],
                meta.get("namespace", "default"),
                owner[1],
                reason,
                f"{where}: container {cs.get('name')} {reason} exitCode={term.get('exitCode')}",
                _when(term.get("finishedAt")),
            )
        if waiting.get("reason") == "CrashLoopBackOff" and int(cs.get("restartCount") or 0) >= max_restarts:
            reason = last.get("reason") or "CrashLoopBackOff"
            return Failure(
                owner[0],
                meta.get("namespace", "default"),
                owner[1],
                reason,
                f"{where}: container {cs.get('name')} restarted {cs.get('restartCount')} times, "
                f"last {reason} exitCode={last.get('exitCode')}",
                _when(last.get("finishedAt")),
            )
    if status.get("phase") == "Failed":
        reason = status.get("reason") or "Failed"
        return Failure(
            owner[0],
            meta.get("namespace", "default"),
            owner[1],
            reason,
            f"{where}: {status.get('message') or reason}",
            None,
        )
    return None


def pod_summary(pod: dict[str, Any], rank: int | None, container: str) -> dict[str, Any]:
    """The fields of a `report.PodReport`, as the API's pod dict gives them."""
    status = pod.get("status") or {}
    reason, exit_code = status.get("reason"), None
    for cs in _statuses(pod):
        if cs.get("name") != container:
            continue
        term = (
            (cs.get("state") or {}).get("terminated") or (cs.get("lastState") or {}).get("terminated") or {}
        )
        waiting = (cs.get("state") or {}).get("waiting") or {}
        reason = term.get("reason") or waiting.get("reason") or reason
        exit_code = term.get("exitCode")
    return {
        "name": _meta(pod)["name"],
        "node": (pod.get("spec") or {}).get("nodeName"),
        "rank": rank,
        "phase": status.get("phase"),
        "reason": reason[:REASON_CHARS] if reason else reason,
        "exit_code": exit_code,
        "container": container,
    }
