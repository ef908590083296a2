"""The quota unit is reserved before the work, committed when the post lands, given back when nothing
is posted (issue 13): in-process on a real redis-server and the fake Slack, and with real
`denpex worker` processes for jobs that fail for good (they raised, or their worker died).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue, Retry
from rq.job import Job, JobStatus

from denpex.core.models import Evidence, JobRef, Scheduler
from integrations.base import UnknownJob
from integrations.slack_client import make_web_client
from knowledge.engine import Engine
from knowledge.masking import Masker
from tests.fakes.render import PlainRenderer
from tests.pipeline.conftest import WorkerProcs, install_demo_job, make_settings, slack_env, wait_until
from workers import store
from workers.collect import CollectorRegistry
from workers.context import WorkerContext
from workers.pipeline import Outcome, process, reservation_id
from workers.queueing import JOB_FUNC, rq_job_id
from workers.quota import Quota

pytestmark = pytest.mark.timeout(180)

TEAM = "T0DENPEX"  # the fake Slack's workspace (auth.test), so `denpex worker` charges it too
DAY0 = 1_800_000_000.0  # the injected clock: 2027-01-15 08:00 UTC
RECEIVED = 1_799_999_000.0


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(masker=Masker.default())


class DoesNotKnowTheJob:
    """A scheduler that has no record of the job (a purged Slurm job): a permanent failure."""

    def collect(self, job: JobRef) -> Evidence:
        raise UnknownJob(f"no job {job.job_id}")


@pytest.fixture
def make_ctx(
    redis_url: str, redis_client: redis.Redis, log_root: Path, fake_slack: Any, engine: Engine
) -> Iterator[Callable[..., WorkerContext]]:
    def build(**collectors: Any) -> WorkerContext:
        settings = make_settings(redis_url, log_root)
        return WorkerContext(
            settings=settings,
            redis=redis_client,
            masker=engine.masker,
            renderer=PlainRenderer(),
            collectors=CollectorRegistry(settings, {Scheduler(k): v for k, v in collectors.items()}),
            quota=Quota(redis_client, clock=lambda: DAY0),
            slack=make_web_client(fake_slack.bot_token, fake_slack.base_url, timeout=5),
            channel="C0ALERTS",
            team_id=TEAM,
            engine=engine,
        )

    yield build


def record_job(client: redis.Redis, log_root: Path, job_id: str, *, logs: bool = True) -> str:
    """A job as admission records it (demo logs in its folder), ready for a worker to run."""
    if logs:
        install_demo_job(log_root, "ci", job_id)
    job = JobRef(scheduler=Scheduler.files, cluster="ci", job_id=job_id, state="FAILED")
    client.hset(store.record_key(job.key), mapping=store.job_mapping(job, [], RECEIVED, rq_job_id(job.key)))
    return job.key


def status(client: redis.Redis) -> tuple[int, int, int]:
    s = Quota(client, clock=lambda: DAY0).status(TEAM)
    return s.used, s.reserved, s.remaining


def test_exhausted_workspace_is_refused_before_any_work(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    quota = Quota(redis_client, clock=lambda: DAY0)
    for i in range(3):  # three diagnoses in progress elsewhere hold the day's free units
        assert quota.reserve(TEAM, f"other-{i}").allowed
    work = record_job(redis_client, log_root, "501")
    assert process(make_ctx(), work) == Outcome.posted
    assert not redis_client.exists(store.diagnosis_key(work)), "diagnosed although over quota"
    assert redis_client.hget(store.record_key(work), "state") == b"posted"
    (root,) = fake_slack.roots("C0ALERTS")
    assert "free diagnoses" in root["text"] and "/denpex redeem" in root["text"]
    assert fake_slack.thread(root["ts"]) == []
    assert status(redis_client) == (0, 3, 0)


def test_unit_is_held_while_the_job_retries_and_committed_once_when_posted(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    work = record_job(redis_client, log_root, "502")
    ctx = make_ctx()
    fake_slack.error_next("internal_error", method="chat.postMessage")
    with pytest.raises(Exception, match="internal_error"):
        process(ctx, work)  # RQ would retry this execution
    assert redis_client.exists(store.diagnosis_key(work))
    assert status(redis_client) == (0, 1, 2), "reserved before the work, not yet used"
    assert process(ctx, work) == Outcome.posted  # the retry reuses the reservation
    assert status(redis_client) == (1, 0, 2)
    assert process(ctx, work) == Outcome.already_posted
    assert status(redis_client) == (1, 0, 2)
    (root,) = fake_slack.roots("C0ALERTS")
    assert fake_slack.thread(root["ts"])


def test_a_post_whose_commit_was_lost_is_committed_by_the_retry(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path
) -> None:
    work = record_job(redis_client, log_root, "503")
    ctx = make_ctx()
    assert process(ctx, work) == Outcome.posted
    # stage "the worker died after the post landed, before it committed": the unit is held again
    reservation = reservation_id(work, RECEIVED)
    redis_client.hset(Quota.reservation_key(reservation), "state", "held")
    redis_client.decr(Quota.used_key(TEAM, "20270115"))
    assert status(redis_client) == (0, 0, 3)  # (not in the held set: as if it had lapsed)
    assert process(ctx, work) == Outcome.already_posted
    assert status(redis_client) == (1, 0, 2)


def test_unknown_job_gives_its_unit_back(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    work = record_job(redis_client, log_root, "504", logs=False)
    ctx = make_ctx(files=DoesNotKnowTheJob())
    assert process(ctx, work) == Outcome.unknown_job
    state = redis_client.hget(Quota.reservation_key(reservation_id(work, RECEIVED)), "state")
    assert state == b"released", "reserved before collecting, released when nothing is posted"
    assert status(redis_client) == (0, 0, 3)
    assert fake_slack.roots("C0ALERTS") == []


# ---------------------------------------------------------------- real `denpex worker` processes
def _held_then(redis_client: redis.Redis, work: str) -> bytes | str | None:
    rows = redis_client.keys(Quota.reservation_key(rq_job_id(work) + "@*"))
    return redis_client.hget(rows[0], "state") if rows else None


def test_job_failing_for_good_releases_its_unit(
    fake_slack: Any,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    work = record_job(redis_client, log_root, "601")
    fake_slack.error_next("fatal_error", n=100, method="chat.postMessage")  # every post fails
    procs = workers(**slack_env(fake_slack))
    procs.start()
    queue = Queue("denpex", connection=redis_client)
    queue.enqueue(JOB_FUNC, work, job_id=rq_job_id(work), retry=Retry(max=1, interval=[0]))
    job = Job.fetch(rq_job_id(work), connection=redis_client)
    wait_until(
        lambda: job.get_status(refresh=True) == JobStatus.FAILED, 90, "the job to fail\n" + procs.output()
    )
    wait_until(lambda: _held_then(redis_client, work) == b"released", 10, "the release\n" + procs.output())
    job.refresh()
    assert job.retries_left == 0, "both executions ran: the retry reused the reservation"
    assert len(fake_slack.calls("chat.postMessage")) == 2
    quota = Quota(redis_client).status(TEAM)
    assert (quota.used, quota.reserved, quota.remaining) == (0, 0, 3)


def test_abandoned_job_without_retries_releases_its_unit(
    fake_slack: Any,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    install_demo_job(log_root, "hpc", "602")
    job_ref = JobRef(scheduler=Scheduler.slurm, cluster="hpc", job_id="602", state="FAILED", nodes=["gpu-07"])
    work = job_ref.key
    mapping = store.job_mapping(job_ref, [], 4_000_000_000.0, rq_job_id(work))  # grace never ends
    redis_client.hset(store.record_key(work), mapping=mapping)
    env = {**slack_env(fake_slack), "DENPEX_NODE_GRACE_SECONDS": "60"}
    files_for_slurm = ("--collector", "slurm=integrations.files:create_collector")
    first = workers(**env)
    victim = first.start(*files_for_slurm)
    Queue("denpex", connection=redis_client).enqueue(JOB_FUNC, work, job_id=rq_job_id(work))  # no retries
    wait_until(
        lambda: redis_client.hget(store.record_key(work), "state") == b"collecting",
        60,
        "the job to start\n" + first.output(),
    )
    assert _held_then(redis_client, work) == b"held"  # reserved before collecting
    first.kill(victim)  # worker and work-horse, mid-job
    second = workers(**env)
    second.start(*files_for_slurm)
    job = Job.fetch(rq_job_id(work), connection=redis_client)
    wait_until(
        lambda: job.get_status(refresh=True) == JobStatus.FAILED, 90, "the cleanup\n" + second.output()
    )
    wait_until(lambda: _held_then(redis_client, work) == b"released", 10, "the release\n" + second.output())
    quota = Quota(redis_client).status(TEAM)
    assert (quota.used, quota.reserved, quota.remaining) == (0, 0, 3)
    assert fake_slack.roots("C0ALERTS") == []
    assert json.loads(redis_client.get(store.diagnosis_key(work)) or "null") is None
