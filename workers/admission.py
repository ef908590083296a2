"""Admission: the one way a job enters the pipeline, whoever reports it.

A failure webhook (`bot.server`) and `/denpex diagnose` (`bot.slack`) both hand a `JobEvent` to the
same `Admission`, built once by the composition root (`denpex.cli._runtime`). Exactly-once starts
here: a report wins the dedupe gate (`SET NX` on `denpex:dedupe:<job_key>`) or is answered
`duplicate`; only the winner records the (masked) job and enqueues it.

The gate's value is `pending:<time>` while the winner records, then the RQ job id. A report that
finds another one being recorded waits for it (milliseconds); one that finds a stale pending token
(its recorder failed half-way: Redis went down, the server died) takes the gate over, so the
sender's retry is not told "duplicate" for a job that was never queued.

The gate is one Lua script (`GATE_SCRIPT`): claim, read and stale takeover in a single round trip.
In a storm (every node's epilog reports the same job) nearly every request is a duplicate, and each
extra round trip is event-loop time `/healthz` waits behind; a duplicate costs exactly one `EVALSHA`
and writes nothing, so it needs no replica `WAIT` either.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

import redis
import redis.asyncio as aioredis
import structlog
from rq import Queue

from denpex.core.models import JobRef
from denpex.core.settings import Settings
from workers.masking import TextMasker, mask_async, mask_model
from workers.queueing import enqueue, rq_job_id
from workers.redisconn import RedisTarget, async_client, sync_client
from workers.store import AsyncStore, JobRecord, JobState, NodeLog, as_str, dedupe_key

log = structlog.get_logger("denpex.admission")

#: while the first report of a job is being recorded, later reports count as duplicates this long
PENDING_TTL = 120
#: a `pending:<time>` gate older than this is left over from an accept that failed half-way
PENDING_STALE = 3.0
#: a job key reported again after this long is a new occurrence (diagnosed afresh)
DEDUPE_TTL = 6 * 3600

# KEYS: gate | ARGV: our pending token, pending ttl, now, stale after (seconds)
# -> {outcome, value}: "won" (gate was free, now ours), "taken" (a stale pending token replaced by ours),
#    "pending" (another report is being recorded), "duplicate" (value: the queued job's RQ id)
GATE_SCRIPT = """
local seen = redis.call('GET', KEYS[1])
if not seen then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
  return {'won', ARGV[1]}
end
if string.sub(seen, 1, 7) ~= 'pending' then return {'duplicate', seen} end
local stamp = tonumber(string.sub(seen, 9))
if stamp and tonumber(ARGV[3]) - stamp >= tonumber(ARGV[4]) then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
  return {'taken', seen}
end
return {'pending', seen}
"""


class Admitted(StrEnum):
    queued = "queued"
    duplicate = "duplicate"


@dataclass
class JobEvent:
    """What a report asks for: diagnose `job`; `facts` are scheduler facts from the report."""

    job: JobRef
    facts: list[str] = field(default_factory=list)
    #: the dedupe key; defaults to `job.key` (a requeued Slurm job adds `#restart<n>`)
    dedupe_key: str = ""
    #: where the thread should go when someone asked for it (`/denpex diagnose` in a channel);
    #: None: `DENPEX_CHANNEL`
    channel: str | None = None

    def __post_init__(self) -> None:
        self.dedupe_key = self.dedupe_key or self.job.key


class Admission:
    """Dedupe gate, stale takeover, masked job record and enqueue, for every route into the pipeline."""

    def __init__(
        self,
        aredis: aioredis.Redis,
        queue: Queue,
        masker: TextMasker,
        *,
        result_ttl: int,
        dedupe_ttl: int = DEDUPE_TTL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = AsyncStore(aredis, result_ttl=result_ttl)
        self.queue, self.masker = queue, masker
        self.result_ttl, self.dedupe_ttl, self.clock = result_ttl, dedupe_ttl, clock
        # EVALSHA, loading the script once per server (again after a failover to a fresh master)
        self._gate_script = aredis.register_script(GATE_SCRIPT)

    @classmethod
    def connect(cls, settings: Settings, masker: TextMasker) -> Admission:
        """An Admission with clients of its own, for a process without the webhook server."""
        target = RedisTarget.from_settings(settings)
        queue = Queue(settings.queue_name, connection=sync_client(target))
        return cls(
            async_client(target),
            queue,
            masker,
            result_ttl=settings.result_ttl_seconds,
        )

    async def _gate(self, job_key: str) -> str | None:
        """Win the dedupe gate: returns our `pending:<time>` token, or None for a duplicate.

        One script call per attempt; only a report that finds another one still being recorded
        (the first milliseconds of a storm) asks again, until that one is queued or goes stale."""
        give_up = time.monotonic() + PENDING_STALE + 1.0
        while True:
            now = f"{self.clock():.6f}"
            token = f"pending:{now}"
            args: list[str | float] = [token, PENDING_TTL, now, PENDING_STALE]
            raw = await self._gate_script(keys=[dedupe_key(job_key)], args=args)
            outcome = as_str(raw[0])
            if outcome == "won":
                return token
            if outcome == "taken":
                log.warning("dedupe_gate_taken_over", job_key=job_key)
                return token
            if outcome == "duplicate" or time.monotonic() > give_up:
                return None
            await asyncio.sleep(0.02)

    async def accept(self, event: JobEvent) -> Admitted:
        """Win the dedupe gate, record the masked job, enqueue."""
        job_key = event.dedupe_key
        token = await self._gate(job_key)
        if token is None:
            return Admitted.duplicate
        rq_id = rq_job_id(job_key)
        try:
            await self._record(event, rq_id)
            await asyncio.to_thread(enqueue, self.queue, job_key, result_ttl=self.result_ttl)
        except Exception:
            # not queued: reopen the gate so the sender's retry is not taken for a duplicate
            with contextlib.suppress(redis.RedisError):
                await self.store.release_gate(job_key, token)
            raise
        # queued: from here on a failure must not reopen the gate (a retry would re-queue the job and
        # wipe its post state); at worst the pending token goes stale and a much later report retakes it
        with contextlib.suppress(redis.RedisError):
            await self.store.close_gate(job_key, rq_id, self.dedupe_ttl)
        await self.store.replicated()  # Sentinel: on the replica before the 202 (a failure here: 503)
        return Admitted.queued

    async def _record(self, event: JobEvent, rq_id: str) -> None:
        job = mask_model(self.masker, event.job)
        facts = [await mask_async(self.masker, f) for f in event.facts]
        previous = await self.store.received_at(event.dedupe_key)
        now = self.clock()
        # A new occurrence of this key (its last report is older than the dedupe window) starts
        # from a clean slate. A gate taken over from a stalled recorder is the same occurrence:
        # its diagnosis and post state must survive, or the job could be posted twice.
        if previous is None or now - previous >= self.dedupe_ttl:
            record = JobRecord(job, facts, now, JobState.queued, channel=event.channel)
            await self.store.start_occurrence(event.dedupe_key, record, rq_id)

    async def node_log(
        self, job: JobRef, node: str, kernel_log: str, *, truncated: bool, since: datetime | None
    ) -> None:
        """Keep one node's kernel log (masked) for the job's diagnosis, which may not be queued yet."""
        entry = NodeLog(
            log=await mask_async(self.masker, kernel_log),
            truncated=truncated,
            since=since.isoformat() if since else None,
            received_at=self.clock(),
        )
        await self.store.save_node_log(job.key, node, entry)
        await self.store.replicated()
