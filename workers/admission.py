"""Admission: the one way a job enters the pipeline, whoever reports it.

A failure webhook (`bot.server`) and `/denpex diagnose` (`bot.slack`) both hand a `JobEvent` to the
same `Admission`, built once by the composition root (`denpex.cli._runtime`). Exactly-once starts
here: a report wins the dedupe gate (`SET NX` on `denpex:dedupe:<job_key>`) or is answered
`duplicate`; only the winner records the (masked) job and enqueues it.

The gate's value is `pending:<time>` while the winner records, then the RQ job id. A report that
finds another one being recorded waits for it (milliseconds); one that finds a stale pending token
(its recorder failed half-way: Redis went down, the server died) takes the gate over, so the
sender's retry is not told "duplicate" for a job that was never queued.
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
from workers.store import AsyncStore, JobRecord, JobState, NodeLog

log = structlog.get_logger("denpex.admission")

#: while the first report of a job is being recorded, later reports count as duplicates this long
PENDING_TTL = 120
#: a `pending:<time>` gate older than this is left over from an accept that failed half-way
PENDING_STALE = 3.0
#: a job key reported again after this long is a new occurrence (diagnosed afresh)
DEDUPE_TTL = 6 * 3600


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
        """Win the dedupe gate: returns our `pending:<time>` token, or None for a duplicate."""
        give_up = time.monotonic() + PENDING_STALE + 1.0
        while True:
            token = f"pending:{self.clock():.6f}"
            if await self.store.claim_gate(job_key, token, PENDING_TTL):
                return token
            value = await self.store.gate(job_key)
            if value is None:
                continue
            if not value.startswith("pending") or time.monotonic() > give_up:
                return None
            stamp = value.partition(":")[2]
            stale = bool(stamp) and self.clock() - float(stamp) >= PENDING_STALE
            if stale and await self.store.take_over_gate(job_key, value, token, PENDING_TTL):
                log.warning("dedupe_gate_taken_over", job_key=job_key)
                return token
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
