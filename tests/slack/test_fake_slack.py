"""The fake Slack server answers the real slack_sdk clients the way Slack does."""

from __future__ import annotations

import asyncio

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack import FakeSlack

LONG_SECTION = {"type": "section", "text": {"type": "mrkdwn", "text": "y" * 3001}}


async def test_post_thread_metadata_and_history(fake_slack: FakeSlack) -> None:
    client = fake_slack.async_client()
    auth = await client.auth_test()
    assert (auth["team_id"], auth["user_id"], auth["bot_id"]) == ("T0DENPEX", "U0BOT", "B0BOT")
    root = await client.chat_postMessage(
        channel="#denpex-alerts",
        text="job 42 failed",
        metadata={"event_type": "denpex_diagnosis", "event_payload": {"job": "42"}},
    )
    assert root["channel"] == "C0ALERTS" and root["message"]["text"] == "job 42 failed"
    section = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}}
    reply = await client.chat_postMessage(
        channel="C0ALERTS", text="why", thread_ts=root["ts"], blocks=[section]
    )
    replies = await client.conversations_replies(channel="C0ALERTS", ts=root["ts"])
    assert [m["ts"] for m in replies["messages"]] == [root["ts"], reply["ts"]]
    plain = await client.conversations_history(channel="C0ALERTS")
    assert "metadata" not in plain["messages"][0]
    history = await client.conversations_history(channel="C0ALERTS", include_all_metadata=True)
    assert history["messages"][0]["metadata"]["event_payload"] == {"job": "42"}
    assert [c.method for c in fake_slack.calls()][:3] == ["auth.test", "chat.postMessage", "chat.postMessage"]


@pytest.mark.filterwarnings("ignore:The top-level `text` argument is missing")
@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"channel": "C0NOPE", "text": "x"}, "channel_not_found"),
        ({"channel": "C0ALERTS", "text": "x", "thread_ts": "123.456"}, "thread_not_found"),
        ({"channel": "C0ALERTS", "text": "x" * 40_001}, "msg_too_long"),
        ({"channel": "C0ALERTS", "text": "x", "blocks": [{"type": "divider"}] * 51}, "invalid_blocks"),
        ({"channel": "C0ALERTS", "text": "x", "blocks": [LONG_SECTION]}, "invalid_blocks"),
        ({"channel": "C0ALERTS", "text": "x", "blocks": [{"type": "no-such-block"}]}, "invalid_blocks"),
        ({"channel": "C0ALERTS"}, "no_text"),
    ],
)
def test_slack_errors(fake_slack: FakeSlack, kwargs: dict, error: str) -> None:
    with pytest.raises(SlackApiError) as info:
        fake_slack.web_client().chat_postMessage(**kwargs)
    assert info.value.response["error"] == error


def test_auth_errors(fake_slack: FakeSlack) -> None:
    for token, error in (
        (None, "not_authed"),
        ("xoxb-wrong", "invalid_auth"),
        (fake_slack.app_token, "not_allowed_token_type"),
    ):
        client = fake_slack.web_client()
        client.token = token
        with pytest.raises(SlackApiError) as info:
            client.auth_test()
        assert info.value.response["error"] == error


async def test_rate_limit_is_retried_with_handler(fake_slack: FakeSlack) -> None:
    fake_slack.fail_next(1, status=429, retry_after=0, method="chat.postMessage")
    resp = await fake_slack.async_client().chat_postMessage(channel="C0ALERTS", text="after 429")
    assert resp["ok"]
    assert [c.status for c in fake_slack.calls("chat.postMessage")] == [429, 200]
    fake_slack.fail_next(1, status=429, retry_after=0)
    bare = AsyncWebClient(token=fake_slack.bot_token, base_url=fake_slack.base_url)
    with pytest.raises(SlackApiError) as info:
        await bare.chat_postMessage(channel="C0ALERTS", text="no handler")
    assert info.value.response.status_code == 429 and info.value.response["error"] == "ratelimited"


async def test_server_error_and_hang(fake_slack: FakeSlack) -> None:
    fake_slack.fail_next(1, status=500)
    assert (await fake_slack.async_client().auth_test())["ok"]
    fake_slack.hang_next(3.0, method="auth.test")
    with pytest.raises(asyncio.TimeoutError):
        await fake_slack.async_client(timeout=1).auth_test()
    fake_slack.error_next("fatal_error")
    with pytest.raises(SlackApiError):
        await fake_slack.async_client().auth_test()


async def test_files_upload_v2_in_thread(fake_slack: FakeSlack) -> None:
    client = fake_slack.async_client()
    root = await client.chat_postMessage(channel="C0ALERTS", text="root")
    done = await client.files_upload_v2(
        channel="C0ALERTS",
        thread_ts=root["ts"],
        filename="evidence.txt",
        title="Evidence",
        content="rank 0: boom\n",
    )
    file_id = done["file"]["id"]
    assert fake_slack.files[file_id]["content"] == b"rank 0: boom\n"
    assert fake_slack.files[file_id]["thread_ts"] == root["ts"]
    upload_url = fake_slack.calls("files.getUploadURLExternal")[0].response["upload_url"]
    assert upload_url.startswith(fake_slack.root_url + "/upload/")
    assert fake_slack.thread(root["ts"])[0]["files"][0]["id"] == file_id


async def test_update_and_ephemeral(fake_slack: FakeSlack) -> None:
    client = fake_slack.async_client()
    root = await client.chat_postMessage(channel="C0ALERTS", text="v1")
    await client.chat_update(channel="C0ALERTS", ts=root["ts"], text="v2")
    assert fake_slack.roots()[0]["text"] == "v2"
    await client.chat_postEphemeral(channel="C0ALERTS", user="U0ALICE", text="only you")
    assert fake_slack.ephemerals[0]["user"] == "U0ALICE"
    with pytest.raises(SlackApiError):
        await client.chat_update(channel="C0ALERTS", ts="1.1", text="x")


def test_history_paging_and_bounds(fake_slack: FakeSlack) -> None:
    client = fake_slack.web_client()
    posted = [client.chat_postMessage(channel="C0ALERTS", text=f"m{i}")["ts"] for i in range(7)]
    seen, cursor = [], None
    while True:
        page = client.conversations_history(channel="C0ALERTS", limit=3, cursor=cursor)
        seen += [m["ts"] for m in page["messages"]]
        cursor = page["response_metadata"]["next_cursor"]
        if not cursor:
            break
    assert seen == list(reversed(posted))
    newer = client.conversations_history(channel="C0ALERTS", oldest=posted[4])["messages"]
    assert [m["ts"] for m in newer] == [posted[6], posted[5]]
    both = client.conversations_history(channel="C0ALERTS", oldest=posted[4], inclusive=True)["messages"]
    assert len(both) == 3
