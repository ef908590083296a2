"""Every Redis key of the pipeline, in one module, so exactly-once rules live in one place.

Keys (all under `denpex:`; `work` is the dedupe key, normally `JobRef.key`):

- `dedupe:{work}`    — SET NX gate: the first report of a job wins, later ones are duplicates.
- `job:{work}`       — hash: the masked JobRef, masked scheduler facts, `received_at`, `state`.
- `nodelog:{job}`    — hash node → masked kernel log (JSON) from `/hooks/slurm/node`, TTL'd.
- `diagnosis:{work}` — the Diagnosis JSON (masked), TTL'd; a retried job reuses it.
- `post:{work}`      — hash: `status` (posting|posted), `channel`, `ts`, `replies`, `file`,
                       `posting_at`, `quota`; written BEFORE each Slack call it guards.
- `stats:*`          — counters the server's /metrics reads (diagnoses by category, post latency).

Everything stored here is already masked by the caller; this module never sees raw logs.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis

from denpex.models import Diagnosis, JobRef

PREFIX = "denpex:"
#: how long kernel logs from node epilogs wait for their job's failure report
NODE_LOG_TTL = 6 * 3600
#: upper bounds (seconds) of the failure-end → post histogram buckets
LATENCY_BUCKETS = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def dedupe_key(work: str) -> str:
    return f"{PREFIX}dedupe:{work}"


def job_key(work: str) -> str:
    return f"{PREFIX}job:{work}"


def nodelog_key(job_ref_key: str) -> str:
    return f"{PREFIX}nodelog:{job_ref_key}"


def diagnosis_key(work: str) -> str:
    return f"{PREFIX}diagnosis:{work}"


def post_key(work: str) -> str:
    return f"{PREFIX}post:{work}"


def post_lock_key(work: str) -> str:
    return f"{PREFIX}postlock:{work}"


STATS_CATEGORIES = f"{PREFIX}stats:diagnoses"
STATS_LATENCY = f"{PREFIX}stats:post_latency"


_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class JobRecord:
    """A queued job as the worker reads it back."""

    def __init__(self, job: JobRef, facts: list[str], received_at: float, state: str,
                 channel: str | None = None) -> None:
        self.job, self.facts, self.received_at, self.state = job, facts, received_at, state
        self.channel = channel  # the channel that asked for this diagnosis, if any


class Store:
    """Synchronous access for the worker (and the server's thread-pool paths)."""

    def __init__(self, client: redis.Redis, *, result_ttl: int) -> None:
        self.r = client
        self.ttl = result_ttl

    # ------------------------------------------------------------------ jobs
    def load_job(self, work: str) -> JobRecord | None:
        raw = self.r.hgetall(job_key(work))
        if not raw:
            return None
        data = {_s(k): _s(v) for k, v in raw.items()}
        return JobRecord(
            job=JobRef.model_validate_json(data["job"]),
            facts=json.loads(data.get("facts", "[]")),
            received_at=float(data.get("received_at", time.time())),
            state=data.get("state", "queued"),
            channel=data.get("channel") or None,
        )

    def set_state(self, work: str, state: str, **extra: str) -> None:
        self.r.hset(job_key(work), mapping={"state": state, "updated_at": str(time.time()), **extra})

    # ------------------------------------------------------------- node logs
    def node_logs(self, job_ref_key: str) -> dict[str, dict[str, Any]]:
        raw = self.r.hgetall(nodelog_key(job_ref_key))
        return {_s(k): json.loads(_s(v)) for k, v in raw.items()}

    def node_names(self, job_ref_key: str) -> set[str]:
        return {_s(k) for k in self.r.hkeys(nodelog_key(job_ref_key))}

    # ------------------------------------------------------------- diagnosis
    def load_diagnosis(self, work: str) -> Diagnosis | None:
        raw = self.r.get(diagnosis_key(work))
        return Diagnosis.model_validate_json(raw) if raw else None

    def save_diagnosis(self, work: str, diagnosis: Diagnosis) -> None:
        first = self.r.set(diagnosis_key(work), diagnosis.model_dump_json(), ex=self.ttl, nx=True)
        if first:
            self.r.hincrby(STATS_CATEGORIES, diagnosis.category, 1)

    # ----------------------------------------------------------------- posts
    def post_state(self, work: str) -> dict[str, str]:
        return {_s(k): _s(v) for k, v in self.r.hgetall(post_key(work)).items()}

    def update_post(self, work: str, **fields: str | int | float) -> None:
        with self.r.pipeline() as pipe:
            pipe.hset(post_key(work), mapping={k: str(v) for k, v in fields.items()})
            pipe.expire(post_key(work), self.ttl)
            pipe.execute()

    def acquire_post_lock(self, work: str, token: str, lease_seconds: int) -> bool:
        """Only one execution of a job posts at a time (a lease, so a dead holder cannot block forever)."""
        return bool(self.r.set(post_lock_key(work), token, nx=True, ex=lease_seconds))

    def release_post_lock(self, work: str, token: str) -> None:
        self.r.eval(_RELEASE, 1, post_lock_key(work), token)

    def record_latency(self, seconds: float) -> None:
        with self.r.pipeline() as pipe:
            for bound in LATENCY_BUCKETS:
                if seconds <= bound:
                    pipe.hincrby(STATS_LATENCY, f"le:{bound}", 1)
            pipe.hincrby(STATS_LATENCY, "count", 1)
            pipe.hincrbyfloat(STATS_LATENCY, "sum", max(seconds, 0.0))
            pipe.execute()


def job_mapping(job: JobRef, facts: list[str], received_at: float, rq_id: str,
                channel: str | None = None) -> dict[str, str]:
    """The `job:{work}` hash as the server writes it (values already masked)."""
    mapping = {"job": job.model_dump_json(), "facts": json.dumps(facts), "received_at": str(received_at),
               "state": "queued", "rq_id": rq_id}
    if channel:
        mapping["channel"] = channel
    return mapping
