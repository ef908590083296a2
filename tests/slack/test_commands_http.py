"""`/denpex` over HTTP exactly as Slack sends it: signed form posts to /slack/events."""

from __future__ import annotations

import json
import time

import redis
from rq import Queue

from tests.slack.conftest import SlackStack
from workers import store
from workers.quota import Quota


def ack_text(body: str) -> str:
    """Bolt answers `ack("...")` with the text itself (Slack shows it to the user only)."""
    return json.loads(body)["text"] if body.startswith("{") else body


async def test_signature_is_checked(slack_stack: SlackStack) -> None:
    form = slack_stack.fake.slash_command("help")
    from tests.fakes.slack import payloads

    body = payloads.form_body(form)
    stale = int(time.time()) - 301
    assert (await slack_stack.post(body, "application/x-www-form-urlencoded", timestamp=stale))[0] == 401
    assert (await slack_stack.post(body, "application/x-www-form-urlencoded", secret="wrong"))[0] == 401
    status, text = await slack_stack.post(body, "application/x-www-form-urlencoded")
    assert status == 200 and "/denpex diagnose" in ack_text(text)


async def test_diagnose_acks_then_queues_once(slack_stack: SlackStack, redis_client: redis.Redis) -> None:
    status, text = await slack_stack.command("diagnose 4242 --cluster ci")
    assert status == 200 and "Diagnosing job `4242`" in ack_text(text)
    queue = Queue("denpex-slack-test", connection=redis_client)
    await slack_stack.fake.wait_for_async(lambda: queue.count, what="queued RQ job")
    work = "files:ci:4242"
    assert queue.jobs[0].args == (work,)
    record = store.Store(redis_client, result_ttl=60).load_job(work)
    assert record is not None and record.job.cluster == "ci"
    # the same job again: not queued twice, and the user is told where to look
    await slack_stack.command("diagnose 4242")
    reply = await slack_stack.fake.wait_for_async(lambda: slack_stack.fake.responses, what="respond")
    assert "already" in reply[0]["text"] and queue.count == 1
    assert Quota(redis_client).status("T0DENPEX").used == 0  # the worker takes the unit when it posts


async def test_diagnose_errors_are_ephemeral_and_say_what_next(slack_stack: SlackStack) -> None:
    fake = slack_stack.fake
    _, text = await slack_stack.command("diagnose")
    assert "Usage" in ack_text(text)
    _, text = await slack_stack.command("diagnose ../etc --cluster ci")
    assert "not a job id" in ack_text(text)
    await slack_stack.command("diagnose 4242 --cluster nope")
    await slack_stack.command("diagnose 9999 --cluster ci")
    replies = await fake.wait_for_async(lambda: len(fake.responses) >= 2 and fake.responses, what="responds")
    texts = sorted(r["text"] for r in replies)
    assert "Cluster `ci` has no job `9999`" in texts[0] and "Known clusters: `ci`" in texts[1]
    assert all(r.get("response_type", "ephemeral") == "ephemeral" for r in replies)
    _, text = await slack_stack.command("frobnicate")
    assert "/denpex help" in ack_text(text)


async def test_quota_exhausted_then_redeem(slack_stack: SlackStack, redis_client: redis.Redis) -> None:
    quota = Quota(redis_client)
    for _ in range(3):
        quota.consume("T0DENPEX")
    await slack_stack.command("diagnose 4242")
    reply = await slack_stack.fake.wait_for_async(lambda: slack_stack.fake.responses, what="respond")
    assert "free diagnoses" in reply[0]["text"] and "/denpex redeem" in reply[0]["text"]
    assert Queue("denpex-slack-test", connection=redis_client).count == 0
    _, text = await slack_stack.command("history")
    assert "Scale plan" in ack_text(text)
    (code,) = quota.create_codes(days=14, daily_limit=50)
    _, text = await slack_stack.command(f"redeem {code}")
    assert "Scale" in ack_text(text)
    _, text = await slack_stack.command(f"redeem {code}")
    assert "already been redeemed" in ack_text(text)
    _, text = await slack_stack.command("quota")
    assert "3 of 50" in ack_text(text)
    assert "in progress" not in ack_text(text)
    quota.reserve("T0DENPEX", "job-in-flight")  # a diagnosis the workers are still running
    _, text = await slack_stack.command("quota")
    assert "3 of 50 diagnoses used today, 1 more in progress" in ack_text(text)
