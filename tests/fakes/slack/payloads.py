"""What Slack sends to an app: Events API callbacks, slash command forms, Socket Mode envelopes,
and the v0 request signature — built exactly as Slack builds them, for tests that play Slack.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from typing import Any
from urllib.parse import urlencode


def sign(body: str | bytes, secret: str, *, timestamp: int | None = None) -> dict[str, str]:
    """Headers Slack adds: `X-Slack-Signature: v0=HMAC-SHA256(secret, "v0:{ts}:{body}")`."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    raw = body.encode() if isinstance(body, str) else body
    digest = hmac.new(secret.encode(), b"v0:" + ts.encode() + b":" + raw, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}


def event_callback(
    event: dict[str, Any], *, team_id: str, app_id: str, bot_user_id: str, event_id: str | None = None
) -> dict[str, Any]:
    """The JSON body of an Events API delivery (`type: event_callback`)."""
    return {
        "token": "legacy-verification-token",
        "team_id": team_id,
        "api_app_id": app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or "Ev" + uuid.uuid4().hex[:10].upper(),
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team_id,
                "user_id": bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": "4-" + uuid.uuid4().hex,
    }


def slash_command(
    text: str,
    *,
    team_id: str,
    app_id: str,
    channel_id: str,
    user_id: str,
    response_url: str,
    command: str = "/denpex",
    team_domain: str = "denpex-test",
    channel_name: str = "denpex-alerts",
) -> dict[str, str]:
    """The form fields Slack posts for a slash command (also the Socket Mode payload)."""
    return {
        "token": "legacy-verification-token",
        "team_id": team_id,
        "team_domain": team_domain,
        "channel_id": channel_id,
        "channel_name": channel_name,
        "user_id": user_id,
        "user_name": "alice",
        "command": command,
        "text": text,
        "api_app_id": app_id,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": f"{int(time.time())}.{uuid.uuid4().int % 10**12}.abc",
    }


def form_body(fields: dict[str, str]) -> str:
    return urlencode(fields)


def json_body(payload: dict[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"))


def message_event(
    text: str,
    *,
    channel: str,
    user: str,
    ts: str,
    thread_ts: str | None = None,
    team: str = "T0DENPEX",
    channel_type: str = "channel",
    bot_id: str | None = None,
) -> dict[str, Any]:
    """A `message` event as delivered for message.channels / message.groups."""
    event: dict[str, Any] = {
        "type": "message",
        "text": text,
        "user": user,
        "ts": ts,
        "team": team,
        "channel": channel,
        "channel_type": channel_type,
        "event_ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
        event["parent_user_id"] = "U0BOT"
    if bot_id:
        event["bot_id"] = bot_id
        event["subtype"] = "bot_message"
    return event


def envelope(kind: str, payload: dict[str, Any], *, retry_attempt: int = 0) -> dict[str, Any]:
    """A Socket Mode envelope: `events_api`, `slash_commands` or `interactive`."""
    return {
        "envelope_id": str(uuid.uuid4()),
        "payload": payload,
        "type": kind,
        "accepts_response_payload": kind != "events_api",
        "retry_attempt": retry_attempt,
        "retry_reason": "timeout" if retry_attempt else "",
    }


def block_actions(
    message: dict[str, Any],
    element: dict[str, Any],
    *,
    block_id: str,
    channel: str,
    root_ts: str,
    user_id: str,
    trigger_id: str,
    team_id: str = "T0DENPEX",
    app_id: str = "A0DENPEX",
    username: str = "alice",
) -> dict[str, Any]:
    """The `block_actions` payload Slack sends when a button in a thread reply is pressed (posted to
    the app as `payload=<json>` in a form body)."""
    action = {
        "action_id": element["action_id"],
        "block_id": block_id,
        "value": element.get("value", ""),
        "type": element.get("type", "button"),
        "action_ts": f"{time.time():.6f}",
        "text": element.get("text"),
    }
    if element.get("style"):  # Slack names the style only when the button has one
        action["style"] = element["style"]
    return {
        "type": "block_actions",
        "team": {"id": team_id, "domain": "denpex-test"},
        "user": {"id": user_id, "username": username, "name": username, "team_id": team_id},
        "api_app_id": app_id,
        "token": "legacy-verification-token",
        "container": {
            "type": "message",
            "message_ts": message["ts"],
            "channel_id": channel,
            "is_ephemeral": False,
            "thread_ts": root_ts,
        },
        "trigger_id": trigger_id,
        "channel": {"id": channel, "name": "denpex-alerts"},
        "message": {**message, "thread_ts": root_ts},
        "response_url": "",
        "actions": [action],
    }


def view_submission(
    view: dict[str, Any],
    values: dict[str, dict[str, str]],
    *,
    user_id: str,
    team_id: str = "T0DENPEX",
    app_id: str = "A0DENPEX",
    username: str = "alice",
) -> dict[str, Any]:
    """The `view_submission` payload of a modal the fake opened (`view` as views.open returned it),
    with `values` as {block_id: {action_id: typed text}} of its plain_text_input elements."""
    state = {
        block: {action: {"type": "plain_text_input", "value": text} for action, text in fields.items()}
        for block, fields in values.items()
    }
    return {
        "type": "view_submission",
        "team": {"id": team_id, "domain": "denpex-test"},
        "user": {"id": user_id, "username": username, "name": username, "team_id": team_id},
        "api_app_id": app_id,
        "token": "legacy-verification-token",
        "trigger_id": f"{int(time.time())}.{uuid.uuid4().int % 10**12}.{uuid.uuid4().hex}",
        "view": {**view, "state": {"values": state}},
        "response_urls": [],
        "is_enterprise_install": False,
    }
