"""From a failed object to its `KubernetesReport`: claim the job once, look up its pods and ranks.

`Reporter.check` is what the informers hand every object to. A failure is reported as its owning
training job, once (`reported` holds the claim, keyed by cluster, namespace, kind, name and uid, so a
re-created job of the same name is a new failure); a failure older than `max_age` when first seen is
not news (and is not re-sent after a watcher restart).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from kubernetes import client

from integrations.kubernetes.api import find_owner, list_all
from integrations.kubernetes.failures import Failure, owner_failure, pod_failure, pod_summary
from integrations.kubernetes.ranks import JOB_NAME_LABELS, KF_JOB_NAME, assign_ranks, main_container
from integrations.kubernetes.report import REASON_CHARS, SENT_MESSAGE_CHARS, KubernetesReport, PodReport
from integrations.kubernetes.reported import Reported

#: queue a claimed report for sending: (claim key, report)
Enqueue = Callable[[str, KubernetesReport], None]


class Reporter:
    def __init__(
        self,
        api: client.ApiClient,
        enqueue: Enqueue,
        reported: Reported,
        *,
        cluster: str,
        max_restarts: int,
        max_age: timedelta,
        now: Callable[[], datetime],
    ) -> None:
        self.api, self.enqueue, self.reported = api, enqueue, reported
        self.cluster, self.max_restarts, self.max_age, self.now = cluster, max_restarts, max_age, now

    def check(self, kind: str, obj: dict[str, Any]) -> None:
        failure = pod_failure(obj, self.max_restarts) if kind == "Pod" else owner_failure(kind, obj)
        if failure is None:
            return
        if failure.at is not None and self.now() - failure.at > self.max_age:
            return  # failed long before we looked: not news (and not re-sent after a restart)
        self.report(failure)

    def report(self, failure: Failure) -> None:
        """Claim the job's key, then build and queue its report. The owner is looked up only when
        the failure did not carry its uid, or once the claim succeeded (a thousand failing pods of
        one job cost one lookup)."""
        uid, owner = failure.uid, None
        if uid is None:
            owner = find_owner(self.api, failure.namespace, failure.name, failure.kind)
            uid = owner.uid if owner else None
        key = f"{self.cluster}/{failure.namespace}/{failure.kind}/{failure.name}/{uid or '-'}"
        if not self.reported.claim(key):
            return
        try:
            if owner is None:
                owner = find_owner(self.api, failure.namespace, failure.name, failure.kind)
            report = self.build(failure, owner.obj if owner else {}, uid)
        except Exception:
            self.reported.release(key)
            raise
        self.enqueue(key, report)

    def build(self, failure: Failure, owner: dict[str, Any], uid: str | None) -> KubernetesReport:
        core = client.CoreV1Api(self.api)
        selector = {
            "PyTorchJob": f"{KF_JOB_NAME}={failure.name}",
            "JobSet": f"jobset.sigs.k8s.io/jobset-name={failure.name}",
        }.get(failure.kind, f"{JOB_NAME_LABELS[0]}={failure.name}")
        pods = list(list_all(core.list_namespaced_pod, failure.namespace, label_selector=selector))
        pod_reports = [
            PodReport.model_validate(
                pod_summary(self.api.sanitize_for_serialization(r.pod), r.rank, main_container(r.pod))
            )
            for r in assign_ranks(pods)
        ]
        status = owner.get("status") or {}
        start = status.get("startTime") or (owner.get("metadata") or {}).get("creationTimestamp")
        return KubernetesReport(
            cluster=self.cluster,
            namespace=failure.namespace,
            kind=failure.kind,
            name=failure.name,
            uid=uid,
            state="Failed",
            reason=failure.reason[:REASON_CHARS],
            message=failure.message[:SENT_MESSAGE_CHARS],
            pods=pod_reports,
            start=start,
            end=failure.at or self.now(),
        )
