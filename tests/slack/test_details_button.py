"""The thread's Details button, clicked through the real app (Bolt on aiohttp) and the fake Slack."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any
from urllib.parse import urlencode

import redis

from bot.slack.deps import SlackDeps
from bot.slack.details import DetailsButton
from bot.slack.render import DETAILS_ACTION, DETAILS_BLOCK, BlockKitRenderer, line_count
from denpex.core.settings import Settings
from tests.fakes.slack import FakeSlack
from tests.slack import helpers
from tests.slack.conftest import SlackStack
from workers.ports import QuotaDecision
from workers.posting import SlackPoster
from workers.quota import Quota
from workers.store import JobRecord, JobState, Store, record_key

WORK = helpers.job().key


def post_thread(fake: FakeSlack, redis_client: redis.Redis) -> str:
    """The worker's own poster with the Block Kit renderer; the job record as admission writes it."""
    store = Store(redis_client, result_ttl=3600)
    diagnosis = helpers.diagnosis()
    store.save_diagnosis(WORK, diagnosis)
    record = JobRecord(job=helpers.job(), facts=[], received_at=time.time(), state=JobState.posted)
    redis_client.hset(record_key(WORK), mapping=record.as_hash("rq-1"))  # type: ignore[arg-type]
    poster = SlackPoster(fake.web_client(), "C0ALERTS", store, BlockKitRenderer(helpers.entries()))
    _, ts = poster.post(WORK, helpers.job(), diagnosis, QuotaDecision(allowed=True, plan="free"))
    return ts


def with_button(fake: FakeSlack, root_ts: str) -> dict[str, Any]:
    found = [
        m
        for m in fake.thread(root_ts)
        if any(b.get("block_id") == DETAILS_BLOCK for b in m.get("blocks") or [])
    ]
    assert len(found) == 1, "the first reply carries one Details button"
    return found[0]


def click(message: dict[str, Any], root_ts: str) -> dict[str, Any]:
    """A `block_actions` payload as Slack sends it for a button in a thread reply."""
    block = next(b for b in message["blocks"] if b.get("block_id") == DETAILS_BLOCK)
    element = block["elements"][0]
    return {
        "type": "block_actions",
        "team": {"id": "T0DENPEX", "domain": "denpex"},
        "user": {"id": "U0ALICE", "username": "alice", "team_id": "T0DENPEX"},
        "api_app_id": "A0DENPEX",
        "token": "legacy",
        "container": {
            "type": "message",
            "message_ts": message["ts"],
            "channel_id": "C0ALERTS",
            "is_ephemeral": False,
            "thread_ts": root_ts,
        },
        "trigger_id": "1.2.abc",
        "channel": {"id": "C0ALERTS", "name": "denpex-alerts"},
        "message": {**message, "thread_ts": root_ts},
        "actions": [
            {
                "action_id": element["action_id"],
                "block_id": DETAILS_BLOCK,
                "value": element["value"],
                "type": "button",
                "action_ts": f"{time.time():.6f}",
                "text": element["text"],
            }
        ],
    }


def details_posts(fake: FakeSlack, root_ts: str) -> list[dict[str, Any]]:
    return [
        m
        for m in fake.thread(root_ts)
        if any(b.get("type") == "header" and b["text"]["text"] == "Details" for b in m.get("blocks") or [])
    ]


async def test_the_thread_is_short_and_details_posts_the_rest(
    slack_stack: SlackStack, redis_client: redis.Redis
) -> None:
    fake = slack_stack.fake
    root_ts = await asyncio.to_thread(post_thread, fake, redis_client)
    reply = with_button(fake, root_ts)
    assert line_count(reply["blocks"]) <= 25
    assert "evil.example" not in json.dumps(reply["blocks"])  # 5 evidence lines: the first one shown

    body = urlencode({"payload": json.dumps(click(reply, root_ts))})
    status, _ = await slack_stack.post(body, "application/x-www-form-urlencoded")
    assert status == 200
    (details,) = await fake.wait_for_async(lambda: details_posts(fake, root_ts), what="the details post")
    text = json.dumps(details["blocks"])
    for line in (
        "&lt;!channel&gt; wake up",
        "&lt;https://evil.example|click here&gt;",
        "kernel log of gpu-07",
    ):
        assert line in text  # every evidence line and missing item, escaped
    assert "rank 0 line 19" in text  # the initiating rank's last lines
    updated = await fake.wait_for_async(
        lambda: [c for c in fake.calls("chat.update") if c.status == 200], what="the button replaced"
    )
    assert updated
    after = next(m for m in fake.thread(root_ts) if m["ts"] == reply["ts"])
    assert not any(b.get("block_id") == DETAILS_BLOCK for b in after["blocks"])
    assert "Details are posted below" in json.dumps(after["blocks"])


async def test_a_second_click_posts_nothing_more(
    fake_slack: FakeSlack, settings: Settings, redis_client: redis.Redis
) -> None:
    root_ts = await asyncio.to_thread(post_thread, fake_slack, redis_client)
    deps = SlackDeps(
        settings=settings,
        redis=redis_client,
        quota=Quota(redis_client),
        resolver=None,  # type: ignore[arg-type]  # not used by the button
        submitter=None,  # type: ignore[arg-type]
        entries=helpers.entries(),
    )
    button = DetailsButton(deps)
    payload = click(with_button(fake_slack, root_ts), root_ts)
    client = fake_slack.async_client()
    await button.handle(payload, client)
    await button.handle(payload, client)
    assert len(details_posts(fake_slack, root_ts)) == 1


async def test_an_expired_diagnosis_says_so(
    fake_slack: FakeSlack, settings: Settings, redis_client: redis.Redis
) -> None:
    root_ts = await asyncio.to_thread(post_thread, fake_slack, redis_client)
    payload = click(with_button(fake_slack, root_ts), root_ts)
    redis_client.flushdb()
    deps = SlackDeps(
        settings=settings,
        redis=redis_client,
        quota=Quota(redis_client),
        resolver=None,  # type: ignore[arg-type]
        submitter=None,  # type: ignore[arg-type]
        entries=helpers.entries(),
    )
    await DetailsButton(deps).handle(payload, fake_slack.async_client())
    assert any("expired" in m.get("text", "") for m in fake_slack.thread(root_ts))
    assert DETAILS_ACTION == "denpex_details"
