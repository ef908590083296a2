"""Putting a job on the RQ queue: the job function, its id, retries and timeouts in one place.

`workers.admission` calls `enqueue` after it has won the dedupe gate; the RQ job carries
only the job key, everything else is read back from Redis by the worker, so a retried or
re-enqueued job always sees the current state.
"""

from __future__ import annotations

import hashlib

from rq import Queue, Retry

#: referenced by name so the server never imports the engine
JOB_FUNC = "workers.pipeline.run_job"
#: first retry at once (an abandoned job is re-queued without waiting for the scheduler), then backoff
RETRY_INTERVALS = (0, 5, 20, 60, 180)
JOB_TIMEOUT = 900


def rq_job_id(job_key: str) -> str:
    """Deterministic: re-enqueueing the same job key overwrites, it never forks a second RQ job."""
    return "denpex-" + hashlib.sha256(job_key.encode()).hexdigest()[:32]


def retry_policy() -> Retry:
    return Retry(max=len(RETRY_INTERVALS), interval=list(RETRY_INTERVALS))


def enqueue(queue: Queue, job_key: str, *, result_ttl: int, job_timeout: int = JOB_TIMEOUT) -> str:
    job = queue.enqueue(
        JOB_FUNC,
        job_key,
        job_id=rq_job_id(job_key),
        retry=retry_policy(),
        job_timeout=job_timeout,
        result_ttl=result_ttl,
        failure_ttl=result_ttl,
        description=f"diagnose {job_key}",
    )
    return job.id
