"""Quotas and evaluation codes: the one module that owns every Redis key of theirs.

Plans: `free` (3 diagnoses a UTC day per Slack workspace) and `scale` (an evaluation code's daily
limit, 50 by default, plus history and follow-up questions) until the plan expires. Every decision
that could race — taking the last diagnosis of the day, redeeming a code — is one Lua script, so
Redis runs it atomically: two concurrent requests can never both take the last unit, and one code can
never be redeemed twice. Codes are shown once when minted and stored only as a SHA-256 digest.

Keys (all under `denpex:quota:`):

- `used:{team}:{YYYYMMDD}` — diagnoses taken that UTC day (expires after two days).
- `plan:{team}`            — hash `plan`, `limit`, `expires_at`, `code`; Redis expires it at `expires_at`.
- `code:{sha256}`          — hash `days`, `daily_limit`, `created_at`, `redeem_by`,
                              then `redeemed_by`, `redeemed_at` once used.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import redis

from denpex.core.plans import Plan, RedemptionStatus
from denpex.core.texts import slack as texts
from workers.ports import QuotaDecision
from workers.store import as_str

__all__ = [
    "FREE",
    "FREE_DAILY",
    "PREFIX",
    "SCALE",
    "Plan",
    "PlanStatus",
    "Quota",
    "Redemption",
    "RedemptionStatus",
    "hash_code",
    "normalize_code",
]

PREFIX = "denpex:quota:"
FREE_DAILY = 3
FREE, SCALE = Plan.free, Plan.scale
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I, L, O, U
_DAY = 86400

# KEYS: plan, used | ARGV: free limit, now, used ttl -> {allowed, plan, remaining, limit}
_CONSUME = """
local limit, plan = tonumber(ARGV[1]), 'free'
local p = redis.call('HMGET', KEYS[1], 'plan', 'limit', 'expires_at')
if p[1] and tonumber(p[3]) and tonumber(p[3]) > tonumber(ARGV[2]) then
  plan, limit = p[1], tonumber(p[2])
end
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if used >= limit then return {0, plan, 0, limit} end
used = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return {1, plan, limit - used, limit}
"""

# KEYS: code, plan | ARGV: team, now -> {status, expires_at, limit}
_REDEEM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'unknown', 0, 0} end
local c = redis.call('HMGET', KEYS[1], 'days', 'daily_limit', 'redeem_by', 'redeemed_by')
if c[4] then return {'used', 0, 0} end
local now = tonumber(ARGV[2])
if tonumber(c[3]) and tonumber(c[3]) < now then return {'expired', 0, 0} end
local start = now
local cur = redis.call('HMGET', KEYS[2], 'plan', 'expires_at')
if cur[1] == 'scale' and tonumber(cur[2]) and tonumber(cur[2]) > now then start = tonumber(cur[2]) end
local expires = start + tonumber(c[1]) * 86400
redis.call('HSET', KEYS[1], 'redeemed_by', ARGV[1], 'redeemed_at', ARGV[2])
redis.call('HSET', KEYS[2], 'plan', 'scale', 'limit', c[2], 'expires_at', expires, 'code', ARGV[3])
redis.call('EXPIREAT', KEYS[2], expires)
return {'ok', expires, tonumber(c[2])}
"""


def normalize_code(code: str) -> str:
    """Codes are typed by people: ignore case, dashes, spaces, and read O/I/L as 0/1/1."""
    raw = "".join(ch for ch in code.upper() if ch.isalnum())
    raw = raw.translate(str.maketrans("OIL", "011"))
    return raw.removeprefix("DPX")


def hash_code(code: str) -> str:
    return hashlib.sha256(b"denpex-code:" + normalize_code(code).encode()).hexdigest()


def _day(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).strftime("%Y%m%d")


@dataclass(frozen=True)
class PlanStatus:
    plan: Plan | str
    limit: int
    used: int
    expires_at: float | None

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)

    @property
    def is_scale(self) -> bool:
        return self.plan == SCALE


@dataclass(frozen=True)
class Redemption:
    status: RedemptionStatus
    expires_at: float | None = None
    daily_limit: int = 0

    @property
    def ok(self) -> bool:
        return self.status is RedemptionStatus.ok


class Quota:
    """Implements `workers.ports.QuotaGate` (sync: called from RQ jobs and, via a thread, the bot)."""

    def __init__(
        self, client: redis.Redis, *, free_daily: int = FREE_DAILY, clock: Callable[[], float] = time.time
    ) -> None:
        self.r = client
        self.free_daily = free_daily
        self.clock = clock
        self._consume = client.register_script(_CONSUME)
        self._redeem = client.register_script(_REDEEM)

    # ------------------------------------------------------------------ keys
    @staticmethod
    def plan_key(team_id: str) -> str:
        return f"{PREFIX}plan:{team_id}"

    @staticmethod
    def used_key(team_id: str, day: str) -> str:
        return f"{PREFIX}used:{team_id}:{day}"

    @staticmethod
    def code_key(digest: str) -> str:
        return f"{PREFIX}code:{digest}"

    # ------------------------------------------------------------------ quota
    def consume(self, team_id: str) -> QuotaDecision:
        """Atomically take one diagnosis from the workspace's daily quota."""
        now = self.clock()
        keys = [self.plan_key(team_id), self.used_key(team_id, _day(now))]
        allowed, plan, remaining, limit = self._consume(keys=keys, args=[self.free_daily, now, 2 * _DAY])
        plan = as_str(plan)
        note = None if allowed else texts.quota_exhausted_note(plan, int(limit))
        return QuotaDecision(
            allowed=bool(allowed), plan=plan, remaining=int(remaining), limit=int(limit), note=note
        )

    def status(self, team_id: str) -> PlanStatus:
        now = self.clock()
        plan, limit, expires = self.r.hmget(self.plan_key(team_id), "plan", "limit", "expires_at")
        used = int(self.r.get(self.used_key(team_id, _day(now))) or 0)
        if plan and expires and float(expires) > now:
            return PlanStatus(as_str(plan), int(limit or 0), used, float(expires))
        return PlanStatus(FREE, self.free_daily, used, None)

    # ------------------------------------------------------------------ codes
    def create_codes(
        self, *, days: int = 14, daily_limit: int = 50, count: int = 1, redeem_within_days: int = 90
    ) -> list[str]:
        """Mint `count` codes; the plain codes are returned once and never stored."""
        if days < 1 or daily_limit < 1 or count < 1 or redeem_within_days < 1:
            raise ValueError("days, daily_limit, count and redeem_within_days must be positive")
        now = self.clock()
        codes = []
        with self.r.pipeline() as pipe:
            for _ in range(count):
                body = "".join(secrets.choice(_ALPHABET) for _ in range(20))  # 100 bits
                code = "DPX-" + "-".join(body[i : i + 5] for i in range(0, 20, 5))
                key = self.code_key(hash_code(code))
                pipe.hset(
                    key,
                    mapping={
                        "days": days,
                        "daily_limit": daily_limit,
                        "created_at": now,
                        "redeem_by": now + redeem_within_days * _DAY,
                    },
                )
                pipe.expireat(key, int(now + (redeem_within_days + days + 30) * _DAY))
                codes.append(code)
            pipe.execute()
        return codes

    def redeem(self, team_id: str, code: str) -> Redemption:
        """Move the workspace to Scale; a code works once, for one workspace."""
        if len(normalize_code(code)) != 20:
            return Redemption(RedemptionStatus.unknown)
        digest = hash_code(code)
        keys = [self.code_key(digest), self.plan_key(team_id)]
        status, expires, limit = self._redeem(keys=keys, args=[team_id, int(self.clock()), digest[:12]])
        outcome = RedemptionStatus(as_str(status))
        if outcome is not RedemptionStatus.ok:
            return Redemption(outcome)
        return Redemption(outcome, float(expires), int(limit))
