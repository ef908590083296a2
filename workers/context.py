"""What a worker process needs to run jobs, built once by the process entry point and handed in.

`workers` may not import `bot`, so `denpex worker` (or `denpex demo`, or a test) builds the Slack
client, renderer and quota gate and passes them here. The RQ work-horse finds the context through a
context variable that `DenpexWorker.perform_job` sets, the way `rq.get_current_job()` finds its job.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import redis
from slack_sdk import WebClient

from denpex.core.plans import Plan
from denpex.core.settings import Settings
from workers.collect import CollectorRegistry
from workers.masking import TextMasker
from workers.ports import QuotaDecision, QuotaGate, Renderer

if TYPE_CHECKING:
    from knowledge.engine import Engine  # loaded on first use: it compiles the knowledge base


class AlwaysAllow:
    """The default quota gate: every diagnosis is allowed (self-hosted without the Slack app's quotas)."""

    def consume(self, team_id: str) -> QuotaDecision:
        return QuotaDecision(allowed=True, plan=Plan.unlimited)

    def reserve(self, team_id: str, reservation: str, *, ttl: int) -> QuotaDecision:
        return self.consume(team_id)

    def commit(self, reservation: str) -> bool:
        return True

    def release(self, reservation: str) -> bool:
        return True


@dataclass
class WorkerContext:
    settings: Settings
    redis: redis.Redis
    masker: TextMasker
    renderer: Renderer
    collectors: CollectorRegistry
    quota: QuotaGate = field(default_factory=AlwaysAllow)
    #: None means "diagnose and store, do not post" (the demo without Slack)
    slack: WebClient | None = None
    channel: str | None = None
    team_id: str = "local"
    #: the engine, loaded once in the parent so every forked work-horse shares it
    engine: Engine | None = None
    poll_seconds: float = 0.2

    def get_engine(self) -> Engine:
        if self.engine is None:
            from knowledge.engine import Engine

            self.engine = Engine.load()
        return self.engine


_CURRENT: contextvars.ContextVar[WorkerContext] = contextvars.ContextVar("denpex_worker_context")


def set_current(ctx: WorkerContext) -> contextvars.Token[WorkerContext]:
    return _CURRENT.set(ctx)


def reset_current(token: contextvars.Token[WorkerContext]) -> None:
    _CURRENT.reset(token)


def current() -> WorkerContext:
    try:
        return _CURRENT.get()
    except LookupError:
        raise RuntimeError("no WorkerContext: run jobs with `denpex worker` (DenpexWorker)") from None
