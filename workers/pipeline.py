"""The RQ job: reserve quota → collect → (wait for node kernel logs) → diagnose → store → post → commit.

Each stage is idempotent against Redis state, so a job retried by RQ (an error) or re-queued after
its worker died (abandoned) resumes instead of redoing visible job_key: a stored diagnosis is reused,
a recorded Slack ts continues the same thread (see `workers.posting`).

Errors worth retrying (collector API down, Slack 5xx or timeout, Redis blips) propagate, and RQ
retries with backoff. Permanent ones (an unknown job) are recorded in the job's state and end it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum

import structlog
from slack_sdk.errors import SlackApiError

from denpex.core.models import Diagnosis, Evidence, JobRef, LogSource, MissingEvidence, Scheduler
from denpex.core.texts import pipeline as texts
from integrations.base import UnknownJob
from knowledge.parallel import resolve_jobs
from workers.collect import CollectorUnavailable
from workers.context import WorkerContext, current
from workers.floods import Floods, Shown
from workers.incidents import occurrence_member
from workers.masking import mask_model
from workers.nodehealth import IncidentStep, incident_step
from workers.ports import QuotaDecision
from workers.posting import SlackPoster
from workers.queueing import rq_job_id
from workers.store import JobRecord, JobState, Store

log = structlog.get_logger("denpex.pipeline")


class Outcome(StrEnum):
    """How one execution of the RQ job ended (its return value, kept by RQ)."""

    missing = "missing"  # no job record: it expired, or was never written
    already_posted = "already-posted"
    unknown_job = "unknown-job"  # the scheduler does not know the job (permanent)
    diagnosed = "diagnosed"  # stored, not posted (no Slack client or channel)
    posted = "posted"


#: how long one execution may hold a job's posting lock before another may take over
POST_LEASE_SECONDS = 90


class PostingBusy(RuntimeError):
    """Another execution of the same job holds the posting lock (retried with backoff)."""


def collect(ctx: WorkerContext, job: JobRef) -> Evidence:
    """Evidence from the scheduler's collector; an absent integration becomes missing evidence."""
    try:
        collector = ctx.collectors.get(job.scheduler)
    except CollectorUnavailable as exc:
        log.warning("collector_unavailable", scheduler=job.scheduler.value, problem=str(exc))
        return Evidence(
            job=job,
            missing=[
                MissingEvidence(
                    what=texts.collector_missing(job.scheduler.value),
                    next_action=texts.collector_next_action(job.scheduler.value, str(exc)),
                )
            ],
        )
    return collector.collect(job)


def wait_for_node_logs(ctx: WorkerContext, store: Store, job: JobRef, received_at: float) -> set[str]:
    """Wait until every node of a Slurm job reported its kernel log, or the grace period ends."""
    expected = set(job.nodes) if job.scheduler == Scheduler.slurm else set()
    deadline = received_at + ctx.settings.node_grace_seconds
    have = store.node_names(job.key)
    while expected - have and time.time() < deadline:
        time.sleep(min(ctx.poll_seconds, max(deadline - time.time(), 0.0)))
        have = store.node_names(job.key)
    return expected - have


def kernel_sources(store: Store, job: JobRef) -> list[LogSource]:
    return [
        LogSource(name=f"node-{node}.dmesg", data=entry.log.encode(), node=node, kind="kernel")
        for node, entry in sorted(store.node_logs(job.key).items())
    ]


def diagnose(
    ctx: WorkerContext, store: Store, job_key: str, job: JobRef, facts: list[str], received_at: float
) -> Diagnosis:
    store.set_state(job_key, JobState.collecting)
    evidence = collect(ctx, job)
    missing_nodes = wait_for_node_logs(ctx, store, job, received_at)
    sources = list(evidence.sources) + kernel_sources(store, job)
    if facts and not any(s.kind == "scheduler" for s in evidence.sources):
        sources.append(
            LogSource(name="scheduler-webhook.txt", data="\n".join(facts).encode(), kind="scheduler")
        )
    missing = list(evidence.missing) + [
        MissingEvidence(what=texts.kernel_log_missing(n), next_action=texts.kernel_log_next_action(n))
        for n in sorted(missing_nodes)
    ]
    store.set_state(job_key, JobState.diagnosing)
    jobs = resolve_jobs(ctx.settings.scan_jobs)  # the CLI's path: sources scanned on every core
    diagnosis = ctx.get_engine().diagnose(sources, missing=missing, jobs=jobs)
    return mask_model(ctx.masker, diagnosis)


def reservation_id(job_key: str, received_at: float) -> str:
    """One quota reservation per occurrence of a job: the same across RQ retries and re-queues (they
    read the same record), a new one when the key is reported again after the dedupe window."""
    return f"{rq_job_id(job_key)}@{received_at:.6f}"


def _reserve(ctx: WorkerContext, store: Store, job_key: str, reservation: str) -> QuotaDecision:
    """Hold one unit before any work, once per job: the decision is recorded and reused on retries,
    and `Quota.reserve` is idempotent per reservation for a crash before it was recorded."""
    journal = store.post_journal(job_key)
    if journal.quota:
        return QuotaDecision.model_validate_json(journal.quota)
    decision = ctx.quota.reserve(ctx.team_id, reservation, ttl=ctx.settings.quota_reserve_ttl_seconds)
    journal.record_quota(decision.model_dump_json())
    return decision


def settle_reservation(ctx: WorkerContext, job_key: str) -> None:
    """The job failed for good (RQ's retries are spent): a post that landed keeps its unit, anything
    else gives the unit back, so a failing job costs the workspace nothing."""
    store = Store(ctx.redis, result_ttl=ctx.settings.result_ttl_seconds)
    record = store.load_job(job_key)
    if record is None:
        return
    reservation = reservation_id(job_key, record.received_at)
    if store.post_journal(job_key).posted:
        ctx.quota.commit(reservation)
    elif ctx.quota.release(reservation):
        log.info("quota_released", job_key=job_key)


#: a requested channel that cannot take the thread: it goes to `DENPEX_CHANNEL` instead
UNPOSTABLE = frozenset({"channel_not_found", "not_in_channel", "is_archived"})


def _post(
    ctx: WorkerContext,
    store: Store,
    job_key: str,
    job: JobRef,
    diagnosis: Diagnosis | None,
    decision: QuotaDecision,
    requested: str | None,
    step: IncidentStep | None = None,
) -> tuple[str, str]:
    """Post in the channel that asked (`/denpex diagnose`), else in `DENPEX_CHANNEL`; fall back to
    the latter when the bot cannot post where it was asked and nothing was posted there yet. `step`
    adds the node history to the thread and records the incident with the post."""
    channel = requested or ctx.channel
    assert ctx.slack is not None and channel is not None  # process() posts only with both
    history, on_posted = (step.history, step.record) if step is not None else (None, None)
    try:
        return SlackPoster(ctx.slack, channel, store, ctx.renderer).post(
            job_key, job, diagnosis, decision, history, on_posted
        )
    except SlackApiError as exc:
        error = exc.response.get("error")
        fallback = ctx.channel if ctx.channel and ctx.channel != channel else None
        if fallback is None or error not in UNPOSTABLE or store.post_journal(job_key).ts:
            raise
        log.warning("requested_channel_unpostable", job_key=job_key, error=error)
        return SlackPoster(ctx.slack, fallback, store, ctx.renderer).post(
            job_key, job, diagnosis, decision, history, on_posted
        )


def _show(
    ctx: WorkerContext,
    store: Store,
    job_key: str,
    record: JobRecord,
    shown: Diagnosis | None,
    decision: QuotaDecision,
    step: IncidentStep | None,
) -> Shown:
    """A report for `DENPEX_CHANNEL`: its own thread, its group's thread, or the cap's summary."""
    assert ctx.slack is not None and ctx.channel is not None  # process() posts only with both
    poster = SlackPoster(ctx.slack, ctx.channel, store, ctx.renderer)
    history = step.history if step is not None else None

    def post_thread(on_posted: Callable[[str, str], None]) -> tuple[str, str]:
        return poster.post(job_key, record.job, shown, decision, history, on_posted)

    return Floods(ctx, store, poster).show(job_key, record, shown, step, post_thread)


def _failure_end(job: JobRef, received_at: float) -> float:
    if job.end is not None:
        end = job.end if job.end.tzinfo else job.end.replace(tzinfo=UTC)
        return end.timestamp()
    return received_at


def _diagnosis(ctx: WorkerContext, store: Store, job_key: str, record: JobRecord) -> Diagnosis | None:
    """The stored diagnosis, or a fresh one (stored); None when the scheduler does not know the job."""
    diagnosis = store.load_diagnosis(job_key)
    if diagnosis is None:
        try:
            diagnosis = diagnose(ctx, store, job_key, record.job, record.facts, record.received_at)
        except UnknownJob as exc:
            store.set_state(job_key, JobState.failed, error=ctx.masker.mask(str(exc))[:500])
            log.warning("job_unknown", job_key=job_key)
            return None
        store.save_diagnosis(job_key, diagnosis)
        diagnosis = store.load_diagnosis(job_key) or diagnosis  # a concurrent execution may have won
        log.info("diagnosed", job_key=job_key, category=diagnosis.category, rank=diagnosis.initiating.rank)
    store.set_state(job_key, JobState.diagnosed, category=diagnosis.category)
    return diagnosis


def _post_once(
    ctx: WorkerContext,
    store: Store,
    job_key: str,
    record: JobRecord,
    diagnosis: Diagnosis | None,
    decision: QuotaDecision,
) -> Outcome:
    """Post under the job's posting lock; the reserved unit is committed once the post has landed."""
    reservation = reservation_id(job_key, record.received_at)
    token = uuid.uuid4().hex
    if not store.acquire_post_lock(job_key, token, POST_LEASE_SECONDS):
        raise PostingBusy(job_key)  # another execution is posting this job; RQ retries later
    try:
        if store.post_journal(job_key).posted:
            ctx.quota.commit(reservation)
            return Outcome.already_posted
        shown = diagnosis if decision.allowed else None
        at = _failure_end(record.job, record.received_at)
        member = occurrence_member(job_key, record.received_at)
        step = incident_step(ctx, record.job, shown, member, at, decision.plan) if shown else None
        if record.channel is None:  # DENPEX_CHANNEL: grouped, capped (`workers.floods`)
            result = _show(ctx, store, job_key, record, shown, decision, step)
        else:
            channel, ts = _post(ctx, store, job_key, record.job, shown, decision, record.channel, step)
            result = Shown(channel, ts, new_thread=True)
        channel, ts = result.channel, result.ts
        if result.new_thread:
            ctx.quota.commit(reservation)
        else:  # no new thread, no unit; given back before `finish`, so a retry cannot commit it
            ctx.quota.release(reservation)
            store.post_journal(job_key).finish()
        store.set_state(job_key, JobState.posted, ts=ts, channel=channel)
        store.record_latency(max(time.time() - _failure_end(record.job, record.received_at), 0.0))
    finally:
        store.release_post_lock(job_key, token)
    log.info("posted", job_key=job_key, channel=channel, ts=ts, at=datetime.now(UTC).isoformat())
    return Outcome.posted


def process(ctx: WorkerContext, job_key: str) -> Outcome:
    """One execution of the job. The quota unit is reserved before any work (an exhausted workspace
    gets the over-quota post without a diagnosis), committed when the post lands, released when
    there is nothing to post; a job that fails for good is settled by `DenpexWorker`."""
    store = Store(ctx.redis, result_ttl=ctx.settings.result_ttl_seconds)
    record = store.load_job(job_key)
    if record is None:
        log.warning("job_record_missing", job_key=job_key)
        return Outcome.missing
    reservation = reservation_id(job_key, record.received_at)
    if store.post_journal(job_key).posted:
        ctx.quota.commit(reservation)  # the worker died between the post and its commit
        return Outcome.already_posted
    if ctx.slack is None or not (record.channel or ctx.channel):
        # nothing is posted, so no unit is taken
        return Outcome.diagnosed if _diagnosis(ctx, store, job_key, record) else Outcome.unknown_job
    decision = _reserve(ctx, store, job_key, reservation)
    diagnosis = None
    if decision.allowed:
        diagnosis = _diagnosis(ctx, store, job_key, record)
        if diagnosis is None:
            ctx.quota.release(reservation)  # nothing to post: the unit comes back
            return Outcome.unknown_job
    return _post_once(ctx, store, job_key, record, diagnosis, decision)


def run_job(job_key: str) -> Outcome:
    """The RQ job function (`workers.queueing.JOB_FUNC`)."""
    return process(current(), job_key)
