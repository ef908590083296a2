"""No floods: which failures belong together, and their shared state in Redis.

A Slurm job array whose tasks fail alike, a requeued job failing again, a Kubernetes Job re-created
under the same name: one thread for the group instead of one per failure. A failure's `GroupKey`
comes from what the webhook reported (the `ArrayJobId=`/`ArrayTaskId=`/`Restarts=` of the Slurm
fact line, the Kubernetes job name); failures are *alike* (`Alike`) when they share the group key
and the diagnosis' category, knowledge entry and phase (the initiating signature: not its rank or
node, which differ from task to task by design). A task that fails differently is another group.

The per-channel cap (`DENPEX_MAX_THREADS_PER_MIN`) folds what would exceed it into a per-minute
summary message. Both messages are *boards*: Slack messages rendered from a Redis hash of members
and updated in place; `Board` is their shared state (see `workers.floods` for the protocol).

Keys (all under `denpex:flood:`; every field is written once per occurrence, so retries of a job
never count twice):

- `group:{digest}` / `group:{digest}:members` — the group's leader, target (thread ts or summary)
  and shown count / occurrence → task label.
- `fold:{channel}:{minute}` / `…:members` — a summary message / occurrence → `FoldedJob` JSON.
- `threads:{channel}` — sorted set: occurrences that opened a thread → report time (the cap).
- `decision:{occurrence}` — `thread` or `fold`, taken once per occurrence.
- `{board}:lock` — the lease of whoever updates that board's Slack message.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import redis

from denpex.core.models import Diagnosis, Scheduler
from workers.store import JobRecord, as_str

PREFIX = "denpex:flood:"
#: a group (and its summary) lives this long after its last member; longer than an array's run
GROUP_TTL = 6 * 3600
#: the cap's sliding window
WINDOW_SECONDS = 60.0

_ARRAY = re.compile(r"\bArrayJobId=(\S+) ArrayTaskId=(\S+)")
_RESTARTS = re.compile(r"\bRestarts=(\d+)")


class GroupKind(StrEnum):
    array = "array"  # Slurm `--array`: the array job id; members are task ids
    requeue = "requeue"  # one Slurm job id requeued; members are restart counts
    k8s_job = "k8s-job"  # a Kubernetes Job (Indexed or not) failing again under its name


@dataclass(frozen=True)
class GroupKey:
    """Which failures may share a thread: same scheduler, cluster, kind and parent id."""

    scheduler: Scheduler
    cluster: str
    kind: GroupKind
    parent: str  # the array job id, the job id, or `namespace/name`


@dataclass(frozen=True)
class Alike:
    """A group key narrowed to one failure mode: failing differently means another thread."""

    group: GroupKey
    category: str
    entry: str | None
    phase: str | None

    @property
    def digest(self) -> str:
        g = self.group
        parts = [g.scheduler.value, g.cluster, g.kind.value, g.parent, self.category]
        parts += [self.entry or "", self.phase or ""]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Membership:
    """One failure's place in its group: the group, its task label, its occurrence id."""

    key: GroupKey
    task: str  # `7`, `restart 2`, or "" (numbered by arrival)


def membership(record: JobRecord) -> Membership | None:
    """The group a reported failure belongs to, or None (files jobs: nothing to group by).

    Explicit `/denpex diagnose` requests (`record.channel`) are never grouped: someone asked for
    that job's own thread."""
    job = record.job
    if record.channel:
        return None
    if job.scheduler is Scheduler.slurm:
        facts = " ".join(record.facts)
        if (array := _ARRAY.search(facts)) is not None:
            key = GroupKey(job.scheduler, job.cluster, GroupKind.array, array.group(1))
            return Membership(key, array.group(2))
        restarts = _RESTARTS.search(facts)
        key = GroupKey(job.scheduler, job.cluster, GroupKind.requeue, job.job_id)
        return Membership(key, f"restart {restarts.group(1) if restarts else 0}")
    if job.scheduler is Scheduler.kubernetes:
        parent = f"{job.namespace}/{job.job_id}" if job.namespace else job.job_id
        return Membership(GroupKey(job.scheduler, job.cluster, GroupKind.k8s_job, parent), "")
    return None


def alike(key: GroupKey, diagnosis: Diagnosis | None) -> Alike:
    """No diagnosis (the quota is out): alike by group key alone."""
    if diagnosis is None:
        return Alike(key, "", None, None)
    entry = diagnosis.entry.id if diagnosis.entry else None
    return Alike(key, diagnosis.category, entry, diagnosis.initiating.phase)


class Decision(StrEnum):
    thread = "thread"
    fold = "fold"


@dataclass(frozen=True)
class BoardView:
    """A board as read: its members (occurrence → value) and the Slack message it is shown in."""

    members: Mapping[str, str]
    channel: str | None
    ts: str | None
    shown: int
    leader: str | None
    leader_key: str | None
    fold: str | None


# KEYS: meta, members | ARGV: leader member, leader job key, member, value, ttl
# -> the leader's occurrence member (the first to join; kept)
_JOIN = """
if redis.call('HSETNX', KEYS[1], 'leader', ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], 'leader_key', ARGV[2])
end
if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 0 then
  local value = ARGV[4]
  if value == '' then value = '#' .. (redis.call('HLEN', KEYS[2]) + 1) end
  redis.call('HSET', KEYS[2], ARGV[3], value)
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
return redis.call('HGET', KEYS[1], 'leader')
"""

# KEYS: decision, threads | ARGV: member, at, cap, window, ttl -> 'thread' or 'fold'
_DECIDE = """
local taken = redis.call('GET', KEYS[1])
if taken then return taken end
local at = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local decision = 'thread'
if cap > 0 and redis.call('ZCOUNT', KEYS[2], at - tonumber(ARGV[4]), '+inf') >= cap then
  decision = 'fold'
else
  redis.call('ZADD', KEYS[2], at, ARGV[1])
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', at - 3600)
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('SET', KEYS[1], decision, 'EX', ARGV[5])
return decision
"""

_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Board:
    """A Slack message rendered from a Redis hash of members (a group root, a fold summary)."""

    def __init__(self, client: redis.Redis, key: str) -> None:
        self.r, self.key = client, key
        self.members_key = f"{key}:members"
        self.lock_key = f"{key}:lock"

    def join(self, leader: str, leader_key: str, member: str, value: str) -> str:
        """Add `member` once (a retry adds nothing); the first ever to join leads. Returns the leader."""
        raw = self.r.eval(_JOIN, 2, self.key, self.members_key, leader, leader_key, member, value, GROUP_TTL)
        return as_str(raw)

    def read(self) -> BoardView:
        with self.r.pipeline(transaction=True) as pipe:
            pipe.hgetall(self.key)
            pipe.hgetall(self.members_key)
            meta_raw, members_raw = pipe.execute()
        meta: dict[str, str] = {as_str(k): as_str(v) for k, v in meta_raw.items()}
        members = {as_str(k): as_str(v) for k, v in members_raw.items()}
        return BoardView(
            members=members,
            channel=meta.get("channel"),
            ts=meta.get("ts"),
            shown=int(meta.get("shown", 0)),
            leader=meta.get("leader"),
            leader_key=meta.get("leader_key"),
            fold=meta.get("fold"),
        )

    def count(self) -> int:
        return int(self.r.hlen(self.members_key))

    def set(self, **fields: str | int) -> None:
        self.r.hset(self.key, mapping={k: str(v) for k, v in fields.items()})
        self.r.expire(self.key, GROUP_TTL)

    def lock(self, token: str, lease: int) -> bool:
        return bool(self.r.set(self.lock_key, token, nx=True, ex=lease))

    def unlock(self, token: str) -> None:
        self.r.eval(_UNLOCK, 1, self.lock_key, token)


def group_board(client: redis.Redis, key: Alike) -> Board:
    return Board(client, f"{PREFIX}group:{key.digest}")


def fold_id(channel: str, at: float) -> str:
    """One summary per channel and minute of report in which the cap folded something."""
    return f"{channel}:{int(at // 60)}"


def fold_board(client: redis.Redis, summary: str) -> Board:
    return Board(client, f"{PREFIX}fold:{summary}")


def decide(client: redis.Redis, channel: str, member: str, at: float, cap: int) -> Decision:
    """Open a thread or fold, once per occurrence: within the cap of new threads per channel in
    the last minute of report time (`at`, the job's `received_at`: no wall clock, so retries and
    tests agree), or folded."""
    keys = [f"{PREFIX}decision:{member}", f"{PREFIX}threads:{channel}"]
    raw: Any = client.eval(_DECIDE, 2, *keys, member, at, cap, WINDOW_SECONDS, GROUP_TTL)
    return Decision(as_str(raw))
