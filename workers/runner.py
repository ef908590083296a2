"""RQ worker processes that carry a `WorkerContext`, and find abandoned jobs quickly.

`DenpexWorker` is a forking `rq.Worker`: the context (engine, masker, clients) is built once in the
parent and inherited by every work-horse. Two RQ timings are shortened so a worker killed mid-job
(SIGKILL, OOM, node loss) is noticed in seconds rather than minutes:

- the started-registry heartbeat TTL is `job_monitoring_interval + heartbeat_grace` (RQ adds a
  fixed 60 s), so an execution whose worker died expires quickly;
- maintenance (`StartedJobRegistry.cleanup`, which re-queues expired executions while retries are
  left) runs every `maintenance_interval` seconds, and the blocking dequeue wakes up that often.

A job that fails for good (its RQ retries are spent: it raised, its work-horse died, or it was
abandoned) gives back the quota unit it reserved (`workers.pipeline.settle_reservation`); a retried
job keeps it.

`run_worker` runs one worker; `denpex worker` supervises several of them.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from types import TracebackType
from typing import Any

import redis
import structlog
from rq import Queue, Worker
from rq.exceptions import AbandonedJobError
from rq.job import Job, JobStatus

from workers.context import WorkerContext, reset_current, set_current
from workers.pipeline import settle_reservation

log = structlog.get_logger("denpex.runner")

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask Linux to send `sig` to this process when its parent dies (no-op elsewhere).

    RQ puts each work-horse in its own process group, so a worker killed with SIGKILL (OOM killer,
    `kill -9`) would leave its horse running the job while the job's heartbeat lapses and another
    worker picks it up again: two executions of one job. Dying with the parent prevents that.
    """
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


class DenpexWorker(Worker):
    context: WorkerContext | None = None
    heartbeat_grace: int = 10

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        interval = self.job_monitoring_interval
        if job.timeout and job.timeout > 0:
            interval = min(job.timeout - working_time, interval)
        return int(max(interval, 1)) + self.heartbeat_grace

    def setup_work_horse_signals(self) -> None:
        super().setup_work_horse_signals()  # type: ignore[no-untyped-call]  # rq leaves it untyped
        die_with_parent(signal.SIGKILL)

    def settle(self, job: Job) -> None:
        """Give back (or, if its post landed, commit) the quota unit of a job that failed for good."""
        if self.context is None or not job.args:
            return
        try:
            settle_reservation(self.context, str(job.args[0]))
        except redis.RedisError:  # the reservation lapses after its TTL instead
            log.warning("quota_settle_failed", rq_job=job.id, exc_info=True)

    def handle_job_failure(self, job: Job, queue: Queue, *args: Any, **kwargs: Any) -> None:
        """RQ's failure handling (retry or fail); a job it marked failed (or stopped) is settled."""
        super().handle_job_failure(job, queue, *args, **kwargs)
        try:
            final = job.get_status(refresh=True) in (JobStatus.FAILED, JobStatus.STOPPED)
        except redis.RedisError:  # the reservation lapses after its TTL instead
            return
        if final:
            self.settle(job)

    def settle_abandoned(
        self, job: Job, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        """Exception handler: an abandoned job (its worker died) with no retries left is settled here,
        since RQ's registry cleanup fails it without `handle_job_failure`."""
        if exc_type is AbandonedJobError and not job.should_retry:
            self.settle(job)

    def perform_job(self, job: Job, queue: Queue, *args: Any, **kwargs: Any) -> bool:
        if self.context is None:
            return super().perform_job(job, queue, *args, **kwargs)
        token = set_current(self.context)
        try:
            return super().perform_job(job, queue, *args, **kwargs)
        finally:
            reset_current(token)


def build_worker(
    ctx: WorkerContext,
    *,
    name: str | None = None,
    maintenance_interval: int = 15,
    monitoring_interval: int = 5,
    heartbeat_grace: int = 10,
) -> DenpexWorker:
    queue = Queue(ctx.settings.queue_name, connection=ctx.redis)
    worker = DenpexWorker(
        [queue],
        name=name,
        connection=ctx.redis,
        maintenance_interval=maintenance_interval,
        job_monitoring_interval=monitoring_interval,
        # the blocking dequeue lasts worker_ttl - 15 s; keep it no longer than the maintenance interval
        worker_ttl=maintenance_interval + 15,
    )
    worker.context = ctx
    worker.heartbeat_grace = heartbeat_grace
    worker.push_exc_handler(worker.settle_abandoned)  # type: ignore[no-untyped-call]  # rq leaves it untyped
    return worker


def run_worker(
    ctx: WorkerContext,
    *,
    burst: bool = False,
    with_scheduler: bool = True,
    logging_level: str = "WARNING",
    **options: Any,
) -> bool:
    worker = build_worker(ctx, **options)
    return worker.work(burst=burst, with_scheduler=with_scheduler, logging_level=logging_level)
