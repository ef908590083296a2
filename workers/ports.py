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
