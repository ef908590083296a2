"""`/denpex diagnose` → the pipeline's queue → a worker run (real engine, Block Kit renderer, quota)
→ the thread in the fake Slack → a follow-up question answered from what the worker stored."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import redis
from slack_sdk.models.blocks import Block

from bot.slack.render import BlockKitRenderer
from denpex.core.settings import Settings
from tests.fakes.slack import FakeSlack
from tests.knowledge import scenarios
from tests.slack.conftest import SlackStack
from tests.slack.test_followups_http import bot_replies, question
from workers.collect import CollectorRegistry
from workers.context import WorkerContext
from workers.pipeline import process
from workers.quota import Quota

HOSTILE = "[rank3]: <!channel> <@U123> <https://evil.example|click> & done"


def run_worker(settings: Settings, fake: FakeSlack, client: redis.Redis, masker: Any, work: str) -> str:
    from knowledge.engine import Engine

    engine = Engine.load(masker=masker)
    ctx = WorkerContext(
        settings=settings,
        redis=client,
        masker=masker,
        renderer=BlockKitRenderer(engine.entries),
        collectors=CollectorRegistry(settings),
        quota=Quota(client),
        slack=fake.web_client(),
        channel="C0ALERTS",
        team_id="T0DENPEX",
        engine=engine,
    )
    return process(ctx, work)


def visible_texts(message: dict[str, Any]) -> list[str]:
    found = [message.get("text") or ""]
    found += re.findall(r'"text": "((?:[^"\\]|\\.)*)"', json.dumps(message.get("blocks") or []))
    return found


async def test_diagnose_command_to_thread_to_followup(
    slack_stack: SlackStack, settings: Settings, redis_client: redis.Redis, masker: Any
) -> None:
    assert settings.log_root is not None
    folder = scenarios.zero3_save(settings.log_root / "ci" / "777")
    with (folder / "rank3.log").open("a") as fh:
        fh.write(HOSTILE + "\n")
    quota = Quota(redis_client)
    assert quota.redeem("T0DENPEX", quota.create_codes()[0]).ok

    await slack_stack.command("diagnose 777 --cluster ci")
    work = "files:ci:777"
    await slack_stack.fake.wait_for_async(
        lambda: redis_client.exists(f"denpex:job:{work}"), what="job record"
    )
    assert (
        await asyncio.to_thread(run_worker, settings, slack_stack.fake, redis_client, masker, work)
        == "posted"
    )

    (root,) = slack_stack.fake.roots()
    thread = slack_stack.fake.thread(root["ts"])
    assert "777" in root["text"] and "rank 0" in root["text"]
    for message in [root, *thread]:
        for raw in message.get("blocks") or []:
            Block.parse(raw).validate_json()  # type: ignore[union-attr]
        for text in visible_texts(message):
            assert not re.search(r"<[!@]|<https?:", text), text
    assert any(m.get("files") for m in thread)  # the full evidence, files v2
    assert quota.status("T0DENPEX").used == 1

    await slack_stack.event(question("show rank 3's last lines", root["ts"]))
    answers = await bot_replies(slack_stack.fake, root["ts"], 1)
    assert "&lt;!channel&gt;" in answers[-1]["text"] and "<!channel>" not in answers[-1]["text"]
    await slack_stack.event(question("which rank failed first and why?", root["ts"]))
    answers = await bot_replies(slack_stack.fake, root["ts"], 2)
    assert "rank 0" in answers[-1]["text"]


async def test_quota_out_failure_is_still_announced(
    slack_stack: SlackStack, settings: Settings, redis_client: redis.Redis, masker: Any
) -> None:
    assert settings.log_root is not None
    scenarios.zero3_save(settings.log_root / "ci" / "778")
    from denpex.core.models import JobRef, Scheduler
    from workers import store
    from workers.queueing import rq_job_id

    job = JobRef(scheduler=Scheduler.files, cluster="ci", job_id="778", state="FAILED")
    redis_client.hset(store.record_key(job.key), mapping=store.job_mapping(job, [], 0.0, rq_job_id(job.key)))
    quota = Quota(redis_client)
    for _ in range(3):
        quota.consume("T0DENPEX")
    assert (
        await asyncio.to_thread(run_worker, settings, slack_stack.fake, redis_client, masker, job.key)
        == "posted"
    )
    (root,) = slack_stack.fake.roots()
    assert "778" in root["text"] and "/denpex redeem" in json.dumps(root["blocks"])
    assert slack_stack.fake.thread(root["ts"]) == []


def test_manifest_has_what_the_app_uses() -> None:
    import yaml

    manifest = yaml.safe_load((Path(__file__).parents[2] / "deploy/slack/manifest.yaml").read_text())
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert {
        "chat:write",
        "commands",
        "files:write",
        "app_mentions:read",
        "channels:history",
        "groups:history",
    } <= scopes
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == ["/denpex"]
    events = set(manifest["settings"]["event_subscriptions"]["bot_events"])
    assert {"app_mention", "message.channels", "message.groups"} <= events
    assert "socket_mode_enabled" in manifest["settings"]


async def _diagnose_from(
    slack_stack: SlackStack,
    settings: Settings,
    redis_client: redis.Redis,
    masker: Any,
    job_id: str,
    channel_id: str,
) -> None:
    assert settings.log_root is not None
    scenarios.zero3_save(settings.log_root / "ci" / job_id)
    await slack_stack.command(f"diagnose {job_id} --cluster ci", channel_id=channel_id)
    work = f"files:ci:{job_id}"
    await slack_stack.fake.wait_for_async(
        lambda: redis_client.exists(f"denpex:job:{work}"), what="job record"
    )
    assert (
        await asyncio.to_thread(run_worker, settings, slack_stack.fake, redis_client, masker, work)
        == "posted"
    )


async def test_diagnose_answers_in_the_channel_that_asked(
    slack_stack: SlackStack, settings: Settings, redis_client: redis.Redis, masker: Any
) -> None:
    await _diagnose_from(slack_stack, settings, redis_client, masker, "778", "C0GENERAL")
    (root,) = slack_stack.fake.roots("C0GENERAL")
    assert "778" in root["text"] and slack_stack.fake.thread(root["ts"], "C0GENERAL")
    assert slack_stack.fake.roots("C0ALERTS") == []


async def test_diagnose_from_a_channel_the_bot_cannot_post_in_falls_back(
    slack_stack: SlackStack, settings: Settings, redis_client: redis.Redis, masker: Any
) -> None:
    await _diagnose_from(slack_stack, settings, redis_client, masker, "779", "C0NOTAMEMBER")
    (root,) = slack_stack.fake.roots("C0ALERTS")  # channel_not_found there → DENPEX_CHANNEL
    assert "779" in root["text"] and slack_stack.fake.thread(root["ts"], "C0ALERTS")
