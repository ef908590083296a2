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
- `held:{team}:{YYYYMMDD}` — sorted set of reservations not yet posted, scored by when they lapse.
- `res:{reservation}`      — hash `state` (held, committed, released), `team`, `day`, `at`.
- `fails:user:{team}:{user}`, `fails:team:{team}` — sorted sets of wrong `/denpex redeem` attempts.

Reservations: a worker reserves a unit before it diagnoses (`reserve`), so an exhausted workspace is
refused before any work; the unit is `commit`ted when the post lands and `release`d when nothing is
posted. A reservation whose worker crashed lapses after its TTL and its unit is reclaimed; `reserve`
is idempotent per reservation id, so a retried job never holds two units.

Redeem attempts: wrong codes are counted in sliding windows per Slack user and per workspace, in the
same script as the redemption; past either limit every attempt is refused, a right code too, until
the window has moved on. Every decision takes its time from the injected clock, never from Redis, so
tests never depend on the date.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import redis

from denpex.core.plans import Plan, RedemptionStatus
from denpex.core.settings import Settings
from denpex.core.texts import slack as texts
from workers.ports import QuotaDecision
from workers.redisconn import wait_for_replica
from workers.store import as_str

__all__ = [
    "FREE",
    "FREE_DAILY",
    "PREFIX",
    "RESERVE_TTL",
    "SCALE",
    "Plan",
    "PlanStatus",
    "Quota",
    "RedeemLimits",
    "Redemption",
    "RedemptionStatus",
    "Throttled",
    "hash_code",
    "normalize_code",
]

PREFIX = "denpex:quota:"
FREE_DAILY = 3
FREE, SCALE = Plan.free, Plan.scale
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I, L, O, U
_DAY = 86400
#: a reservation lapses after this long unless committed or released (`DENPEX_QUOTA_RESERVE_TTL`)
RESERVE_TTL = 7200

# the workspace's plan and daily limit now (KEYS[1] plan, ARGV[1] free limit, ARGV[2] now)
_PLAN = """
local limit, plan = tonumber(ARGV[1]), 'free'
local p = redis.call('HMGET', KEYS[1], 'plan', 'limit', 'expires_at')
if p[1] and tonumber(p[3]) and tonumber(p[3]) > tonumber(ARGV[2]) then
  plan, limit = p[1], tonumber(p[2])
end
"""

# KEYS: plan, used, held | ARGV: free limit, now, used ttl -> {allowed, plan, remaining, limit}
_CONSUME = (
    _PLAN
    + """
local held = redis.call('ZCOUNT', KEYS[3], '(' .. ARGV[2], '+inf')
local taken = tonumber(redis.call('GET', KEYS[2]) or '0') + held
if taken >= limit then return {0, plan, 0, limit} end
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return {1, plan, limit - taken - 1, limit}
"""
)

# KEYS: plan, used, held, res | ARGV: free limit, now, key ttl, reservation ttl, id, team, day
# -> {allowed, plan, remaining, limit}; lapsed reservations are reclaimed first
_RESERVE = (
    _PLAN
    + """
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])
local taken = tonumber(redis.call('GET', KEYS[2]) or '0') + redis.call('ZCARD', KEYS[3])
local state = redis.call('HGET', KEYS[4], 'state')
if state == 'held' or state == 'committed' then return {1, plan, math.max(limit - taken, 0), limit} end
if taken >= limit then return {0, plan, 0, limit} end
redis.call('ZADD', KEYS[3], tonumber(ARGV[2]) + tonumber(ARGV[4]), ARGV[5])
redis.call('EXPIRE', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[4], 'state', 'held', 'team', ARGV[6], 'day', ARGV[7], 'at', ARGV[2])
redis.call('EXPIRE', KEYS[4], ARGV[3])
return {1, plan, limit - taken - 1, limit}
"""
)

# KEYS: res, held, used | ARGV: id, used ttl -> 1 if a held unit became used (counted even if it lapsed)
_COMMIT = """
if redis.call('HGET', KEYS[1], 'state') ~= 'held' then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[1], 'state', 'committed')
return 1
"""

# KEYS: res, held | ARGV: id -> 1 if a held unit came back
_RELEASE = """
if redis.call('HGET', KEYS[1], 'state') ~= 'held' then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'state', 'released')
return 1
"""

# KEYS: code, plan, user fails, team fails | ARGV: team, now, digest, well-formed (1/0), user limit,
# user window, team limit, team window, attempt id -> {status, expires_at | retry_at, limit}.
# Past a limit every attempt is refused, a right code too, until the window has passed; refused
# attempts are not counted (they reveal nothing), so the wait is bounded.
_REDEEM = """
local now = tonumber(ARGV[2])
local ul, uw, tl, tw = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local function free_at(key, limit, window)
  if limit <= 0 then return 0 end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local n = redis.call('ZCARD', key)
  if n < limit then return 0 end
  return tonumber(redis.call('ZRANGE', key, n - limit, n - limit, 'WITHSCORES')[2]) + window
end
local wait = math.max(free_at(KEYS[3], ul, uw), free_at(KEYS[4], tl, tw))
if wait > 0 then return {'limited', wait, 0} end
local function wrong(status)
  if ul > 0 then redis.call('ZADD', KEYS[3], now, ARGV[9]); redis.call('EXPIRE', KEYS[3], uw + 60) end
  if tl > 0 then redis.call('ZADD', KEYS[4], now, ARGV[9]); redis.call('EXPIRE', KEYS[4], tw + 60) end
  return {status, 0, 0}
end
if ARGV[4] ~= '1' or redis.call('EXISTS', KEYS[1]) == 0 then return wrong('unknown') end
local c = redis.call('HMGET', KEYS[1], 'days', 'daily_limit', 'redeem_by', 'redeemed_by')
if c[4] then return wrong('used') end
if tonumber(c[3]) and tonumber(c[3]) < now then return wrong('expired') end
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
    #: units held by diagnoses in progress (reserved, not yet posted)
    reserved: int = 0

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used - self.reserved, 0)

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


@dataclass(frozen=True)
class Throttled:
    """`/denpex redeem` refused without looking at the code: too many wrong codes lately."""

    wait_seconds: float

    @property
    def minutes(self) -> int:
        return max(math.ceil(self.wait_seconds / 60), 1)


@dataclass(frozen=True)
class RedeemLimits:
    """Wrong codes allowed per Slack user and per workspace within sliding windows (seconds)."""

    user_attempts: int = 5
    user_window: int = 600
    team_attempts: int = 20
    team_window: int = 3600

    @classmethod
    def from_settings(cls, settings: Settings) -> RedeemLimits:
        return cls(
            settings.redeem_user_attempts,
            settings.redeem_user_window_seconds,
            settings.redeem_team_attempts,
            settings.redeem_team_window_seconds,
        )


#: `redeem` without attempt limits (the CLI and tests; the Slack command always passes limits)
_UNLIMITED = RedeemLimits(0, 1, 0, 1)


class Quota:
    """Implements `workers.ports.QuotaGate` (sync: called from RQ jobs and, via a thread, the bot)."""

    def __init__(
        self, client: redis.Redis, *, free_daily: int = FREE_DAILY, clock: Callable[[], float] = time.time
    ) -> None:
        self.r = client
        self.free_daily = free_daily
        self.clock = clock
        self._consume = client.register_script(_CONSUME)
        self._reserve = client.register_script(_RESERVE)
        self._commit = client.register_script(_COMMIT)
        self._release = client.register_script(_RELEASE)
        self._redeem = client.register_script(_REDEEM)

    def _replicated(self) -> None:
        """Sentinel: the script's writes reach the replica (`WAIT`, as admission and the post journal)
        before the caller acts on them, or a failover could undo a unit or a redemption."""
        wait_for_replica(self.r)

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

    @staticmethod
    def held_key(team_id: str, day: str) -> str:
        return f"{PREFIX}held:{team_id}:{day}"

    @staticmethod
    def reservation_key(reservation: str) -> str:
        return f"{PREFIX}res:{reservation}"

    @staticmethod
    def fails_keys(team_id: str, user_id: str) -> tuple[str, str]:
        return f"{PREFIX}fails:user:{team_id}:{user_id}", f"{PREFIX}fails:team:{team_id}"

    # ------------------------------------------------------------------ quota
    def _decision(self, allowed: int, plan: bytes | str, remaining: int, limit: int) -> QuotaDecision:
        name = as_str(plan)
        note = None if allowed else texts.quota_exhausted_note(name, int(limit))
        return QuotaDecision(
            allowed=bool(allowed), plan=name, remaining=int(remaining), limit=int(limit), note=note
        )

    def consume(self, team_id: str) -> QuotaDecision:
        """Atomically take one diagnosis at once (units held by reservations are not available)."""
        now = self.clock()
        day = _day(now)
        keys = [self.plan_key(team_id), self.used_key(team_id, day), self.held_key(team_id, day)]
        decision = self._decision(*self._consume(keys=keys, args=[self.free_daily, now, 2 * _DAY]))
        self._replicated()
        return decision

    def reserve(self, team_id: str, reservation: str, *, ttl: int = RESERVE_TTL) -> QuotaDecision:
        """Hold one unit for `reservation` before any work; the same id never holds two units."""
        now = self.clock()
        day = _day(now)
        keys = [
            self.plan_key(team_id),
            self.used_key(team_id, day),
            self.held_key(team_id, day),
            self.reservation_key(reservation),
        ]
        key_ttl = max(2 * _DAY, int(ttl) + _DAY)
        args: list[str | int | float] = [self.free_daily, now, key_ttl, int(ttl), reservation, team_id, day]
        decision = self._decision(*self._reserve(keys=keys, args=args))
        self._replicated()
        return decision

    def _held(self, reservation: str) -> tuple[str, str] | None:
        team, day = self.r.hmget(self.reservation_key(reservation), "team", "day")
        return (as_str(team), as_str(day)) if team and day else None

    def commit(self, reservation: str) -> bool:
        """The post landed: the held unit counts on the day it was reserved. Idempotent."""
        held = self._held(reservation)
        if held is None:
            return False
        keys = [self.reservation_key(reservation), self.held_key(*held), self.used_key(*held)]
        committed = bool(self._commit(keys=keys, args=[reservation, 2 * _DAY]))
        self._replicated()
        return committed

    def release(self, reservation: str) -> bool:
        """Nothing was posted: the held unit comes back. Idempotent; a committed unit stays used."""
        held = self._held(reservation)
        if held is None:
            return False
        keys = [self.reservation_key(reservation), self.held_key(*held)]
        released = bool(self._release(keys=keys, args=[reservation]))
        self._replicated()
        return released

    def status(self, team_id: str) -> PlanStatus:
        now = self.clock()
        day = _day(now)
        plan, limit, expires = self.r.hmget(self.plan_key(team_id), "plan", "limit", "expires_at")
        used = int(self.r.get(self.used_key(team_id, day)) or 0)
        reserved = int(self.r.zcount(self.held_key(team_id, day), f"({now}", "+inf"))
        if plan and expires and float(expires) > now:
            return PlanStatus(as_str(plan), int(limit or 0), used, float(expires), reserved)
        return PlanStatus(FREE, self.free_daily, used, None, reserved)

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
        """Move the workspace to Scale; a code works once, for one workspace. No attempt limits."""
        result = self.redeem_as(team_id, "", code, _UNLIMITED)
        assert isinstance(result, Redemption)  # no limits: never throttled
        return result

    def redeem_as(
        self, team_id: str, user_id: str, code: str, limits: RedeemLimits
    ) -> Redemption | Throttled:
        """`redeem` for a Slack user: wrong codes count per user and per workspace, atomically with
        the redemption; past either limit every attempt (a right code too) waits out the window."""
        well_formed = len(normalize_code(code)) == 20
        digest = hash_code(code)
        now = int(self.clock())
        keys = [self.code_key(digest), self.plan_key(team_id), *self.fails_keys(team_id, user_id)]
        args: list[str | int] = [team_id, now, digest[:12], 1 if well_formed else 0, limits.user_attempts]
        args += [limits.user_window, limits.team_attempts, limits.team_window, uuid.uuid4().hex]
        status, expires, limit = self._redeem(keys=keys, args=args)
        self._replicated()  # a redemption, or a counted wrong attempt
        if as_str(status) == "limited":
            return Throttled(float(expires) - now)
        outcome = RedemptionStatus(as_str(status))
        if outcome is not RedemptionStatus.ok:
            return Redemption(outcome)
        return Redemption(outcome, float(expires), int(limit))
