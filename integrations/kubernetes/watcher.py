"""`denpex watch-k8s`: list+watch training jobs and their pods, report each failed job once.

The `Watcher` composes three parts, one concern each:

- `watching.Informer` — one thread per watched resource (Jobs, pods of Jobs, and — when discovery
  shows their CRDs — PyTorchJobs, their pods and JobSets): list, watch, resume, re-list on 410;
- `reporting.Reporter` — a failed object becomes one `KubernetesReport` of its training job;
- `sender.Outbox` — the sender thread, which retries while the Denpex server is unreachable.

`reported` makes sure one job is sent once, across re-lists, 410s and restarts. The watcher itself
discovers the optional kinds (again every `rediscover_seconds`, so CRDs installed later are picked
up) and supervises the threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog
import urllib3
from kubernetes import client
from kubernetes.client.rest import ApiException

from integrations.kubernetes.api import JOBSET, PYTORCHJOB
from integrations.kubernetes.ranks import JOB_NAME_LABELS, KF_JOB_NAME
from integrations.kubernetes.reported import MemoryReported, Reported
from integrations.kubernetes.reporting import Reporter
from integrations.kubernetes.sender import Outbox, Send
from integrations.kubernetes.watching import Backoff, Informer, Target, discover

log = structlog.get_logger("denpex.k8s.watcher")

__all__ = ["Target", "WatchOptions", "Watcher", "discover"]


@dataclass(frozen=True)
class WatchOptions:
    """What `denpex watch-k8s` watches and how patiently."""

    cluster: str
    #: namespaces to watch; empty: all of them
    namespaces: tuple[str, ...] = ()
    #: seconds per watch request before it is renewed from the last resourceVersion
    watch_timeout: int = 300
    #: first and longest wait between retries (seconds)
    backoff: tuple[float, float] = (0.5, 30.0)
    #: a crash-looping pod with this many restarts counts as failed
    max_restarts: int = 3
    #: a failure older than this when first seen is not reported
    max_age: timedelta = timedelta(hours=1)
    #: how often to look for newly installed training-job CRDs (0: never)
    rediscover_seconds: float = 300.0


class Watcher:
    def __init__(
        self,
        api: client.ApiClient,
        send: Send,
        options: WatchOptions,
        *,
        reported: Reported | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.api, self.options, self.now = api, options, now
        self.reported = reported or MemoryReported()
        self.stop_event = threading.Event()
        self.outbox = Outbox(send, self.reported, stop=self.stop_event, backoff=options.backoff)
        self.reporter = Reporter(
            api,
            self.outbox.put,
            self.reported,
            cluster=options.cluster,
            max_restarts=options.max_restarts,
            max_age=options.max_age,
            now=now,
        )
        self.kinds: list[str] = []
        self._threads: list[threading.Thread] = []
        self._targets: list[Target] = []
        self.last_contact = self.now()  # last successful list, watch event or clean watch end

    def healthy(self) -> bool:
        """Every thread alive and the API server answered recently (for the /healthz probe)."""
        alive = bool(self._threads) and all(t.is_alive() for t in self._threads)
        recent = self.now() - self.last_contact < timedelta(seconds=3 * self.options.watch_timeout + 60)
        return alive and recent and not self.stop_event.is_set()

    def _contact(self) -> None:
        self.last_contact = self.now()

    # ------------------------------------------------------------------ targets
    def targets(self, kinds: set[str]) -> list[Target]:
        batch, core, custom = (
            client.BatchV1Api(self.api),
            client.CoreV1Api(self.api),
            client.CustomObjectsApi(self.api),
        )
        pod_selectors = [JOB_NAME_LABELS[0]] + ([KF_JOB_NAME] if "PyTorchJob" in kinds else [])
        out: list[Target] = []
        for ns in self.options.namespaces or (None,):
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
        self._spawn("sender", self.outbox.run)
        if self.options.rediscover_seconds:
            self._spawn("rediscover", self.rediscover_loop)

    def _watch(self, kinds: set[str]) -> None:
        """Start watching `kinds` (and the pods that go with them) that are not watched yet."""
        known = {t.label for t in self._targets}
        for target in self.targets(kinds):
            if target.label not in known:
                self._targets.append(target)
                informer = Informer(
                    self.api,
                    target,
                    self.reporter.check,
                    stop=self.stop_event,
                    watch_timeout=self.options.watch_timeout,
                    backoff=self.options.backoff,
                    on_contact=self._contact,
                )
                self._spawn(f"watch-{target.label}", informer.run)
        self.kinds = ["Job", *sorted(kinds | set(self.kinds[1:]))]

    def rediscover_loop(self) -> None:
        """CRDs installed after start-up (Kubeflow, JobSet) are picked up without a restart."""
        while not self.stop_event.wait(self.options.rediscover_seconds):
            try:
                found = discover(self.api)
            except (ApiException, urllib3.exceptions.HTTPError, OSError, ValueError) as exc:
                log.warning("k8s_rediscovery_failed", error=type(exc).__name__)
                continue
            if found - set(self.kinds):
                log.info("k8s_new_kinds_served", kinds=sorted(found - set(self.kinds)))
                self._watch(found | set(self.kinds[1:]))

    def _spawn(self, name: str, fn: Callable[[], Any]) -> None:
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
        backoff = Backoff(self.stop_event, *self.options.backoff)
        while not self.stop_event.is_set():
            try:
                return discover(self.api)
            except (ApiException, urllib3.exceptions.HTTPError, OSError) as exc:
                log.warning("k8s_discovery_failed", error=type(exc).__name__, retry_in=backoff.delay)
                backoff.pause()
        return set()
