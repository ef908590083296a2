"""The same listeners over Socket Mode: Bolt's handler connected to the fake Slack's websocket."""

from __future__ import annotations

import asyncio

import redis
from rq import Queue

from bot.slack.app import create_slack_app, make_client, socket_mode_handler
from denpex.core.settings import Settings
from tests.fakes.slack import FakeSlack
from tests.slack import helpers
from tests.slack.test_followups_http import bot_replies, post_diagnosis, question, scale


async def test_socket_mode_commands_and_followups(
    settings: Settings, fake_slack: FakeSlack, redis_client: redis.Redis
) -> None:
    socket_settings = settings.model_copy(update={"slack_signing_secret": None})  # no HTTP, no secret
    client = make_client(socket_settings)
    app = create_slack_app(socket_settings, client=client, redis=redis_client, entries=helpers.entries())
    handler = socket_mode_handler(app, fake_slack.app_token, client)
    await handler.connect_async()
    try:
        await fake_slack.wait_for_async(lambda: fake_slack.socket_connections, what="socket connection")
        eid = fake_slack.send_slash_command("help")
        ack = await fake_slack.wait_for_async(fake_slack.ack_of(eid), what="ack of /denpex help")
        assert "/denpex diagnose" in ack["text"]
        eid = fake_slack.send_slash_command("diagnose 4242 --cluster ci")
        ack = await fake_slack.wait_for_async(fake_slack.ack_of(eid), what="ack of diagnose")
        assert "Diagnosing job `4242`" in ack["text"]
        queue = Queue(settings.queue_name, connection=redis_client)
        await fake_slack.wait_for_async(lambda: queue.count, what="the job queued through the pipeline")

        scale(redis_client)
        thread = await asyncio.to_thread(post_diagnosis, fake_slack, redis_client)
        eid = fake_slack.send_event(question("what happened on gpu-07?", thread))
        await fake_slack.wait_for_async(fake_slack.ack_of(eid), what="event ack")
        (reply,) = await bot_replies(fake_slack, thread, 1)
        assert "NVRM: Xid 79 &lt;@U999&gt;" in reply["text"]
        # Slack retries an envelope it thinks was lost: same event id, answered once
        fake_slack.send_event(question("how long will the fix take?", thread), event_id="Ev0SOCKET")
        fake_slack.send_event(
            question("how long will the fix take?", thread), event_id="Ev0SOCKET", retry_attempt=1
        )
        await bot_replies(fake_slack, thread, 2)
        await asyncio.sleep(0.3)
        assert len(await bot_replies(fake_slack, thread, 2)) == 2
    finally:
        await handler.close_async()
