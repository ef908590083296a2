"""Thread follow-ups over the Events API: signed JSON posts, answers posted to the fake Slack."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
import redis

from bot.slack.render import BlockKitRenderer
from tests.fakes.slack import FakeSlack
from tests.slack import helpers
from tests.slack.conftest import SlackStack
from workers.ports import QuotaDecision
from workers.posting import SlackPoster
from workers.quota import Quota
from workers.store import Store

WORK = "files:ci:4242"


def post_diagnosis(fake: FakeSlack, redis_client: redis.Redis) -> str:
    """Post a failure thread the way the worker does (the pipeline's own poster + our renderer)."""
    store = Store(redis_client, result_ttl=3600)
    diagnosis = helpers.diagnosis()
    store.save_diagnosis(WORK, diagnosis)
    poster = SlackPoster(fake.web_client(), "C0ALERTS", store, BlockKitRenderer(helpers.entries()))
    _, ts = poster.post(WORK, helpers.job(), diagnosis, QuotaDecision(allowed=True, plan="scale"))
    return ts


def scale(redis_client: redis.Redis) -> None:
    quota = Quota(redis_client)
    assert quota.redeem("T0DENPEX", quota.create_codes()[0]).ok


def question(text: str, thread_ts: str, *, user: str = "U0ALICE", **kw: Any) -> dict[str, Any]:
    from tests.fakes.slack import payloads

    return payloads.message_event(
        text,
        channel="C0ALERTS",
        user=user,
        ts=f"{thread_ts[:-3]}{900 + len(text) % 99}",
        thread_ts=thread_ts,
        **kw,
    )


async def bot_replies(fake: FakeSlack, ts: str, count: int) -> list[dict[str, Any]]:
    def answers() -> list[dict[str, Any]]:
        got = [m for m in fake.thread(ts) if "metadata" not in m and not m.get("files")]
        return got if len(got) >= count else []

    return await fake.wait_for_async(answers, what=f"{count} answers in the thread")


@pytest.fixture
async def thread(slack_stack: SlackStack, redis_client: redis.Redis) -> str:
    ts = await asyncio.to_thread(post_diagnosis, slack_stack.fake, redis_client)
    assert slack_stack.fake.files  # evidence file uploaded in the thread (files v2)
    return ts


async def test_questions_answered_in_thread(
    slack_stack: SlackStack, thread: str, redis_client: redis.Redis
) -> None:
    scale(redis_client)
    status, _ = await slack_stack.event(question("which rank failed first and why?", thread))
    assert status == 200
    (first,) = await bot_replies(slack_stack.fake, thread, 1)
    assert "rank 0" in first["text"] and "gpu-01" in first["text"]
    assert not re.search(r"<[!@]|<https?:", first["text"])  # hostile log lines stay inert
    await slack_stack.event(question("show rank 12's last lines", thread))
    replies = await bot_replies(slack_stack.fake, thread, 2)
    assert "rank 12 line 19" in replies[1]["text"]


async def test_retries_dedup_and_bots_ignored(
    slack_stack: SlackStack, thread: str, redis_client: redis.Redis
) -> None:
    scale(redis_client)
    event = question("what else could it be?", thread)
    await slack_stack.event(event, event_id="Ev0RETRY1")
    await slack_stack.event(event, event_id="Ev0RETRY1", retry=1)
    await slack_stack.event(question("is this hardware?", thread, user="U0OTHERBOT", bot_id="B0OTHER"))
    await slack_stack.event(question("thanks, looking into it", thread))  # not a question
    await slack_stack.event(question("is this hardware or software?", thread))  # a later, different question
    replies = await bot_replies(slack_stack.fake, thread, 2)
    assert "CUDA OOM in a training step" in replies[0]["text"]
    assert "GPU is healthy" in replies[1]["text"] or "oftware" in replies[1]["text"]
    await asyncio.sleep(0.3)
    assert len(await bot_replies(slack_stack.fake, thread, 2)) == 2


async def test_app_mention_answers_once(
    slack_stack: SlackStack, thread: str, redis_client: redis.Redis
) -> None:
    scale(redis_client)
    text = "<@U0BOT> how do I verify the fix?"
    await slack_stack.event(question(text, thread))  # the message.channels copy: left to app_mention
    mention = question(text, thread)
    mention["type"] = "app_mention"
    await slack_stack.event(mention)
    (reply,) = await bot_replies(slack_stack.fake, thread, 1)
    assert "grep -n stage3_gather ds_config.json" in reply["text"]
    await asyncio.sleep(0.3)
    assert len(await bot_replies(slack_stack.fake, thread, 1)) == 1


async def test_free_plan_hears_about_scale_once(slack_stack: SlackStack, thread: str) -> None:
    await slack_stack.event(question("which rank failed first?", thread))
    await slack_stack.event(question("what else could it be?", thread))
    (reply,) = await bot_replies(slack_stack.fake, thread, 1)
    assert "Scale plan" in reply["text"] and "/denpex redeem" in reply["text"]
    await asyncio.sleep(0.3)
    assert len(await bot_replies(slack_stack.fake, thread, 1)) == 1


async def test_threads_not_ours_are_ignored(slack_stack: SlackStack, redis_client: redis.Redis) -> None:
    scale(redis_client)
    other = await asyncio.to_thread(
        slack_stack.fake.web_client().chat_postMessage, channel="C0ALERTS", text="hi"
    )
    await slack_stack.event(question("which rank failed first?", other["ts"]))
    await asyncio.sleep(0.5)
    assert slack_stack.fake.thread(other["ts"]) == []
    assert slack_stack.fake.calls("conversations.replies")  # it did look, once


async def test_mention_outside_a_thread_says_where_to_ask(slack_stack: SlackStack) -> None:
    from tests.fakes.slack import payloads

    other = await asyncio.to_thread(
        slack_stack.fake.web_client().chat_postMessage, channel="C0ALERTS", text="x"
    )
    mention = payloads.message_event("<@U0BOT> why?", channel="C0ALERTS", user="U0ALICE", ts=other["ts"])
    mention["type"] = "app_mention"
    await slack_stack.event(mention)
    (reply,) = await slack_stack.fake.wait_for_async(
        lambda: slack_stack.fake.thread(other["ts"]), what="hint"
    )
    assert "diagnosis thread" in reply["text"]
