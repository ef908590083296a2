"""`denpex watch-k8s`: list+watch training jobs and their pods, report each failed job once.

One thread per watched resource (Jobs, pods of Jobs, and — when discovery shows their CRDs —
PyTorchJobs, their pods and JobSets), each running the classic informer loop: list (every object is
checked, the list's resourceVersion kept), then watch from that version; a watch that ends normally
is resumed from the last version seen (BOOKMARKs included); `410 Gone` (the v37 client raises
`ApiException(410)` for the watch `ERROR` event) re-lists; any other error or a lost connection
(API server restart) backs off exponentially and resumes. Reports go through a sender thread that
retries while the Denpex server is unreachable; `reported` makes sure one job is sent once.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import urllib3
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from integrations.kubernetes.api import JOBSET, PYTORCHJOB, find_owner, list_all, raw_get
from integrations.kubernetes.failures import Failure, owner_failure, pod_failure, pod_summary
from integrations.kubernetes.ranks import JOB_NAME_LABELS, KF_JOB_NAME, assign_ranks, main_container
from integrations.kubernetes.reported import MemoryReported, Reported
from integrations.kubernetes.sender import SendError

log = logging.getLogger(__name__)


@dataclass
class Target:
    """One list/watch stream: `kind` of object, the list function and its leading arguments."""

    kind: str  # Job | PyTorchJob | JobSet | Pod
    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        sel = self.kwargs.get("label_selector")
        return f"{self.kind}({'/'.join(map(str, self.args))}{' ' + sel if sel else ''})"


def discover(api: client.ApiClient) -> set[str]:
    """Which optional training-job kinds the cluster serves (their CRDs are installed)."""
    found = set()
    for kind, (group, version, plural) in (("PyTorchJob", PYTORCHJOB), ("JobSet", JOBSET)):
        try:
            data = json.loads(raw_get(api, f"/apis/{group}/{version}", timeout=10).data)
            if any(r.get("name") == plural for r in data.get("resources", [])):
                found.add(kind)
        except ApiException as exc:
            if exc.status not in (403, 404):
                raise
    return found


class Watcher:
    def __init__(
        self,
        api: client.ApiClient,
        send: Callable[[dict[str, Any]], Any],
        *,
        cluster: str,
        namespaces: list[str] | None = None,
        reported: Reported | None = None,
        watch_timeout: int = 300,
        backoff: tuple[float, float] = (0.5, 30.0),
        max_restarts: int = 3,
        max_age: timedelta = timedelta(hours=1),
        rediscover_seconds: float = 300.0,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.api = api
        self.send = send
        self.cluster = cluster
        self.namespaces = namespaces or []
        self.reported = reported or MemoryReported()
        self.watch_timeout = watch_timeout
        self.backoff = backoff
        self.max_restarts = max_restarts
        self.max_age = max_age
        self.now = now
        self.stop_event = threading.Event()
        self.outbox: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self.sent: list[dict[str, Any]] = []  # bodies sent successfully (bounded), for status and tests
        self.kinds: list[str] = []
        self._threads: list[threading.Thread] = []
        self._targets: list[Target] = []
        self.rediscover_seconds = rediscover_seconds
        self.last_contact = self.now()  # last successful list, watch event or clean watch end

    def healthy(self) -> bool:
        """Every thread alive and the API server answered recently (for the /healthz probe)."""
        alive = bool(self._threads) and all(t.is_alive() for t in self._threads)
        recent = self.now() - self.last_contact < timedelta(seconds=3 * self.watch_timeout + 60)
        return alive and recent and not self.stop_event.is_set()

    # ------------------------------------------------------------------ targets
    def targets(self, kinds: set[str]) -> list[Target]:
        batch, core, custom = (
            client.BatchV1Api(self.api),
            client.CoreV1Api(self.api),
            client.CustomObjectsApi(self.api),
        )
        pod_selectors = [JOB_NAME_LABELS[0]] + ([KF_JOB_NAME] if "PyTorchJob" in kinds else [])
        out: list[Target] = []
        for ns in self.namespaces or [None]:
            out.append(
                Target("Job", batch.list_namespaced_job, (ns,))
                if ns
                else Target("Job", batch.list_job_for_all_namespaces)
            )
            for sel in pod_selectors:
                out.append(
                    Target("Pod", core.list_namespaced_pod, (ns,), {"label_selector": sel})
                    if ns
                    else Target("Pod", core.list_pod_for_all_namespaces, (), {"label_selector": sel})
                )
            for kind, (group, version, plural) in (("PyTorchJob", PYTORCHJOB), ("JobSet", JOBSET)):
                if kind in kinds:
                    out.append(
                        Target(kind, custom.list_namespaced_custom_object, (group, version, ns, plural))
                        if ns
                        else Target(kind, custom.list_cluster_custom_object, (group, version, plural))
                    )
        return out

    # ------------------------------------------------------------------ running
    def start(self) -> None:
        """Discover, then start the watch threads and the sender thread (daemons); returns at once."""
        kinds = self._discover_with_retry()
        self._watch(kinds)
        self._spawn("sender", self.sender_loop)
        if self.rediscover_seconds:
            self._spawn("rediscover", self.rediscover_loop)

    def _watch(self, kinds: set[str]) -> None:
        """Start watching `kinds` (and the pods that go with them) that are not watched yet."""
        known = {t.label for t in self._targets}
        for target in self.targets(kinds):
            if target.label not in known:
                self._targets.append(target)
                self._spawn(f"watch-{target.label}", lambda t=target: self.watch_loop(t))
        self.kinds = ["Job", *sorted(kinds | set(self.kinds[1:]))]

    def rediscover_loop(self) -> None:
        """CRDs installed after start-up (Kubeflow, JobSet) are picked up without a restart."""
        while not self.stop_event.wait(self.rediscover_seconds):
            try:
                found = discover(self.api)
            except (ApiException, urllib3.exceptions.HTTPError, OSError, ValueError) as exc:
                log.warning("re-discovery failed (%s)", type(exc).__name__)
                continue
            if found - set(self.kinds):
                log.info("new training-job kinds served: %s", sorted(found - set(self.kinds)))
                self._watch(found | set(self.kinds[1:]))

    def _spawn(self, name: str, fn: Callable[[], None]) -> None:
        thread = threading.Thread(target=fn, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        for thread in self._threads:
            thread.join(timeout)

    def run_forever(self) -> None:
        self.start()
        while not self.stop_event.wait(1.0):
            pass

    def _discover_with_retry(self) -> set[str]:
        delay = self.backoff[0]
        while not self.stop_event.is_set():
            try:
                return discover(self.api)
            except (ApiException, urllib3.exceptions.HTTPError, OSError) as exc:
                log.warning("discovery failed (%s); retrying in %.1fs", type(exc).__name__, delay)
                self.stop_event.wait(delay)
                delay = min(delay * 2, self.backoff[1])
        return set()

    def watch_loop(self, target: Target) -> None:
        """List then watch `target` until stopped (resume on rv, re-list on 410, back off on errors)."""
        rv: str | None = None
        delay = self.backoff[0]
        while not self.stop_event.is_set():
            try:
                if rv is None:
                    rv = self._relist(target)
                w = watch.Watch()
                for event in w.stream(
                    target.fn,
                    *target.args,
                    resource_version=rv,
                    allow_watch_bookmarks=True,
                    timeout_seconds=self.watch_timeout,
                    _request_timeout=(10, self.watch_timeout + 30),
                    **target.kwargs,
                ):
                    if event["type"] in ("ADDED", "MODIFIED"):
                        self.check(target.kind, event["raw_object"])
                    # advanced only after the event was handled: an error re-delivers it
                    rv = w.resource_version or rv
                    self.last_contact = self.now()
                    if self.stop_event.is_set():
                        w.stop()
                delay = self.backoff[0]
                self.last_contact = self.now()
            except ApiException as exc:
                if exc.status == 410:
                    log.info("%s: resourceVersion %s expired (410); re-listing", target.label, rv)
                    rv = None
                    continue
                log.warning(
                    "%s: API error %s %s; retrying in %.1fs", target.label, exc.status, exc.reason, delay
                )
                delay = self._pause(delay)
            except (urllib3.exceptions.HTTPError, OSError, ValueError) as exc:
                log.warning(
                    "%s: connection lost (%s); resuming from %s in %.1fs",
                    target.label,
                    type(exc).__name__,
                    rv,
                    delay,
                )
                delay = self._pause(delay)
            except Exception:  # an object we could not handle: keep watching, it is re-delivered
                log.exception("%s: unexpected error; retrying in %.1fs", target.label, delay)
                delay = self._pause(delay)

    def _pause(self, delay: float) -> float:
        self.stop_event.wait(delay)
        return min(delay * 2, self.backoff[1])

    def _relist(self, target: Target) -> str:
        first = target.fn(*target.args, limit=1, **target.kwargs)
        rv = (
            first["metadata"]["resourceVersion"]
            if isinstance(first, dict)
            else first.metadata.resource_version
        )
        for item in list_all(target.fn, *target.args, **target.kwargs):
            self.check(
                target.kind, item if isinstance(item, dict) else self.api.sanitize_for_serialization(item)
            )
        self.last_contact = self.now()
        return str(rv)

    # ------------------------------------------------------------------ failures
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
            body = self.payload(failure, owner.obj if owner else {}, uid)
        except Exception:
            self.reported.release(key)
            raise
        self.outbox.put((key, body))

    def payload(self, failure: Failure, owner: dict[str, Any], uid: str | None) -> dict[str, Any]:
        core = client.CoreV1Api(self.api)
        selector = {
            "PyTorchJob": f"{KF_JOB_NAME}={failure.name}",
            "JobSet": f"jobset.sigs.k8s.io/jobset-name={failure.name}",
        }.get(failure.kind, f"{JOB_NAME_LABELS[0]}={failure.name}")
        pods = list(list_all(core.list_namespaced_pod, failure.namespace, label_selector=selector))
        pods_out = [
            pod_summary(self.api.sanitize_for_serialization(r.pod), r.rank, main_container(r.pod))
            for r in assign_ranks(pods)
        ]
        status = owner.get("status") or {}
        start = status.get("startTime") or (owner.get("metadata") or {}).get("creationTimestamp")
        end = failure.at or self.now()
        return {
            "cluster": self.cluster,
            "namespace": failure.namespace,
            "kind": failure.kind,
            "name": failure.name,
            "uid": uid,
            "state": "Failed",
            "reason": failure.reason[:256],
            "message": failure.message[:4000],
            "pods": pods_out,
            "start": start,
            "end": end.isoformat() if isinstance(end, datetime) else end,
        }

    # ------------------------------------------------------------------ sending
    def sender_loop(self) -> None:
        while not self.stop_event.is_set():
            try:
                key, body = self.outbox.get(timeout=0.2)
            except queue.Empty:
                continue
            delay = self.backoff[0]
            while not self.stop_event.is_set():
                try:
                    self.send(body)
                    self.reported.confirm(key)
                    self.sent.append(body)
                    del self.sent[:-1000]
                    log.info(
                        "reported %s %s/%s (%s)",
                        body["kind"],
                        body["namespace"],
                        body["name"],
                        body["reason"],
                    )
                    break
                except SendError as exc:
                    if not exc.retry:
                        # Rejected (bad secret, bad body): drop it but do not mark it reported, so a
                        # watcher restarted with a fixed configuration finds and sends it again.
                        log.error("report of %s rejected: %s", key, exc)
                        self.reported.release(key)
                        break
                    log.warning("report of %s failed (%s); retrying in %.1fs", key, exc, delay)
                    delay = self._pause(delay)
                except Exception:
                    log.exception("report of %s could not be sent", key)
                    self.reported.release(key)
                    break
