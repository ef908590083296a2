"""The Slack app's plans and the outcomes of redeeming an evaluation code.

Ground floor, because the user-facing texts (`denpex.core.texts.slack`) are keyed by them and
`workers.quota`, which owns the Redis keys and the Lua scripts, decides them.
"""

from __future__ import annotations

from enum import StrEnum


class Plan(StrEnum):
    free = "free"
    scale = "scale"
    #: no quota at all (self-hosted without the Slack app's quotas)
    unlimited = "unlimited"


class RedemptionStatus(StrEnum):
    ok = "ok"
    unknown = "unknown"
    used = "used"
    expired = "expired"
