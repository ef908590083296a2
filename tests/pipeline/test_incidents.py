"""The incident history and node health (issue 17), through the real pipeline: real redis-server, the
real engine and Block Kit renderer, the fake Slack. Jobs are 8 ranks on two nodes (ranks 0-3 on one,
4-7 on the other); the failing GPU's Xid is in its node's kernel log. Times come from the job
records (an injected clock), never from the date."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.slack.nodes import drain_commands
from bot.slack.render import BlockKitRenderer
from denpex.core.models import JobRef, Scheduler
from integrations.slack_client import make_web_client
from knowledge.engine import Engine
from knowledge.masking import Masker
from tests.knowledge.scenarios import BUS, nccl_init, training, watchdog, write
from tests.pipeline.conftest import make_settings
from workers import store
from workers.collect import CollectorRegistry
from workers.context import WorkerContext
from workers.incidents import HistoryLimits, Incident, IncidentBook, NodeSignal
from workers.nodehealth import NodeRecord, ranked_nodes
from workers.pipeline import Outcome, process
from workers.queueing import rq_job_id
from workers.quota import Quota

pytestmark = pytest.mark.timeout(180)

TEAM = "T0DENPEX"
DAY0 = 1_800_000_000.0  # 2027-01-15 08:00 UTC: the quota's clock
HOUR = 3600.0


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(masker=Masker.default())


def xid_job(folder: Path, node: str, other: str, xid: int, culprit: int) -> Path:
    """8 ranks; the four on `node` include `culprit`, whose GPU raises `xid` in `node`'s kernel log;
    the others time out in the NCCL watchdog. Xid 79: the GPU fell off the bus (hardware); Xid 13:
    an illegal address in the job's own kernel (application)."""
    for r in range(8):
        host = node if (r < 4) == (culprit < 4) else other
        lines = nccl_init(r, 8, host) + training(r, 100)
        if r == culprit:
            error = "unspecified launch failure" if xid == 79 else "an illegal memory access was encountered"
            lines += [f"[rank{r}]: RuntimeError: CUDA error: {error}"]
        else:
            lines += watchdog(r, "1120 03:24:02.123456")
        write(folder, f"rank{r}.log", lines)
    pci = f"0000:{BUS[culprit % 8][:2]}:00"
    why = "GPU has fallen off the bus." if xid == 79 else "Graphics Exception: ESR 0x404490=0x80000001"
    kernel = f"[Fri Nov 20 03:14:02 2026] NVRM: Xid (PCI:{pci}): {xid}, pid=48211, name=python, {why}"
    write(folder, f"node-{node}.dmesg", [kernel])
    write(folder, f"node-{other}.dmesg", ["[Fri Nov 20 02:00:00 2026] Linux version 5.15.0-105-generic"])
    return folder


def record_job(client: redis.Redis, log_root: Path, job_id: str, at: float, **kw: Any) -> str:
    """A job as admission records it, received at `at`, its logs from `xid_job(**kw)`."""
    xid_job(log_root / "ci" / job_id, **kw)
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
            collectors=CollectorRegistry(settings),
            quota=Quota(redis_client, clock=lambda: DAY0),
            slack=make_web_client(fake_slack.bot_token, fake_slack.base_url, timeout=5),
            channel="C0ALERTS",
            team_id=TEAM,
            engine=engine,
        )

    yield build


def scale(client: redis.Redis) -> None:
    quota = Quota(client, clock=lambda: DAY0)
    assert quota.redeem(TEAM, quota.create_codes()[0]).ok


def node_section(fake_slack: Any, ts: str, heading: str = "*Node history*") -> str:
    """The thread's section that starts with `heading`, or "" when the thread has none."""
    for message in fake_slack.thread(ts):
        for block in message.get("blocks") or []:
            text = (block.get("text") or {}).get("text", "")
            if text.startswith(heading):
                return str(text)
    return ""


def run_jobs(
    ctx: WorkerContext, client: redis.Redis, log_root: Path, fake: Any, ids: list[str], **kw: Any
) -> list[str]:
    """Each job through the pipeline, an hour apart; the node sections of their threads."""
    for i, job_id in enumerate(ids):
        work = record_job(client, log_root, job_id, DAY0 + i * HOUR, **kw)
        assert process(ctx, work) == Outcome.posted
    roots = {r["text"].split()[1]: r["ts"] for r in fake.roots("C0ALERTS")}
    return [node_section(fake, roots[job_id]) for job_id in ids]


GPU07 = {"node": "gpu-07", "other": "gpu-06", "xid": 79, "culprit": 5}
APP06 = {"node": "gpu-06", "other": "gpu-07", "xid": 13, "culprit": 2}


def test_third_xid79_on_gpu07_names_earlier_incidents_and_gives_the_drain_command(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    scale(redis_client)
    first, second, third = run_jobs(
        make_ctx(), redis_client, log_root, fake_slack, ["1001", "1002", "1003"], **GPU07
    )
    # the catalogue takes a GPU that fell off the bus out at once: advice from the first job on
    assert "scontrol update nodename=gpu-07 state=drain" in first and "Earlier" not in first
    assert "`gpu-07` was the initiating node in 2 of the last 2 failed jobs (Xid 79 twice" in second
    assert (
        "`gpu-07` was the initiating node in 3 of the last 3 failed jobs (Xid 79 3 times, since 15 Jan)"
        in third
    )
    assert "Earlier: <https://" in third and "|job `1002`> (15 Jan 09:00 UTC)" in third
    assert "|job `1001`> (15 Jan 08:00 UTC)" in third
    assert 'scontrol update nodename=gpu-07 state=drain reason="denpex: Xid 79 x3"' in third
    assert "kubectl cordon gpu-07 && kubectl drain gpu-07 --ignore-daemonsets" in third
    assert "`nvidia-smi -q -d ECC,PAGE_RETIREMENT` and `dcgmi diag -r 3`" in third
    assert "Advice only" in third
    assert "gpu-06" not in first + second + third  # its ranks only timed out: no record, no advice
    (worst, *rest) = ranked_nodes(IncidentBook(redis_client).all_incidents(), drain_after=2)
    assert (worst[1].node, worst[1].initiating, worst[1].counts) == ("gpu-07", 3, [("Xid 79", 3)])
    assert rest == []


def test_application_xid_on_gpu06_three_times_gives_no_drain_advice(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    scale(redis_client)
    sections = run_jobs(make_ctx(), redis_client, log_root, fake_slack, ["2001", "2002", "2003"], **APP06)
    assert sections == ["", "", ""]  # user code: never counted against the node
    text = json.dumps([m.get("blocks") for m in fake_slack.messages("C0ALERTS")])
    assert "scontrol" not in text and "kubectl drain" not in text
    # but the same failure mode was seen before: the earlier jobs, newest first, with their links
    last = next(r for r in fake_slack.roots("C0ALERTS") if " 2003 " in r["text"])
    seen = node_section(fake_slack, last["ts"], "*Seen before*").splitlines()
    assert [row.split("|")[1].split(">")[0] for row in seen[1:]] == ["job `2002`", "job `2001`"]
    assert seen[1].endswith(
        "(15 Jan 09:00 UTC, on `gpu-06`) — no fix recorded (`/denpex solved 2002 <what fixed it>`)"
    )
    ((_, gpu06),) = ranked_nodes(IncidentBook(redis_client).all_incidents(), drain_after=2)
    assert (gpu06.node, gpu06.initiating, gpu06.hardware, gpu06.drain) == ("gpu-06", 3, 0, None)


def test_mixed_history_counts_the_clusters_failed_jobs_since_the_nodes_first(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    """gpu-07 started 3 of 5 failures (Xid 48, then Xid 79 twice); gpu-06's two were user code."""
    scale(redis_client)
    ctx = make_ctx()
    jobs = [("6001", {**GPU07, "xid": 48}), ("6002", APP06), ("6003", GPU07), ("6004", APP06)]
    for i, (job_id, kw) in enumerate([*jobs, ("6005", GPU07)]):
        assert process(ctx, record_job(redis_client, log_root, job_id, DAY0 + i * HOUR, **kw)) == "posted"
    last = next(r for r in fake_slack.roots("C0ALERTS") if " 6005 " in r["text"])
    section = node_section(fake_slack, last["ts"])
    assert "in 3 of the last 5 failed jobs (Xid 79 twice, Xid 48 once, since 15 Jan)" in section
    assert "|job `6003`> (15 Jan 10:00 UTC), <" in section and "|job `6001`> (15 Jan 08:00 UTC)" in section
    assert 'reason="denpex: Xid 79 x2, Xid 48 x1"' in section and "gpu-06" not in section


def test_hardware_count_reaches_the_threshold(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    """Xid 48 (ECC, `reset_gpu`): no advice the first time; the second reaches DENPEX_DRAIN_AFTER=2."""
    scale(redis_client)
    ecc = {**GPU07, "xid": 48}
    first, second = run_jobs(make_ctx(), redis_client, log_root, fake_slack, ["3001", "3002"], **ecc)
    assert first == ""
    assert "(Xid 48 twice, since 15 Jan)" in second and "2 hardware faults in the history" in second
    assert 'reason="denpex: Xid 48 x2"' in second


def test_a_retried_post_does_not_count_twice(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    scale(redis_client)
    ctx = make_ctx()
    work = record_job(redis_client, log_root, "4001", DAY0, **GPU07)
    assert process(ctx, work) == Outcome.posted
    # the worker died after recording the incident, before the journal said "posted": RQ retries
    redis_client.hset(store.post_key(work), "status", "posting")
    assert process(ctx, work) == Outcome.posted
    assert process(ctx, work) == Outcome.already_posted
    assert len(fake_slack.roots("C0ALERTS")) == 1
    (incident,) = IncidentBook(redis_client).incidents("ci")
    assert incident.job_id == "4001" and incident.node == "gpu-07" and incident.rank == 5
    assert incident.category == "gpu_hardware_xid" and incident.entry == "xid-79-fallen-off-bus"
    assert incident.headline and "gpu-07" in incident.headline
    assert incident.permalink and "/archives/C0ALERTS/p" in incident.permalink
    assert incident.nodes == []  # gpu-06's ranks only timed out; its kernel log showed nothing
    by_category, by_node = IncidentBook(redis_client).counts()
    assert by_category == {("ci", "gpu_hardware_xid"): 1}
    assert by_node == {("ci", "gpu-07", "initiating"): 1, ("ci", "gpu-07", "fallen_off_bus"): 1}


def test_free_plan_keeps_only_node_health(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    sections = run_jobs(make_ctx(), redis_client, log_root, fake_slack, ["5001", "5002"], **GPU07)
    assert "`gpu-07` was the initiating node in 2 of the last 2 failed jobs" in sections[1]
    assert "Earlier" not in sections[1]  # no job ids kept on the free plan, so none to name
    assert "Seen before" not in json.dumps([m.get("blocks") for m in fake_slack.messages("C0ALERTS")])
    book = IncidentBook(redis_client)
    for incident in book.incidents("ci"):
        assert incident.node == "gpu-07" and [s.label for s in incident.signals["gpu-07"]] == ["Xid 79"]
        assert (incident.job_id, incident.job_key, incident.category, incident.headline) == (None,) * 4
        assert (incident.permalink, incident.entry, incident.rank, incident.nodes) == (None, None, None, [])
    stored = b" ".join(
        k + b" " + b" ".join(redis_client.hvals(k)) if redis_client.type(k) == b"hash" else k
        for k in redis_client.scan_iter("denpex:incidents:*")
        if not k.endswith(b"stats") and not k.endswith(b"stats:nodes")
    )
    assert b"5001" not in stored and b"5002" not in stored and b"files:ci" not in stored


def _incident(i: int, at: float, node: str = "gpu-07") -> Incident:
    return Incident(member=f"m{i}", cluster="ci", scheduler="slurm", at=at, node=node, job_id=str(i))


def test_history_is_bounded_by_count_and_days(redis_client: redis.Redis) -> None:
    book = IncidentBook(redis_client, HistoryLimits(max_incidents=3, days=2))
    for i in range(5):
        assert book.record(_incident(i, DAY0 + i * HOUR), full=True)
    assert [i.job_id for i in book.incidents("ci")] == ["2", "3", "4"]
    late = DAY0 + 2 * 86400 + 3.5 * HOUR  # more than 2 days after #3, less after #4
    assert book.record(_incident(9, late), full=True)
    assert [i.job_id for i in book.incidents("ci")] == ["4", "9"]
    assert not book.record(_incident(9, late), full=True)  # once only
    assert 0 < redis_client.ttl(book.index_key("ci")) <= 2 * 86400
    assert book.counts()[0] == {("ci", "unknown"): 6}


@pytest.mark.parametrize(
    ("scheduler", "drain", "resume"),
    [
        ("slurm", ['scontrol update nodename=gpu-07 state=drain reason="denpex: Xid 79 x2"'], "state=resume"),
        ("kubernetes", ["kubectl cordon gpu-07 && kubectl drain gpu-07 --ignore-daemonsets"], "uncordon"),
    ],
)
def test_drain_command_is_the_schedulers_own(scheduler: str, drain: list[str], resume: str) -> None:
    record = NodeRecord(
        node="gpu-07", scheduler=scheduler, total=2, incidents=2, initiating=2,
        counts=[("Xid 79", 2)], since=DAY0, last=DAY0, drain="catalogue", drain_label="Xid 79",
    )  # fmt: skip
    commands, back = drain_commands(record)
    assert commands == drain and resume in back


def test_text_signals_and_application_xids() -> None:
    from knowledge.facts import load_catalogue
    from workers.nodehealth import line_signal

    catalogue = load_catalogue()
    assert line_signal("NVRM: Xid (PCI:0000:18:00): 13, pid=1, Graphics Exception", catalogue) is None
    assert line_signal("NVRM: Xid (PCI:0000:18:00): 43, pid=1, stopped", catalogue) is None
    assert line_signal("NVRM: Xid (PCI:0000:18:00): 64, pid=1, row remapper", catalogue) == NodeSignal(
        label="Xid 64", kind="ecc", drain=True
    )
    assert line_signal("NVRM: Xid (PCI:0000:18:00): 74, pid=1, NVLink", catalogue) == NodeSignal(
        label="Xid 74", kind="nvlink"
    )
    mce = "mce: [Hardware Error]: CPU 12: Machine Check: 0 Bank 7: be00000000800400"
    assert line_signal(mce, catalogue) == NodeSignal(label="MCE", kind="mce")
    aer = "pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0"
    assert line_signal(aer, catalogue) == NodeSignal(label="PCIe AER", kind="pcie_aer")


def test_has_this_happened_before_answers_from_the_history(
    make_ctx: Callable[..., WorkerContext], redis_client: redis.Redis, log_root: Path, fake_slack: Any
) -> None:
    """The follow-up reads the incident history: the first job has no earlier incident, the third
    names the two before it (same node first), and a recorded fix travels with its incident."""
    from knowledge.answers import AnswerBook
    from workers.nodehealth import earlier_of

    scale(redis_client)
    ctx = make_ctx()
    run_jobs(ctx, redis_client, log_root, fake_slack, ["2001", "2002", "2003"], **GPU07)
    book = IncidentBook(redis_client)
    assert book.record_fix("2001", "reseated the GPU in slot 5") is not None
    answers = AnswerBook(ctx.engine.entries)
    keys = {job: JobRef(scheduler=Scheduler.files, cluster="ci", job_id=job).key for job in ("2001", "2003")}
    third = store.Store(redis_client, result_ttl=3600).load_diagnosis(keys["2003"])
    first = store.Store(redis_client, result_ttl=3600).load_diagnosis(keys["2001"])
    assert third is not None and first is not None and third.entry is not None
    history = list(book.all_incidents())

    reply = answers.answer(
        third, "has this happened before?", earlier_of(history, keys["2003"], third.entry.id)
    )
    assert reply.intent == "history" and reply.lead.startswith("Yes: 2 earlier")
    assert [b.split("`")[1] for b in reply.bullets] == ["2002", "2001"]  # newest first, both on gpu-07
    assert "reseated the GPU in slot 5" in reply.bullets[1]

    only_later = [i for i in history if i.job_id == "2001"]
    none = answers.answer(
        first,
        "have we seen this before?",
        earlier_of(only_later, keys["2001"], first.entry.id if first.entry else None),
    )
    assert none.lead.startswith("No: the incident history has no earlier")
    unread = answers.answer(first, "has this happened before?", None)
    assert "could not be read" in unread.lead
