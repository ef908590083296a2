"""`/denpex nodes`, `/denpex history node:/category:/job:` and the incident metrics (issue 17): jobs run
through the real pipeline (engine, Block Kit, real Redis), then the real Slack app answers signed
slash commands over HTTP and `/metrics` shows the counters."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.slack.render import BlockKitRenderer
from denpex.core.settings import Settings
from knowledge.engine import Engine
from tests.fakes.slack import FakeSlack
from tests.pipeline.conftest import PLANTED
from tests.pipeline.test_incidents import APP06, DAY0, GPU07, HOUR, node_section, record_job
from tests.slack.conftest import SlackStack
from tests.slack.test_commands_http import ack_text
from workers.collect import CollectorRegistry
from workers.context import WorkerContext
from workers.pipeline import Outcome, process
from workers.quota import Quota

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def engine(masker: Any) -> Engine:
    return Engine.load(masker=masker)


def run_jobs(
    settings: Settings, fake: FakeSlack, client: redis.Redis, engine: Engine, jobs: list[tuple[str, Any]]
) -> None:
    """Each job through the pipeline, an hour apart from DAY0 in the order given."""
    assert settings.log_root is not None
    ctx = WorkerContext(
        settings=settings,
        redis=client,
        masker=engine.masker,
        renderer=BlockKitRenderer(engine.entries),
        collectors=CollectorRegistry(settings),
        quota=Quota(client),
        slack=fake.web_client(),
        channel="C0ALERTS",
        team_id="T0DENPEX",
        engine=engine,
    )
    for i, (job_id, kw) in enumerate(jobs):
        work = record_job(client, settings.log_root, job_id, DAY0 + i * HOUR, **kw)
        assert process(ctx, work) == Outcome.posted


async def test_nodes_history_filters_and_metrics(
    slack_stack: SlackStack, settings: Settings, redis_client: redis.Redis, engine: Engine
) -> None:
    _, text = await slack_stack.command("nodes")
    assert ack_text(text) == "No node has an incident in the history yet."
    _, text = await slack_stack.command("history node:gpu-07")
    assert "Scale plan" in ack_text(text)  # history is Scale; node health is every plan's
    quota = Quota(redis_client)
    assert quota.redeem("T0DENPEX", quota.create_codes()[0]).ok
    # gpu-07's GPU falls off the bus in 1001-1003; user code faults on gpu-06 in 2001-2002
    jobs = [("1001", GPU07), ("2001", APP06), ("1002", GPU07), ("2002", APP06), ("1003", GPU07)]
    await asyncio.to_thread(run_jobs, settings, slack_stack.fake, redis_client, engine, jobs)

    _, text = await slack_stack.command("nodes")
    title, gpu07, gpu06 = ack_text(text).splitlines()
    assert title.startswith("*Nodes with incidents*")
    assert gpu07 == (
        "• `gpu-07` (`ci`): 3 incidents, initiating in 3 — Xid 79 3 times, last 15 Jan 12:00 UTC"
        " · drain advised"
    )
    assert gpu06 == "• `gpu-06` (`ci`): 2 incidents, initiating in 2, last 15 Jan 11:00 UTC"

    _, text = await slack_stack.command("history node:gpu-07")
    rows = ack_text(text).splitlines()[1:]
    assert [r.split("|")[1].split(">")[0] for r in rows] == ["1003", "1002", "1001"]
    assert all(r.startswith("• <https://") and "GPU Fell Off the Bus (Xid 79)" in r for r in rows)
    _, text = await slack_stack.command("history category:cuda_illegal_access")
    assert [r.split("|")[1].split(">")[0] for r in ack_text(text).splitlines()[1:]] == ["2002", "2001"]
    _, text = await slack_stack.command("history job:1002 node:gpu-07")
    (row,) = ack_text(text).splitlines()[1:]
    assert "(`ci`, 15 Jan 10:00 UTC): GPU Fell Off the Bus (Xid 79) (rank 5 on gpu-07)" in row
    _, text = await slack_stack.command("history job:1002 node:gpu-06")
    assert ack_text(text) == "No incident in the history matches."
    _, text = await slack_stack.command("history colour:red")
    assert "I don't know the filter `colour:red`" in ack_text(text) and "node:" in ack_text(text)

    base = slack_stack.url.rsplit("/slack/", 1)[0]
    async with slack_stack.session.get(f"{base}/metrics") as resp:
        metrics = await resp.text()
    assert 'denpex_incidents_total{category="gpu_hardware_xid",cluster="ci"} 3.0' in metrics
    assert 'denpex_incidents_total{category="cuda_illegal_access",cluster="ci"} 2.0' in metrics
    assert 'denpex_node_incidents_total{class="fallen_off_bus",cluster="ci",node="gpu-07"} 3.0' in metrics
    assert 'denpex_node_incidents_total{class="initiating",cluster="ci",node="gpu-06"} 2.0' in metrics
    assert 'class="gpu",cluster="ci",node="gpu-06"' not in metrics  # Xid 13 is the job's own fault


async def test_solved_note_is_masked_and_shown_under_seen_before(
    slack_stack: SlackStack, settings: Settings, redis_client: redis.Redis, engine: Engine
) -> None:
    fake = slack_stack.fake
    _, text = await slack_stack.command("solved 1001 reseated it")
    assert "Scale plan" in ack_text(text)
    quota = Quota(redis_client)
    assert quota.redeem("T0DENPEX", quota.create_codes()[0]).ok
    await asyncio.to_thread(run_jobs, settings, fake, redis_client, engine, [("1001", GPU07)])
    _, text = await slack_stack.command("solved 1001")
    assert "Usage: `/denpex solved <jobid> <what fixed it>`" in ack_text(text)
    await slack_stack.command("solved 9999 nothing")
    await slack_stack.command(f"solved 1001 reseated GPU 5 in slot 5; vendor token {PLANTED} <!channel>")
    replies = await fake.wait_for_async(lambda: len(fake.responses) >= 2 and fake.responses, what="replies")
    texts = [r["text"] for r in replies]  # two commands' replies: in whichever order they completed
    assert any("no job `9999`" in t for t in texts) and any(
        "Recorded what fixed job `1001`" in t for t in texts
    )
    await asyncio.to_thread(run_jobs, settings, fake, redis_client, engine, [("1002", GPU07)])
    root = next(r for r in fake.roots("C0ALERTS") if " 1002 " in r["text"])
    seen = node_section(fake, root["ts"], "*Seen before*")
    assert "|job `1001`> (15 Jan 08:00 UTC, on `gpu-07`) — fixed: reseated GPU 5 in slot 5" in seen
    assert PLANTED not in json.dumps(fake.thread(root["ts"])) and "[MASKED:" in seen
    assert "<!channel>" not in seen and "&lt;!channel&gt;" in seen


def test_settings_block() -> None:
    values = Settings(DENPEX_HISTORY_MAX="50", DENPEX_HISTORY_DAYS="7", DENPEX_DRAIN_AFTER="3")
    assert (values.history_max_incidents, values.history_days, values.drain_after) == (50, 7, 3)
    assert (Settings().history_max_incidents, Settings().history_days, Settings().drain_after) == (500, 30, 2)


def test_grafana_dashboard_queries_the_exported_metrics() -> None:
    """Every panel of deploy/grafana queries only the incident counters `/metrics` exports, by labels
    they carry."""
    import json
    import re

    board = json.loads((Path(__file__).parents[2] / "deploy/grafana/denpex-incidents.json").read_text())
    exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
    exported = {"denpex_incidents_total", "denpex_node_incidents_total"}
    assert len(exprs) == len(board["panels"]) >= 4
    for expr in exprs:
        assert set(re.findall(r"denpex_\w+", expr)) <= exported
        for label in re.findall(r"by \(([^)]*)\)", expr):
            assert {w.strip() for w in label.split(",")} <= {"cluster", "node", "class", "category"}
