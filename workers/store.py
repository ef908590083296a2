"""Every Redis key of the pipeline, in one module, so exactly-once rules live in one place.

Keys (all under `denpex:`; `job_key` is the dedupe key, normally `JobRef.key`):

- `dedupe:{job_key}`    — SET NX gate: the first report of a job wins, later ones are duplicates.
- `job:{job_key}`       — hash: the masked JobRef, masked scheduler facts, `received_at`, `state`.
- `nodelog:{job}`       — hash node → masked kernel log (`NodeLog` JSON) from `/hooks/slurm/node`.
- `diagnosis:{job_key}` — the Diagnosis JSON (masked), TTL'd; a retried job reuses it.
- `post:{job_key}`      — hash: the `PostJournal` (written BEFORE each Slack call it guards).
- `stats:*`             — counters the server's /metrics reads (diagnoses by category, post latency).

`Store` is the worker's synchronous access, `AsyncStore` its twin for the asyncio server, so the
server never spells a key or a field itself. Both use raw (bytes) clients, because RQ needs one and
Denpex shares its connection; `as_str` is the one place bytes become text.

Everything stored here is already masked by the caller; this module never sees raw logs.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import redis
import redis.asyncio as aioredis
from pydantic import BaseModel
from redis.typing import EncodableT

from denpex.core.models import Diagnosis, JobRef
from workers.redisconn import await_replica, wait_for_replica

PREFIX = "denpex:"
#: how long kernel logs from node epilogs wait for their job's failure report
NODE_LOG_TTL = 6 * 3600
#: upper bounds (seconds) of the failure-end → post histogram buckets
LATENCY_BUCKETS = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)


def _fields(mapping: Mapping[str, str | int | float]) -> dict[EncodableT, EncodableT]:
    """A hash mapping as redis-py's annotations want it."""
    return {k: v for k, v in mapping.items()}


def as_str(value: object) -> str:
    """Redis answers bytes (the clients are raw for RQ's sake): the one decoder for Denpex's keys."""
    return value.decode() if isinstance(value, bytes) else str(value)


def dedupe_key(job_key: str) -> str:
    return f"{PREFIX}dedupe:{job_key}"


def record_key(job_key: str) -> str:
    return f"{PREFIX}job:{job_key}"


def nodelog_key(job_ref_key: str) -> str:
    return f"{PREFIX}nodelog:{job_ref_key}"


def diagnosis_key(job_key: str) -> str:
    return f"{PREFIX}diagnosis:{job_key}"


def post_key(job_key: str) -> str:
    return f"{PREFIX}post:{job_key}"


def post_lock_key(job_key: str) -> str:
    return f"{PREFIX}postlock:{job_key}"


STATS_CATEGORIES = f"{PREFIX}stats:diagnoses"
STATS_LATENCY = f"{PREFIX}stats:post_latency"


_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class JobState(StrEnum):
    """Where a job is in the pipeline (`job:{job_key}` field `state`)."""

    queued = "queued"
    collecting = "collecting"
    diagnosing = "diagnosing"
    failed = "failed"
    diagnosed = "diagnosed"
    posted = "posted"


@dataclass
class JobRecord:
    """A queued job as the worker reads it back."""

    job: JobRef
    facts: list[str]
    received_at: float
    state: JobState | str
    #: the channel that asked for this diagnosis (`/denpex diagnose`), if any
    channel: str | None = None

    @classmethod
    def from_hash(cls, raw: Mapping[Any, Any]) -> JobRecord:
        data = {as_str(k): as_str(v) for k, v in raw.items()}
        state = data.get("state", JobState.queued)
        return cls(
            job=JobRef.model_validate_json(data["job"]),
            facts=json.loads(data.get("facts", "[]")),
            received_at=float(data.get("received_at", time.time())),
            state=JobState(state) if state in JobState.__members__ else state,
            channel=data.get("channel") or None,
        )

    def as_hash(self, rq_id: str) -> dict[str, str]:
        """The `job:{job_key}` hash as admission writes it (values already masked)."""
        mapping = {
            "job": self.job.model_dump_json(),
            "facts": json.dumps(self.facts),
            "received_at": str(self.received_at),
            "state": str(self.state),
            "rq_id": rq_id,
        }
        if self.channel:
            mapping["channel"] = self.channel
        return mapping


def job_mapping(
    job: JobRef, facts: list[str], received_at: float, rq_id: str, channel: str | None = None
) -> dict[str, str]:
    """The `job:{job_key}` hash of a newly queued job (values already masked)."""
    return JobRecord(job, facts, received_at, JobState.queued, channel).as_hash(rq_id)


class NodeLog(BaseModel):
    """One node's masked kernel log, written by the server (`/hooks/slurm/node`), read by the worker."""

    log: str
    truncated: bool = False
    since: str | None = None  # ISO 8601, as the node sent it
    received_at: float


class PostStatus(StrEnum):
    posting = "posting"
    posted = "posted"


Write = Callable[[Mapping[str, str | int | float]], None]


def _float(value: str | None) -> float | None:
    return float(value) if value else None


@dataclass
class PostJournal:
    """The write-ahead journal of posting one job's thread (see `workers.posting` for the protocol).

    Each step records what is about to happen (or just happened) before the next Slack call, through
    `write`, which persists only the fields that step changed.
    """

    status: PostStatus | None = None
    posting_at: str | None = None  # when the root's chat.postMessage was sent (time.time(), as text)
    channel: str | None = None
    ts: str | None = None
    replies: int = 0  # thread replies known to be in Slack
    reply_posting: int | None = None  # the reply being sent
    reply_posting_at: str | None = None
    answered_at: str | None = None  # the send time of the last request Slack answered (even with an error)
    file_uploaded: bool = False
    quota: str | None = None  # the QuotaDecision JSON, taken once per job
    write: Write = field(default=lambda changes: None, repr=False, compare=False)

    @classmethod
    def from_hash(cls, raw: Mapping[Any, Any], write: Write | None = None) -> PostJournal:
        data = {as_str(k): as_str(v) for k, v in raw.items()}
        status = data.get("status")
        reply = data.get("reply_posting")
        journal = cls(
            status=PostStatus(status) if status is not None and status in PostStatus.__members__ else None,
            posting_at=data.get("posting_at"),
            channel=data.get("channel"),
            ts=data.get("ts") or None,
            replies=int(data.get("replies", 0)),
            reply_posting=int(reply) if reply not in (None, "") else None,
            reply_posting_at=data.get("reply_posting_at"),
            answered_at=data.get("answered"),
            file_uploaded=bool(data.get("file")),
            quota=data.get("quota") or None,
        )
        if write is not None:
            journal.write = write
        return journal

    def as_hash(self) -> dict[str, str]:
        fields: dict[str, object] = {
            "status": self.status,
            "posting_at": self.posting_at,
            "channel": self.channel,
            "ts": self.ts,
            "replies": self.replies or None,
            "reply_posting": self.reply_posting,
            "reply_posting_at": self.reply_posting_at,
            "answered": self.answered_at,
            "file": 1 if self.file_uploaded else None,
            "quota": self.quota,
        }
        return {k: str(v) for k, v in fields.items() if v is not None}

    @property
    def posted(self) -> bool:
        return self.status is PostStatus.posted

    # ------------------------------------------------------------------ protocol steps
    def record_quota(self, decision_json: str) -> None:
        self.quota = decision_json
        self.write({"quota": decision_json})

    def begin_root(self, sent_at: float) -> None:
        """Before chat.postMessage of the root: a retry that finds this without `ts` looks it up."""
        self.status, self.posting_at = PostStatus.posting, str(sent_at)
        self.write({"status": PostStatus.posting.value, "posting_at": self.posting_at})

    def root_posted(self, channel: str, ts: str) -> None:
        self.channel, self.ts = channel, ts
        self.write({"channel": channel, "ts": ts})

    def begin_reply(self, index: int, sent_at: float) -> None:
        self.reply_posting, self.reply_posting_at = index, str(sent_at)
        self.write({"reply_posting": index, "reply_posting_at": self.reply_posting_at})

    def reply_done(self, index: int) -> None:
        self.replies = index + 1
        self.write({"replies": self.replies})

    def answered(self, sent_at: float) -> None:
        """Slack answered the request sent at `sent_at` (with an error): it is not in flight any more."""
        self.answered_at = str(sent_at)
        self.write({"answered": self.answered_at})

    def file_done(self) -> None:
        self.file_uploaded = True
        self.write({"file": 1})

    def finish(self) -> None:
        self.status = PostStatus.posted
        self.write({"status": PostStatus.posted.value})


class Store:
    """Synchronous access for the worker (and the Slack app's thread-pool paths)."""

    def __init__(self, client: redis.Redis, *, result_ttl: int) -> None:
        self.r = client
        self.ttl = result_ttl

    # ------------------------------------------------------------------ jobs
    def load_job(self, job_key: str) -> JobRecord | None:
        raw = self.r.hgetall(record_key(job_key))
        return JobRecord.from_hash(raw) if raw else None

    def set_state(self, job_key: str, state: JobState, **extra: str) -> None:
        fields = {"state": state.value, "updated_at": str(time.time()), **extra}
        self.r.hset(record_key(job_key), mapping=_fields(fields))

    # ------------------------------------------------------------- node logs
    def node_logs(self, job_ref_key: str) -> dict[str, NodeLog]:
        raw = self.r.hgetall(nodelog_key(job_ref_key))
        return {as_str(k): NodeLog.model_validate_json(v) for k, v in raw.items()}

    def node_names(self, job_ref_key: str) -> set[str]:
        return {as_str(k) for k in self.r.hkeys(nodelog_key(job_ref_key))}

    # ------------------------------------------------------------- diagnosis
    def load_diagnosis(self, job_key: str) -> Diagnosis | None:
        raw = self.r.get(diagnosis_key(job_key))
        return Diagnosis.model_validate_json(raw) if raw else None

    def save_diagnosis(self, job_key: str, diagnosis: Diagnosis) -> None:
        first = self.r.set(diagnosis_key(job_key), diagnosis.model_dump_json(), ex=self.ttl, nx=True)
        if first:
            self.r.hincrby(STATS_CATEGORIES, diagnosis.category, 1)

    # ----------------------------------------------------------------- posts
    def post_journal(self, job_key: str) -> PostJournal:
        """The job's posting journal as recorded now; its steps write through to Redis."""
        raw = self.r.hgetall(post_key(job_key))
        return PostJournal.from_hash(raw, write=lambda changes: self.update_post(job_key, **changes))

    def update_post(self, job_key: str, **fields: str | int | float) -> None:
        """Write journal fields as they are (the journal's steps, and tests that stage a crash).

        With Sentinel, each step is on the replica before the Slack call it guards (WAIT): a failover
        must not forget a step, or the job's thread would be posted twice."""
        with self.r.pipeline() as pipe:
            pipe.hset(post_key(job_key), mapping={k: str(v) for k, v in fields.items()})
            pipe.expire(post_key(job_key), self.ttl)
            pipe.execute()
        wait_for_replica(self.r)

    def acquire_post_lock(self, job_key: str, token: str, lease_seconds: int) -> bool:
        """Only one execution of a job posts at a time (a lease, so a dead holder cannot block forever)."""
        return bool(self.r.set(post_lock_key(job_key), token, nx=True, ex=lease_seconds))

    def release_post_lock(self, job_key: str, token: str) -> None:
        self.r.eval(_RELEASE, 1, post_lock_key(job_key), token)

    def record_latency(self, seconds: float) -> None:
        with self.r.pipeline() as pipe:
            for bound in LATENCY_BUCKETS:
                if seconds <= bound:
                    pipe.hincrby(STATS_LATENCY, f"le:{bound}", 1)
            pipe.hincrby(STATS_LATENCY, "count", 1)
            pipe.hincrbyfloat(STATS_LATENCY, "sum", max(seconds, 0.0))
            pipe.execute()


# KEYS: gate | ARGV: expected value, new value, ttl -> 1 when replaced
_TAKEOVER = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3])) return 1 end
return 0
"""


class AsyncStore:
    """The asyncio twin of `Store`: what the server writes (the dedupe gate, job records, node logs)."""

    def __init__(self, client: aioredis.Redis, *, result_ttl: int) -> None:
        self.r = client
        self.ttl = result_ttl

    # ------------------------------------------------------------- the gate
    async def claim_gate(self, job_key: str, token: str, ttl: int) -> bool:
        return bool(await self.r.set(dedupe_key(job_key), token, nx=True, ex=ttl))

    async def gate(self, job_key: str) -> str | None:
        raw = await self.r.get(dedupe_key(job_key))
        return None if raw is None else as_str(raw)

    async def take_over_gate(self, job_key: str, seen: str, token: str, ttl: int) -> bool:
        """Replace the gate's value `seen` by `token`, atomically (no one else took it meanwhile)."""
        return bool(await self.r.eval(_TAKEOVER, 1, dedupe_key(job_key), seen, token, ttl))

    async def release_gate(self, job_key: str, token: str) -> None:
        await self.r.eval(_RELEASE, 1, dedupe_key(job_key), token)

    async def close_gate(self, job_key: str, value: str, ttl: int) -> None:
        """The job is queued: the gate keeps `value` (its RQ id) for the dedupe window."""
        await self.r.set(dedupe_key(job_key), value, xx=True, ex=ttl)

    # ------------------------------------------------------------- job records
    async def received_at(self, job_key: str) -> float | None:
        raw = await self.r.hget(record_key(job_key), "received_at")
        return None if raw is None else float(as_str(raw))

    async def start_occurrence(self, job_key: str, record: JobRecord, rq_id: str) -> None:
        """A new occurrence of `job_key`: its diagnosis and post journal go, its record is written."""
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.delete(diagnosis_key(job_key), post_key(job_key), record_key(job_key))
            pipe.hset(record_key(job_key), mapping=_fields(record.as_hash(rq_id)))
            pipe.expire(record_key(job_key), self.ttl)
            await pipe.execute()

    async def replicated(self) -> None:
        """With Sentinel: what was written so far is on the replica (WAIT) before a 2xx promises it."""
        await await_replica(self.r)

    # ------------------------------------------------------------- node logs
    async def save_node_log(self, job_ref_key: str, node: str, entry: NodeLog) -> None:
        key = nodelog_key(job_ref_key)
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(key, node, entry.model_dump_json())
            pipe.expire(key, NODE_LOG_TTL)
            await pipe.execute()
