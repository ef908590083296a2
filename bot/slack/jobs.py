"""What `/denpex diagnose` needs from the pipeline: find the job, then queue it.

`JobResolver` answers "which scheduler runs cluster X, and does it know job Y?" so an unknown id or
cluster gets an ephemeral reply instead of a silent worker failure. The look-ups themselves are the
integrations' (`integrations.slurm.lookup`, `integrations.kubernetes.lookup`), on clients the
composition root built once. `PipelineSubmitter` hands the job to the pipeline's one `Admission`,
the same one the webhooks use.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from denpex.core.facts import slack_request_fact
from denpex.core.ids import K8S_NAMESPACED_NAME, is_safe_id
from denpex.core.models import JobRef, Scheduler
from denpex.core.settings import Settings
from integrations import safeopen
from workers.admission import Admission, Admitted, JobEvent

if TYPE_CHECKING:
    from integrations.kubernetes import ApiClient
    from integrations.slurm.commands import SlurmBackend


class UnknownCluster(LookupError):
    def __init__(self, cluster: str, known: list[str]) -> None:
        super().__init__(cluster)
        self.cluster, self.known = cluster, known


class UnknownJobId(LookupError):
    pass


class LinkedJobFolder(LookupError):
    """The job's folder under `DENPEX_LOG_ROOT` is a link (or is reached through one). The collector
    opens folders without following links, so queueing it would only fail on every retry."""

    def __init__(self, cluster: str, job_id: str, *, outside: bool) -> None:
        super().__init__(f"{cluster}/{job_id}")
        self.cluster, self.job_id, self.outside = cluster, job_id, outside


class JobResolver(Protocol):
    async def resolve(self, cluster: str | None, job_id: str) -> JobRef: ...


class DefaultResolver:
    """Clusters from `DENPEX_LOG_ROOT/<cluster>/` (files), `DENPEX_CLUSTER` (Slurm, when a backend
    is given) and `DENPEX_K8S_CLUSTER` (Kubernetes, through the given `ApiClient`)."""

    def __init__(
        self, settings: Settings, *, slurm: SlurmBackend | None = None, kube: ApiClient | None = None
    ) -> None:
        self.settings, self.slurm, self.kube = settings, slurm, kube

    def clusters(self) -> dict[str, Scheduler]:
        found: dict[str, Scheduler] = {}
        root = self.settings.log_root
        if root is not None and root.is_dir():
            for child in sorted(root.iterdir()):
                if child.is_dir() and is_safe_id(child.name):
                    found[child.name] = Scheduler.files
        if self.slurm is not None:
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
        if scheduler is Scheduler.slurm:
            return self._slurm(name, job_id)
        self._files_folder(name, job_id)
        return JobRef(scheduler=scheduler, cluster=name, job_id=job_id)

    def _files_folder(self, cluster: str, job_id: str) -> None:
        """The job's folder exists and is opened as the collector opens it: no link followed."""
        root = self.settings.log_root
        assert root is not None
        try:
            with safeopen.opened_dir(root, [cluster, job_id]):
                return
        except safeopen.Refused as exc:
            if not exc.link:
                raise UnknownJobId(job_id) from None
            outside = not (root / cluster / job_id).resolve().is_relative_to(root.resolve())
            raise LinkedJobFolder(cluster, job_id, outside=outside) from None
        except OSError:
            raise UnknownJobId(job_id) from None

    def _slurm(self, cluster: str, job_id: str) -> JobRef:
        from integrations.slurm.lookup import find_job

        assert self.slurm is not None
        found = find_job(self.slurm, cluster, job_id)
        if found is None:
            raise UnknownJobId(job_id)
        return found

    def _kubernetes(self, cluster: str, job_id: str) -> JobRef:
        from integrations.kubernetes.lookup import find_job

        match = K8S_NAMESPACED_NAME.match(job_id)
        if match is None:
            raise UnknownJobId(job_id)
        if self.kube is None:  # DENPEX_K8S_CLUSTER is set but no cluster could be reached
            raise UnknownCluster(cluster, [])
        namespace, name = match.groups()
        found = find_job(self.kube, cluster, namespace, name)
        if found is None:
            raise UnknownJobId(job_id)
        return found

    async def resolve(self, cluster: str | None, job_id: str) -> JobRef:
        return await asyncio.to_thread(self._resolve, cluster, job_id)


@dataclass
class SubmitResult:
    queued: bool  # False: the job was already reported/diagnosed (the pipeline's dedupe gate)
    job_key: str


class Submitter(Protocol):
    async def submit(self, job: JobRef, channel: str | None = None) -> SubmitResult: ...


class PipelineSubmitter:
    """Queue through the pipeline's own `Admission` (dedupe gate, masked job record, RQ job), exactly
    as a webhook would. The worker then takes the quota and posts."""

    def __init__(self, admission: Admission) -> None:
        self.admission = admission

    async def submit(self, job: JobRef, channel: str | None = None) -> SubmitResult:
        event = JobEvent(job=job, facts=[slack_request_fact(job.job_id, job.cluster)], channel=channel)
        admitted = await self.admission.accept(event)
        return SubmitResult(admitted is Admitted.queued, event.dedupe_key)
