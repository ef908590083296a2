"""No floods (issue 17 part 5): a job array failing alike is one thread updated in place, a task that
fails differently gets its own, a retried post never counts twice, and the per-channel cap folds
the rest into one "N more failures" message. Real redis-server, real `denpex worker` processes for
the concurrent case, the real engine and Block Kit renderer, the fake Slack over real HTTP. Times
come from the job records (an injected clock), never from the date or a sleep.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from aiohttp.test_utils import TestClient, TestServer
from slack_sdk.errors import SlackApiError

from bot.server import build_deps, create_app
from bot.slack.groups import fold_summary, task_ranges
from bot.slack.render import BlockKitRenderer
from denpex.core.models import JobRef, Scheduler
from integrations.slack_client import make_web_client
from knowledge.engine import Engine
from knowledge.masking import Masker
from tests.knowledge.scenarios import nccl_init, oom_then_watchdog, training, watchdog, write
from tests.pipeline.conftest import WorkerProcs, make_settings, signed, slack_env, wait_async
from workers import store
from workers.collect import CollectorRegistry
from workers.context import WorkerContext
from workers.groups import GroupKind, membership
from workers.incidents import IncidentBook
from workers.pipeline import Outcome, process
from workers.ports import FoldedJob, FoldSummary
from workers.queueing import rq_job_id
from workers.quota import Quota

pytestmark = pytest.mark.timeout(180)

TEAM = "T0DENPEX"
DAY0 = 1_800_000_000.0  # 2027-01-15 08:00 UTC: the quota's and the records' clock
FILES_FOR_SLURM = "slurm=integrations.files:create_collector"


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(masker=Masker.default())


def oom_logs(folder: Path) -> Path:
    return oom_then_watchdog(folder, ranks=2, culprit=1)


def nccl_logs(folder: Path) -> Path:
    """Both ranks time out in the NCCL watchdog: a different failure than the OOM."""
    for r in range(2):
        write(
            folder, f"rank{r}.log", nccl_init(r, 2, "gpu-01") + training(r, 20) + watchdog(r, "1120 03:24:02")
        )
    return folder


def slurm_task(i: int, *, array: str = "5000", first: int = 5001) -> dict[str, Any]:
    """The Slurm hook's body for task `i` of array `array` (its own SLURM_JOB_ID)."""
    return {
        "cluster": "hpc",
        "job_id": str(first + i),
        "state": "FAILED",
        "exit_code": "1:0",
        "array_job_id": array,
        "array_task_id": str(i),
    }


def record_task(
    client: redis.Redis, log_root: Path, i: int, at: float, logs: Callable[[Path], Path] = oom_logs
) -> str:
    """A Slurm array task as admission records it (fact line with its array ids), received at `at`."""
    body = slurm_task(i)
    logs(log_root / "hpc" / body["job_id"])
    job = JobRef(scheduler=Scheduler.slurm, cluster="hpc", job_id=body["job_id"], state="FAILED")
    fact = f"slurm: JobId={body['job_id']} JobState=FAILED ExitCode=1:0 ArrayJobId=5000 ArrayTaskId={i}"
    mapping = store.job_mapping(job, [fact], at, rq_job_id(job.key))
    client.hset(store.record_key(job.key), mapping=mapping)
    return job.key


def record_files_job(client: redis.Redis, log_root: Path, job_id: str, at: float) -> str:
    oom_logs(log_root / "ci" / job_id)
    job = JobRef(scheduler=Scheduler.files, cluster="ci", job_id=job_id, state="FAILED")
    client.hset(store.record_key(job.key), mapping=store.job_mapping(job, [], at, rq_job_id(job.key)))
    return job.key


@pytest.fixture
def make_ctx(
    redis_url: str, redis_client: redis.Redis, log_root: Path, fake_slack: Any, engine: Engine
) -> Iterator[Callable[..., WorkerContext]]:
    def build(**env: Any) -> WorkerContext:
        settings = make_settings(redis_url, log_root, **env)
        return WorkerContext(
            settings=settings,
            redis=redis_client,
            masker=engine.masker,
            renderer=BlockKitRenderer(engine.entries),
            collectors=CollectorRegistry(settings, {Scheduler.slurm: "integrations.files:create_collector"}),
            quota=Quota(redis_client, clock=lambda: DAY0),
            slack=make_web_client(fake_slack.bot_token, fake_slack.base_url, timeout=5),
            channel="C0ALERTS",
            team_id=TEAM,
            engine=engine,
        )

    yield build


def scale(client: redis.Redis, clock: Callable[[], float] = lambda: DAY0) -> Quota:
    quota = Quota(client, clock=clock)
    assert quota.redeem(TEAM, quota.create_codes(daily_limit=500)[0]).ok
    return quota


def message_text(message: dict[str, Any]) -> str:
    blocks = message.get("blocks") or []
    parts = [message.get("text", "")]
    for block in blocks:
        parts.append((block.get("text") or {}).get("text", ""))
        parts += [e.get("text", "") for e in block.get("elements") or [] if isinstance(e, dict)]
    return "\n".join(parts)


def incidents(client: redis.Redis, cluster: str) -> int:
    return len(IncidentBook(client).incidents(cluster))


# ------------------------------------------------------------------ units


def test_group_key_is_typed_from_the_reported_facts() -> None:
    def rec(facts: list[str], scheduler: Scheduler = Scheduler.slurm, channel: str | None = None) -> Any:
        job = JobRef(scheduler=scheduler, cluster="hpc", job_id="77", namespace=None)
        return store.JobRecord(job, facts, DAY0, store.JobState.queued, channel)

    array = membership(rec(["slurm: JobId=77 JobState=FAILED ExitCode=1:0 ArrayJobId=70 ArrayTaskId=7"]))
    assert array is not None and array.key.kind is GroupKind.array
    assert (array.key.parent, array.task) == ("70", "7")
    requeued = membership(rec(["slurm: JobId=77 JobState=FAILED ExitCode=1:0 Restarts=2"]))
    assert requeued is not None and requeued.key.kind is GroupKind.requeue
    assert (requeued.key.parent, requeued.task) == ("77", "restart 2")
    assert membership(rec([], Scheduler.files)) is None
    assert membership(rec(["slurm: ArrayJobId=70 ArrayTaskId=7"], channel="C0GENERAL")) is None  # asked for


def test_task_ids_compress_and_the_summary_stays_within_slack_limits() -> None:
    assert task_ranges([str(i) for i in [*range(42), 43]]) == "0-41,43"
    jobs = [
        FoldedJob(job_id=str(9000 + i), category="gpu_oom", group="9000", task=str(i)) for i in range(5000)
    ]
    jobs += [FoldedJob(job_id=f"x{i}", category="nccl_timeout") for i in range(5000)]
    message = fold_summary(FoldSummary(count=len(jobs), jobs=jobs))
    assert message.text.startswith("10000 more failures")
    listed = message.blocks[1]["text"]["text"]
    assert "array `9000`: 5000 tasks (0-4999): gpu_oom" in listed and "more" in listed
    assert len(json.dumps(message.blocks)) < 12_000 and all(
        len(b.get("text", {}).get("text", "")) <= 3000 for b in message.blocks
    )


# ------------------------------------------------------------------ in-process


def test_a_task_failing_differently_gets_its_own_thread_and_quota_counts_threads(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    quota = scale(redis_client)
    ctx = make_ctx()
    for i in range(4):
        assert process(ctx, record_task(redis_client, log_root, i, DAY0 + i)) == Outcome.posted
    assert process(ctx, record_task(redis_client, log_root, 4, DAY0 + 4, nccl_logs)) == Outcome.posted
    roots = fake_slack.roots("C0ALERTS")
    assert len(roots) == 2, [r["text"] for r in roots]
    texts = sorted(message_text(r) for r in roots)
    grouped = [t for t in texts if "tasks of array `5000` failed alike" in t]
    assert len(grouped) == 1 and "4 tasks of array `5000` failed alike:* 0-3" in grouped[0]
    assert [c for c in fake_slack.calls("chat.update") if c.ok], "the group root was updated in place"
    assert incidents(redis_client, "hpc") == 5
    status = quota.status(TEAM)
    assert (status.used, status.reserved) == (2, 0), "one unit per new thread; grouped tasks are free"
    for i in range(5):  # every task knows where it is shown (`/denpex diagnose` finds it)
        state = redis_client.hgetall(store.record_key(f"slurm:hpc:{5001 + i}"))
        assert state[b"state"] == b"posted" and state[b"ts"].decode() in {r["ts"] for r in roots}


def test_a_retried_post_does_not_count_twice(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    quota = scale(redis_client)
    ctx = make_ctx()
    assert process(ctx, record_task(redis_client, log_root, 0, DAY0)) == Outcome.posted
    work = record_task(redis_client, log_root, 1, DAY0 + 1)
    fake_slack.error_next("internal_error", 1, method="chat.update")  # the member's update fails: RQ retries
    with pytest.raises(SlackApiError):
        process(ctx, work)
    assert process(ctx, work) == Outcome.posted  # the retry
    # a worker that died after showing the task, before finishing its job: the retry runs it all again
    redis_client.hdel(store.post_key(work), "status")
    redis_client.hdel(store.record_key(work), "state", "channel", "ts")
    assert process(ctx, work) == Outcome.posted
    assert process(ctx, work) == Outcome.already_posted
    (root,) = fake_slack.roots("C0ALERTS")
    assert "2 tasks of array `5000` failed alike:* 0,1" in message_text(root)
    assert incidents(redis_client, "hpc") == 2
    status = quota.status(TEAM)
    assert (status.used, status.reserved) == (1, 0)


def test_the_thread_cap_folds_the_rest_into_one_summary(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    quota = scale(redis_client)
    ctx = make_ctx(DENPEX_MAX_THREADS_PER_MIN=3)
    ids = [f"f{i}" for i in range(8)]
    for i, job_id in enumerate(ids):  # 8 distinct failures reported within 8 seconds
        assert process(ctx, record_files_job(redis_client, log_root, job_id, DAY0 + i)) == Outcome.posted
    roots = fake_slack.roots("C0ALERTS")
    summaries = [r for r in roots if "more failures" in r["text"]]
    threads = [r for r in roots if r not in summaries]
    assert len(threads) == 3 and len(summaries) == 1, [r["text"] for r in roots]
    text = message_text(summaries[0])
    assert "5 more failures" in text
    assert all(f"`{j}`" in text for j in ids[3:]) and not any(f"`{j}`" in text for j in ids[:3])
    assert incidents(redis_client, "ci") == 8
    assert (quota.status(TEAM).used, quota.status(TEAM).reserved) == (3, 0), "folded failures are free"
    # a minute later (report time, not wall time) the window has room again
    assert process(ctx, record_files_job(redis_client, log_root, "f8", DAY0 + 61)) == Outcome.posted
    assert len(fake_slack.roots("C0ALERTS")) == 5


# ------------------------------------------------------------------ real workers


@pytest.fixture
async def client(redis_url: str, log_root: Path) -> AsyncIterator[TestClient]:
    settings = make_settings(redis_url, log_root)
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


async def test_30_array_tasks_on_3_workers_make_one_thread_and_a_different_one_its_own(
    client: TestClient,
    fake_slack: Any,
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    quota = scale(redis_client, time.time)  # `denpex worker` charges the fake Slack's workspace
    tasks = [slurm_task(i) for i in range(31)]
    for body in tasks[:30]:
        oom_logs(log_root / "hpc" / body["job_id"])
    nccl_logs(log_root / "hpc" / tasks[30]["job_id"])  # task 30 fails differently
    procs = workers(**slack_env(fake_slack))
    procs.start("--processes", "3", "--collector", FILES_FOR_SLURM)
    started = time.monotonic()

    async def send(body: dict[str, Any]) -> int:
        data, headers = signed(body, path="/hooks/slurm")
        return (await client.post("/hooks/slurm", data=data, headers=headers)).status

    assert set(await asyncio.gather(*[send(b) for b in tasks])) == {202}

    def done() -> bool:
        keys = [store.record_key(f"slurm:hpc:{b['job_id']}") for b in tasks]
        return all(redis_client.hget(k, "state") == b"posted" for k in keys)

    await wait_async(done, 120, "every task shown\n" + procs.output())
    elapsed = time.monotonic() - started
    roots = fake_slack.roots("C0ALERTS")
    assert len(roots) == 2, [r["text"] for r in roots]
    grouped = [r for r in roots if "failed alike" in message_text(r)]
    assert len(grouped) == 1
    assert "30 tasks of array `5000` failed alike:* 0-29" in message_text(grouped[0])
    own = next(r for r in roots if r is not grouped[0])
    assert own["text"].startswith("Job 5031 on hpc failed")
    assert incidents(redis_client, "hpc") == 31
    status = quota.status(TEAM)
    assert (status.used, status.reserved) == (2, 0)
    print(
        json.dumps(
            {"tasks": 31, "seconds": round(elapsed, 1), "updates": len(fake_slack.calls("chat.update"))}
        )
    )
