"""The audit trail of the thread's Drain button: every press, allowed or refused, kept per workspace.

A drain takes a machine out of service, so who pressed, which node, and what happened is written
twice: a structlog event (`drain_pressed`, for the log pipeline) and a bounded Redis list
(`denpex:audit:{team}`, newest first, the last `AUDIT_MAX` presses) an admin can read back without
log access. Entries are written before the outcome is shown to the user; nothing here decides.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum

import redis
import structlog
from pydantic import BaseModel

log = structlog.get_logger("denpex.slack.audit")

PREFIX = "denpex:audit:"
#: presses kept per workspace (the oldest go first)
AUDIT_MAX = 1000
#: the list expires this long after its last press
AUDIT_TTL = 365 * 86400


class Outcome(StrEnum):
    drained = "drained"
    failed = "failed"
    refused_off = "refused_off"
    refused_not_admin = "refused_not_admin"
    refused_bad_request = "refused_bad_request"


class AuditEntry(BaseModel):
    """One press of a Drain button."""

    at: float
    team: str
    user: str
    node: str
    outcome: Outcome
    scheduler: str = ""
    cluster: str = ""
    channel: str = ""
    detail: str = ""


class AuditLog:
    """Owns `denpex:audit:{team}`; sync (called through a thread by the async listeners)."""

    def __init__(
        self, client: redis.Redis, *, clock: Callable[[], float] = time.time, limit: int = AUDIT_MAX
    ):
        self.r = client
        self.clock = clock
        self.limit = limit

    @staticmethod
    def key(team: str) -> str:
        return f"{PREFIX}{team}"

    def record(self, entry: AuditEntry) -> None:
        log.info(
            "drain_pressed",
            team_id=entry.team,
            user_id=entry.user,
            node=entry.node,
            scheduler=entry.scheduler,
            cluster=entry.cluster,
            outcome=entry.outcome.value,
            detail=entry.detail,
        )
        pipe = self.r.pipeline(transaction=True)
        pipe.lpush(self.key(entry.team), entry.model_dump_json())
        pipe.ltrim(self.key(entry.team), 0, self.limit - 1)
        pipe.expire(self.key(entry.team), AUDIT_TTL)
        pipe.execute()

    def entries(self, team: str) -> list[AuditEntry]:
        """The workspace's presses, newest first."""
        return [AuditEntry.model_validate_json(raw) for raw in self.r.lrange(self.key(team), 0, -1)]
