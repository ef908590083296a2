"""`KubernetesCollector`: every rank's pod log, termination facts, events and node kernel logs of one job.

Pod logs are not read here: each becomes a `LogSource` whose `chunks` opens the log request only
when the engine iterates it and streams it in 256 KiB pieces, so a thousand-rank job never sits in
the worker's memory. Facts (owner conditions, container termination states, pod events) are plain
lines in two `kind="scheduler"` sources; node kernel logs come from `kernel.KernelLogs`, and the pods'
PyTorch Flight Recorder dumps from the same node agents (`dumps.AgentDumps`), fetched when read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog
import urllib3
from kubernetes import client
from kubernetes.client import V1ContainerStatus, V1Pod
from kubernetes.client.rest import ApiException

from denpex.core.ids import split_k8s_job_id
from denpex.core.models import Evidence, JobRef, LogSource, MissingEvidence
from denpex.core.texts import k8s as texts
from integrations.base import CollectorError, UnknownJob
from integrations.kubernetes import facts
from integrations.kubernetes.api import Owner, find_owner, list_all, pod_name, pod_namespace, pod_node
from integrations.kubernetes.dumps import AgentDumps, DumpOptions
from integrations.kubernetes.kernel import KernelLogOptions, KernelLogs
from integrations.kubernetes.ranks import RankedPod, assign_ranks, main_container

log = structlog.get_logger("denpex.k8s.collector")

CHUNK = 256 << 10


class KubernetesCollector:
    """Implements `integrations.base.Collector` for `JobRef.scheduler == kubernetes`.

    `job.job_id` is the Job's name, or `<Kind>/<name>` for a PyTorchJob or JobSet (the id the server
    gives them), and `job.namespace` its namespace.
    """

    def __init__(
        self,
        api_client: client.ApiClient,
        *,
        kernel: KernelLogOptions | None = None,
        tail_lines: int = 100_000,
        limit_bytes: int = 64 << 20,
        request_timeout: float = 60.0,
        kernel_parallel: int = 8,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        dumps: DumpOptions | None = None,
    ) -> None:
        self.api = api_client
        self.core = client.CoreV1Api(api_client)
        self.kernel = kernel or KernelLogOptions()
        self.tail_lines = tail_lines
        self.limit_bytes = limit_bytes
        self.request_timeout = request_timeout
        self.kernel_parallel = kernel_parallel
        self.now = now
        self.dumps = dumps or DumpOptions()

    # ------------------------------------------------------------------ the protocol
    def collect(self, job: JobRef) -> Evidence:
        namespace = job.namespace or "default"
        kind, name = split_k8s_job_id(job.job_id)
        try:
            owner = find_owner(self.api, namespace, name, kind)
            pods = self._pods(owner, namespace, name)
            if owner is None and not pods:
                raise UnknownJob(f"no Job, PyTorchJob or JobSet {namespace}/{name}")
            missing: list[MissingEvidence] = []
            if owner is None:
                what, action = texts.missing_job(namespace, name)
                missing.append(MissingEvidence(what=what, next_action=action))
                owner = Owner(kind or "Job", namespace, name)
            if not pods:
                what, action = texts.missing_pods(owner.kind, namespace, name)
                return Evidence(job=job, missing=[MissingEvidence(what=what, next_action=action)])
            ranked = assign_ranks(pods)
            sources = self._facts(owner, ranked)
            sources += self._logs(job, ranked, missing)
            nodes = sorted({node for r in ranked if (node := pod_node(r.pod))})
            kernel = KernelLogs(self.api, self.kernel)
            kernel.agents()  # list the node-agents once, before the threads share the result
            sources += self._kernel(job, ranked, nodes, missing, kernel)
            sources += self._dumps(ranked, kernel, missing)
        except (ApiException, urllib3.exceptions.HTTPError) as exc:
            raise CollectorError(f"Kubernetes API: {getattr(exc, 'status', '')} {exc}".strip()) from exc
        job = job.model_copy(update={"nodes": job.nodes or nodes})
        return Evidence(job=job, sources=sources, missing=missing)

    # ------------------------------------------------------------------ pods and ranks
    def _pods(self, owner: Owner | None, namespace: str, name: str) -> list[V1Pod]:
        """The job's pods; without an owner object (deleted), every kind's pod label is tried."""
        if owner is not None:
            selectors = owner.pod_selectors()
        else:
            selectors = [
                s
                for kind in ("Job", "PyTorchJob", "JobSet")
                for s in Owner(kind, namespace, name).pod_selectors()
            ]
        for selector in selectors:
            pods = list(list_all(self.core.list_namespaced_pod, namespace, label_selector=selector))
            if pods:
                return pods
        return []

    def _facts(self, owner: Owner, ranked: list[RankedPod]) -> list[LogSource]:
        lines = list(facts.condition_lines(owner.kind, owner.namespace, owner.name, owner.conditions))
        lines.append(
            f"k8s: {owner.kind} {owner.namespace}/{owner.name} pods={len(ranked)} "
            f"failed={sum(1 for r in ranked if r.pod.status and r.pod.status.phase == 'Failed')}"
        )
        for r in ranked:
            lines.extend(facts.pod_lines(r.pod, r.rank))
        ranks = {pod_name(r.pod): r.rank for r in ranked}
        wanted = set(ranks) | {owner.name}
        events = [
            ev
            for ev in list_all(self.core.list_namespaced_event, owner.namespace)
            if ev.involved_object and ev.involved_object.name in wanted
        ]
        out = [LogSource(name="k8s-pod-status", kind="scheduler", data=("\n".join(lines) + "\n").encode())]
        if events:
            text = "\n".join(facts.event_lines(events, ranks)) + "\n"
            out.append(LogSource(name="kube-events", kind="scheduler", data=text.encode()))
        return out

    # ------------------------------------------------------------------ container logs
    def _logs(self, job: JobRef, ranked: list[RankedPod], missing: list[MissingEvidence]) -> list[LogSource]:
        since = None
        if job.start is not None:
            start = job.start if job.start.tzinfo else job.start.replace(tzinfo=UTC)
            since = max(1, int((self.now() - start + timedelta(minutes=10)).total_seconds()))
        out = []
        for r in ranked:
            pod, name = r.pod, pod_name(r.pod)
            container = main_container(pod)
            status = _status(pod, container)
            node = pod_node(pod)
            if status is not None and _never_ran(status):
                reason = (
                    status.state.waiting.reason if status.state and status.state.waiting else "not started"
                )
                what, action = texts.missing_pod_log(name, container, f"container never ran: {reason}")
                missing.append(MissingEvidence(what=what, next_action=action))
                continue
            out.append(
                LogSource(
                    name=f"{name}.{container}.log",
                    kind="rank",
                    rank=r.rank,
                    node=node,
                    chunks=self._stream(pod, container, previous=False, since_seconds=since),
                )
            )
            if status is not None and (
                status.restart_count or (status.last_state and status.last_state.terminated)
            ):
                out.append(
                    LogSource(
                        name=f"{name}.{container}.previous.log",
                        kind="rank",
                        rank=r.rank,
                        node=node,
                        chunks=self._stream(pod, container, previous=True, since_seconds=since),
                    )
                )
        return out

    def _stream(
        self, pod: V1Pod, container: str, *, previous: bool, since_seconds: int | None
    ) -> Callable[[], Iterator[bytes]]:
        namespace, name = pod_namespace(pod), pod_name(pod)

        def chunks() -> Iterator[bytes]:
            try:
                resp: Any = self.core.read_namespaced_pod_log(  # a urllib3 response: _preload_content
                    name,
                    namespace,
                    container=container,
                    previous=previous or None,
                    tail_lines=self.tail_lines,
                    limit_bytes=self.limit_bytes,
                    since_seconds=since_seconds,
                    _preload_content=False,
                    _request_timeout=self.request_timeout,
                )
            except ApiException as exc:  # the pod went away, or no previous instance: nothing to read
                log.info(
                    "pod_log_unavailable",
                    namespace=namespace,
                    pod=name,
                    container=container,
                    previous=previous,
                    status=exc.status,
                )
                return
            try:
                yield from resp.stream(CHUNK)
            finally:
                resp.release_conn()

        return chunks

    # ------------------------------------------------------------------ node kernel logs
    def _kernel(
        self,
        job: JobRef,
        ranked: list[RankedPod],
        nodes: list[str],
        missing: list[MissingEvidence],
        kernel: KernelLogs,
    ) -> list[LogSource]:
        starts = [r.pod.status.start_time for r in ranked if r.pod.status and r.pod.status.start_time]
        since = job.start or (min(starts) if starts else self.now() - timedelta(hours=6))
        until = job.end or self.now()
        since = since if since.tzinfo else since.replace(tzinfo=UTC)
        until = until if until.tzinfo else until.replace(tzinfo=UTC)
        with ThreadPoolExecutor(max_workers=self.kernel_parallel) as pool:  # nodes answer independently
            results = list(pool.map(lambda node: kernel.fetch(node, since, until), nodes))
        out = []
        for node, result in zip(nodes, results, strict=True):
            if result.data is None:
                what, action = texts.missing_kernel_log(node, result.why)
                missing.append(MissingEvidence(what=what, next_action=action))
                continue
            out.append(LogSource(name=f"node-{node}.kern.log", kind="kernel", node=node, data=result.data))
        return out

    # ------------------------------------------------------------------ Flight Recorder dumps
    def _dumps(
        self, ranked: list[RankedPod], kernel: KernelLogs, missing: list[MissingEvidence]
    ) -> list[LogSource]:
        """Each pod's dumps from its node's agent (the pods' trace volume); agents without one say 404."""
        agents = kernel.agents()
        token = self.kernel.token
        if not (self.dumps.enabled and token and agents):
            return []
        fetcher = AgentDumps(token, self.dumps)
        asks = [(agents[node], node, r) for r in ranked if (node := pod_node(r.pod)) in agents]
        with ThreadPoolExecutor(max_workers=self.kernel_parallel) as pool:
            answers = list(
                pool.map(lambda a: fetcher.pod(a[0], a[1], pod_namespace(a[2].pod), pod_name(a[2].pod)), asks)
            )
        out: list[LogSource] = []
        for answer in answers:
            out += answer.sources
            missing += answer.missing
        return out


def _status(pod: V1Pod, container: str) -> V1ContainerStatus | None:
    for status in (pod.status.container_statuses or []) if pod.status else []:
        if status.name == container:
            return status
    return None


def _never_ran(status: V1ContainerStatus) -> bool:
    state = status.state
    started = bool(state and (state.running or state.terminated))
    return (
        not started and not status.restart_count and not (status.last_state and status.last_state.terminated)
    )
