"""What `/denpex diagnose` needs from the pipeline: find the job, then queue it.

`JobResolver` answers "which scheduler runs cluster X, and does it know job Y?" so an unknown id or
cluster gets an ephemeral reply instead of a silent worker failure. `PipelineSubmitter` puts the job
on the pipeline's queue through the server's own admission path, the same one the webhooks use.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rq import Queue

from bot.payloads import JobEvent
from denpex.models import JobRef, Scheduler
from denpex.settings import Settings

if TYPE_CHECKING:
    from bot.server import ServerDeps

SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$")
#: a Kubernetes training job as `<namespace>/<name>` (DNS-1123 names)
K8S_ID = re.compile(r"^([a-z0-9][-a-z0-9]{0,62})/([a-z0-9][-a-z0-9.]{0,252})$")


class UnknownCluster(LookupError):
    def __init__(self, cluster: str, known: list[str]) -> None:
        super().__init__(cluster)
        self.cluster, self.known = cluster, known


class UnknownJobId(LookupError):
    pass


class JobResolver(Protocol):
    async def resolve(self, cluster: str | None, job_id: str) -> JobRef: ...


class DefaultResolver:
    """Clusters from `DENPEX_LOG_ROOT/<cluster>/` (files), `DENPEX_CLUSTER` (Slurm, via `sacct`) and
    `DENPEX_K8S_CLUSTER` (Kubernetes, found the standard way: KUBECONFIG or in-cluster)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def clusters(self) -> dict[str, Scheduler]:
        found: dict[str, Scheduler] = {}
        root = self.settings.log_root
        if root is not None and root.is_dir():
            for child in sorted(root.iterdir()):
                if child.is_dir() and SAFE_ID.match(child.name):
                    found[child.name] = Scheduler.files
        if shutil.which("sacct"):
            found.setdefault(self.settings.cluster, Scheduler.slurm)
        if self.settings.k8s_cluster:
            found[self.settings.k8s_cluster] = Scheduler.kubernetes
        return found

    def _resolve(self, cluster: str | None, job_id: str) -> JobRef:
        clusters = self.clusters()
        name = cluster or (self.settings.cluster if self.settings.cluster in clusters else None)
        if name is None and len(clusters) == 1:
            name = next(iter(clusters))
        if name is None or name not in clusters:
            raise UnknownCluster(cluster or self.settings.cluster, sorted(clusters))
        scheduler = clusters[name]
        if scheduler is Scheduler.kubernetes:
            return self._kubernetes(name, job_id)
        if "/" in job_id:
            raise UnknownJobId(job_id)
        if scheduler is Scheduler.files:
            assert self.settings.log_root is not None
            if not (self.settings.log_root / name / job_id).is_dir():
                raise UnknownJobId(job_id)
        elif scheduler is Scheduler.slurm:
            out = subprocess.run(
                ["sacct", "-n", "-X", "-P", "-j", job_id, "-o", "JobID,State,User,JobName"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
            row = next((ln.split("|") for ln in out.stdout.splitlines() if ln.strip()), None)
            if row is None:
                raise UnknownJobId(job_id)
            return JobRef(
                scheduler=scheduler,
                cluster=name,
                job_id=job_id,
                state=row[1] or None,
                user=row[2] or None,
                name=row[3] if len(row) > 3 else None,
            )
        return JobRef(scheduler=scheduler, cluster=name, job_id=job_id)

    def _kubernetes(self, cluster: str, job_id: str) -> JobRef:
        from integrations.kubernetes import NotConfigured, job_id_of

        match = K8S_ID.match(job_id)
        if match is None:
            raise UnknownJobId(job_id)
        namespace, name = match.groups()
        try:
            found = job_id_of(namespace, name)
        except NotConfigured as exc:  # DENPEX_K8S_CLUSTER is set but no cluster can be reached
            raise UnknownCluster(cluster, []) from exc
        if found is None:
            raise UnknownJobId(job_id)
        return JobRef(scheduler=Scheduler.kubernetes, cluster=cluster, namespace=namespace, job_id=found)

    async def resolve(self, cluster: str | None, job_id: str) -> JobRef:
        return await asyncio.to_thread(self._resolve, cluster, job_id)


@dataclass
class SubmitResult:
    queued: bool  # False: the job was already reported/diagnosed (the pipeline's dedupe gate)
    work: str


class Submitter(Protocol):
    async def submit(self, job: JobRef, channel: str | None = None) -> SubmitResult: ...


Accept = Callable[[JobEvent], Awaitable[str]]


class PipelineSubmitter:
    """Queue through the pipeline's own admission (`bot.server.Hooks.accept`: dedupe gate, masked job
    record, RQ job), exactly as a webhook would. The worker then takes the quota and posts."""

    def __init__(self, accept: Accept) -> None:
        self.accept = accept

    async def submit(self, job: JobRef, channel: str | None = None) -> SubmitResult:
        fact = f"slack: /denpex diagnose {job.job_id} --cluster {job.cluster}"
        event = JobEvent(job=job, facts=[fact], channel=channel)
        return SubmitResult(await self.accept(event) == "queued", event.dedupe_key)


def pipeline_submitter(settings: Settings, deps: ServerDeps) -> PipelineSubmitter:
    """A submitter on the server's deps (its Redis clients, queue and masker)."""
    from bot.metrics import create_metrics
    from bot.server import Hooks

    if deps.queue is None:
        deps.queue = Queue(settings.queue_name, connection=deps.redis)
    if deps.metrics is None:
        deps.metrics = create_metrics(deps.redis, settings.queue_name)
    return PipelineSubmitter(Hooks(settings, deps).accept)
