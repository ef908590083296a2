"""Webhook bodies as validated models, each turned into one `JobEvent` for the queue.

Every route accepts unknown fields (senders grow) but validates the ones it uses, so a bad body is
rejected at the door with the name of the field, instead of failing in a worker minutes later.
Identifiers that end up in Redis keys and file paths are restricted to the safe-id pattern, and
Kubernetes jobs get their pipeline id, both from `denpex.core.ids`; the fact lines come from
`denpex.core.facts`, the same builders the collectors use. The Kubernetes body is the watcher's own
wire model (`integrations.kubernetes.report`), so the two sides cannot drift apart.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from denpex.core import facts
from denpex.core.ids import MAX_ID_LENGTH, SAFE_ID_PATTERN, k8s_job_id
from denpex.core.models import JobRef, Scheduler
from integrations.hostlist import HostlistError, expand
from integrations.kubernetes.report import KubernetesReport, PodReport
from workers.admission import JobEvent

ClusterStr = Field(min_length=1, max_length=128, pattern=SAFE_ID_PATTERN)
IdStr = Field(min_length=1, max_length=MAX_ID_LENGTH, pattern=SAFE_ID_PATTERN)
#: the watcher's wire model is the Kubernetes route's body
KubernetesBody = KubernetesReport
PodBody = PodReport


class PayloadError(ValueError):
    """A body failed validation; `field` names the offending field (dotted path for nested ones)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _id(value: Any) -> Any:
    """Scheduler ids arrive as numbers from some senders; keep them as strings."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class SlurmJobBody(_Body):
    cluster: str = ClusterStr
    job_id: str = IdStr
    state: str = Field(min_length=1, max_length=64)
    exit_code: str | None = Field(default=None, max_length=32)
    nodes: list[str] | None = Field(default=None, max_length=65536)
    node_list: str | None = Field(default=None, max_length=65536)
    user: str | None = Field(default=None, max_length=128)
    name: str | None = Field(default=None, max_length=512)
    work_dir: str | None = Field(default=None, max_length=4096)
    stdout: str | None = Field(default=None, max_length=4096)
    stderr: str | None = Field(default=None, max_length=4096)
    start: datetime | None = None
    end: datetime | None = None
    array_job_id: str | None = Field(default=None, max_length=64)
    array_task_id: str | None = Field(default=None, max_length=64)
    het_job_id: str | None = Field(default=None, max_length=64)
    restart_count: int = Field(default=0, ge=0, le=100000)

    _ids = field_validator(
        "job_id", "exit_code", "array_job_id", "array_task_id", "het_job_id", mode="before"
    )(_id)

    @field_validator("nodes")
    @classmethod
    def _node_names(cls, value: list[str] | None) -> list[str] | None:
        for name in value or []:
            if not name or len(name) > 255 or any(c.isspace() or c in "/[],\\" for c in name):
                raise ValueError(f"invalid node name {name[:64]!r}")
        return value

    def node_names(self) -> list[str]:
        if self.nodes:
            return list(dict.fromkeys(self.nodes))
        if self.node_list and self.node_list not in ("(null)", "None"):
            try:
                return expand(self.node_list)
            except HostlistError as exc:
                raise PayloadError("node_list", str(exc)) from exc
        return []


class SlurmNodeBody(_Body):
    cluster: str = ClusterStr
    job_id: str = IdStr
    node: str = Field(min_length=1, max_length=255, pattern=SAFE_ID_PATTERN)
    kernel_log: str = Field(max_length=64 << 20)
    since: datetime | None = None
    truncated: bool = False

    _ids = field_validator("job_id", mode="before")(_id)


class FilesJobBody(_Body):
    cluster: str = ClusterStr
    job_id: str = IdStr
    state: str | None = Field(default=None, max_length=64)
    exit_code: str | None = Field(default=None, max_length=32)
    user: str | None = Field(default=None, max_length=128)
    name: str | None = Field(default=None, max_length=512)

    _ids = field_validator("job_id", "exit_code", mode="before")(_id)


class Alert(_Body):
    status: str = "firing"
    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    startsAt: datetime | None = None  # Alertmanager's field names
    endsAt: datetime | None = None


class AlertmanagerBody(_Body):
    version: str | None = None
    status: str | None = None
    alerts: list[Alert] = Field(min_length=1, max_length=10000)

    @model_validator(mode="after")
    def _v4(self) -> AlertmanagerBody:
        if self.version not in (None, "4"):
            raise ValueError(f"unsupported Alertmanager webhook version {self.version!r}")
        return self


def parse(model: type[BaseModel], data: Any) -> Any:
    """Validate `data` against `model`, raising `PayloadError` that names the first bad field."""
    if not isinstance(data, dict):
        raise PayloadError("body", "body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "body"
        raise PayloadError(loc, err["msg"]) from None


def slurm_event(body: SlurmJobBody) -> JobEvent:
    nodes = body.node_names()
    job = JobRef(
        scheduler=Scheduler.slurm,
        cluster=body.cluster,
        job_id=body.job_id,
        state=body.state,
        exit_code=body.exit_code,
        nodes=nodes,
        user=body.user,
        name=body.name,
        work_dir=body.work_dir,
        stdout=body.stdout,
        stderr=body.stderr,
        start=body.start,
        end=body.end,
    )
    fact = facts.slurm_job_fact(
        body.job_id,
        body.state,
        body.exit_code,
        node_list=body.node_list,
        array_job_id=body.array_job_id,
        array_task_id=body.array_task_id,
        het_job_id=body.het_job_id,
        restarts=body.restart_count,
    )
    # A requeued job that fails again is a new failure of the same id: diagnose it again.
    key = job.key + (f"#restart{body.restart_count}" if body.restart_count else "")
    return JobEvent(job=job, facts=[fact], dedupe_key=key)


def kubernetes_event(body: KubernetesBody) -> JobEvent:
    nodes = list(dict.fromkeys(p.node for p in body.pods if p.node))
    job = JobRef(
        scheduler=Scheduler.kubernetes,
        cluster=body.cluster,
        namespace=body.namespace,
        job_id=k8s_job_id(body.kind, body.name),
        state=body.state,
        nodes=nodes,
        name=body.name,
        start=body.start,
        end=body.end,
    )
    lines = [
        facts.kubernetes_job_fact(body.kind, body.namespace, body.name, body.state, body.reason, body.message)
    ]
    lines += [
        facts.kubernetes_pod_fact(
            pod.name,
            pod.rank,
            node=pod.node,
            phase=pod.phase,
            reason=pod.reason,
            exit_code=pod.exit_code,
            container=pod.container,
        )
        for pod in body.pods
    ]
    return JobEvent(job=job, facts=lines)


def files_event(body: FilesJobBody) -> JobEvent:
    job = JobRef(
        scheduler=Scheduler.files,
        cluster=body.cluster,
        job_id=body.job_id,
        state=body.state,
        exit_code=body.exit_code,
        user=body.user,
        name=body.name,
    )
    return JobEvent(job=job, facts=[facts.files_job_fact(body.job_id, body.state, body.exit_code)])


def alert_events(body: AlertmanagerBody, alertnames: frozenset[str], default_cluster: str) -> list[JobEvent]:
    """One event per firing job-failure alert that names its Job; other alerts are ignored."""
    events: list[JobEvent] = []
    for index, alert in enumerate(body.alerts):
        labels = alert.labels
        if alert.status != "firing" or labels.get("alertname") not in alertnames:
            continue
        namespace, job_name = labels.get("namespace"), labels.get("job_name")
        if not namespace or not job_name:
            continue
        try:
            kube = KubernetesBody(
                cluster=labels.get("cluster") or default_cluster,
                namespace=namespace,
                kind="Job",
                name=job_name,
                state="Failed",
                reason=labels["alertname"],
                message=alert.annotations.get("description") or alert.annotations.get("summary"),
                start=alert.startsAt,
            )
        except ValidationError as exc:
            label = {"name": "job_name"}.get(str(exc.errors()[0]["loc"][0]), str(exc.errors()[0]["loc"][0]))
            raise PayloadError(f"alerts.{index}.labels.{label}", exc.errors()[0]["msg"]) from None
        event = kubernetes_event(kube)
        event.facts[0] = f"alertmanager: {labels['alertname']} " + event.facts[0]
        events.append(event)
    return events


__all__ = [
    "Alert",
    "AlertmanagerBody",
    "FilesJobBody",
    "JobEvent",
    "KubernetesBody",
    "PayloadError",
    "PodBody",
    "SlurmJobBody",
    "SlurmNodeBody",
    "alert_events",
    "files_event",
    "kubernetes_event",
    "parse",
    "slurm_event",
]
