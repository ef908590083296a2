"""What the worker needs from the layers above it, as protocols.

`workers` may not import `bot` (imports flow one way), yet posting needs Block Kit rendering and
quota decisions that the Slack app owns. The process entry point (`denpex worker`, `denpex demo`)
builds the concrete objects and hands them to the worker; tests hand in their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field

from denpex.core.models import Diagnosis, JobRef
from denpex.core.plans import Plan

if TYPE_CHECKING:
    from workers.nodehealth import NodeHistory


class SlackMessage(BaseModel):
    """One chat.postMessage payload: fallback text plus Block Kit blocks."""

    text: str
    blocks: list[dict[str, Any]] = Field(default_factory=list)


class EvidenceFile(BaseModel):
    filename: str
    title: str
    content: str


class GroupView(BaseModel):
    """A group's root as rendered (`workers.groups`): failures alike, one thread."""

    kind: str  # `workers.groups.GroupKind`: array | requeue | k8s-job
    parent: str  # the array job id, the requeued job id, or the Kubernetes `namespace/name`
    count: int
    tasks: list[str] = Field(default_factory=list)  # task ids, `restart N`, or `#N`, as reported


class FoldedJob(BaseModel):
    """One failure the per-channel cap folded into a summary message instead of a thread."""

    job_id: str
    category: str
    group: str | None = None  # the group's parent id when the failure is part of a group
    task: str | None = None


class FoldSummary(BaseModel):
    """The "N more failures" message of one channel and minute, updated in place."""

    count: int
    jobs: list[FoldedJob] = Field(default_factory=list)


class Renderer(Protocol):
    def root_message(
        self, job: JobRef, diagnosis: Diagnosis | None, *, quota_note: str | None
    ) -> SlackMessage:
        """The short message in the channel. `diagnosis` is None when the quota is out."""
        ...

    def thread_messages(
        self, job: JobRef, diagnosis: Diagnosis, *, history: NodeHistory | None = None
    ) -> list[SlackMessage]:
        """The diagnosis, as one or more thread replies within Slack's limits; `history`: the
        implicated nodes' earlier incidents and drain advice (`workers.nodehealth`)."""
        ...

    def evidence_file(self, job: JobRef, diagnosis: Diagnosis) -> EvidenceFile | None:
        """Full (masked) evidence for a files v2 upload in the thread, or None."""
        ...

    def group_root(
        self, job: JobRef, diagnosis: Diagnosis | None, group: GroupView, *, quota_note: str | None
    ) -> SlackMessage:
        """The root of a group's thread (`job`: its first failure), updated in place as failures
        alike join: the count and the task ids, within Slack's limits."""
        ...

    def fold_summary(self, summary: FoldSummary) -> SlackMessage:
        """The "N more failures" message the thread cap folds into (bounded text)."""
        ...


class QuotaDecision(BaseModel):
    allowed: bool
    plan: Plan = Plan.free
    remaining: int = 0
    limit: int = 0
    note: str | None = Field(default=None, description="user-facing text when not allowed")


class QuotaGate(Protocol):
    def consume(self, team_id: str) -> QuotaDecision:
        """Atomically take one diagnosis from the workspace's daily quota."""
        ...

    def reserve(self, team_id: str, reservation: str, *, ttl: int) -> QuotaDecision:
        """Hold one unit before the work (idempotent per `reservation`; reclaimed after `ttl` s)."""
        ...

    def commit(self, reservation: str) -> bool:
        """The post landed: the held unit is used (idempotent)."""
        ...

    def release(self, reservation: str) -> bool:
        """Nothing was posted (failed for good, nothing to post): the held unit comes back."""
        ...
