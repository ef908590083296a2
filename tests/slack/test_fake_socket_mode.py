"""Bolt's own Socket Mode handler connects to the fake and receives envelopes the way Slack sends them."""

from __future__ import annotations

from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp

from tests.fakes.slack import FakeSlack


async def test_bolt_socket_mode_roundtrip(fake_slack: FakeSlack) -> None:
    client = fake_slack.async_client()
    app = AsyncApp(client=client, signing_secret="unused-in-socket-mode")
    seen: list[str] = []

    @app.command("/denpex")
    async def on_command(ack, command) -> None:  # type: ignore[no-untyped-def]
        await ack(f"got {command['text']}")

    @app.event("app_mention")
    async def on_mention(event, say) -> None:  # type: ignore[no-untyped-def]
        seen.append(event["text"])
        await say(text="hello", thread_ts=event["ts"])

    handler = AsyncSocketModeHandler(app, fake_slack.app_token, web_client=client)
    await handler.connect_async()
    try:
        await fake_slack.wait_for_async(lambda: fake_slack.socket_connections, what="socket connection")
        eid = fake_slack.send_slash_command("help")
        ack = await fake_slack.wait_for_async(fake_slack.ack_of(eid), what="slash ack")
        assert ack["text"] == "got help"
        root = await client.chat_postMessage(channel="C0ALERTS", text="root")
        eid = fake_slack.send_event(
            {
                "type": "app_mention",
                "user": "U0ALICE",
                "text": "<@U0BOT> hi",
                "ts": root["ts"],
                "channel": "C0ALERTS",
                "event_ts": root["ts"],
            }
        )
        await fake_slack.wait_for_async(fake_slack.ack_of(eid), what="event ack")
        await fake_slack.wait_for_async(lambda: fake_slack.thread(root["ts"]), what="threaded reply")
        assert seen == ["<@U0BOT> hi"]
    finally:
        await handler.close_async()
