"""The door of every webhook: content type, size, authentication, UTF-8 and JSON, in that order.

Each check raises `HookError` with the HTTP status, a metrics reason and a user-facing message (from
`denpex.core.texts.http`); the route handler turns it into `{"error": ..., "field": ...}`. Nothing is
queued or stored, and no webhook slot is taken, until the body is read and authenticated. The Slack
routes use the same door (`read_raw_body`, `check_slack_signature`, `check_slack_body`) before Bolt.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web

from denpex.core.texts import http as texts
from integrations.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, verify

SLACK_TIMESTAMP_HEADER = "X-Slack-Request-Timestamp"
SLACK_SIGNATURE_HEADER = "X-Slack-Signature"
#: Slack's replay window (its own verifier and Bolt's use the same five minutes)
SLACK_WINDOW_SECONDS = 300


class HookError(Exception):
    def __init__(self, status: int, reason: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status, self.reason, self.message, self.field = status, reason, message, field

    def response(self) -> web.Response:
        body: dict[str, Any] = {"error": self.message}
        if self.field is not None:
            body["field"] = self.field
        headers = {"WWW-Authenticate": "Bearer"} if self.reason == "bearer" else None
        resp = web.json_response(body, status=self.status, headers=headers)
        if self.status in (408, 413):  # the rest of the body is not worth waiting for
            resp.force_close()
        return resp


async def read_body(request: web.Request, max_bytes: int, deadline: float | None = None) -> bytes:
    """The whole JSON body, within `deadline` seconds and `max_bytes`.

    Called before any webhook slot is taken: a sender that trickles its body (or never finishes it)
    is cut off with 408 and holds nothing but its own socket meanwhile.
    """
    if request.content_type != "application/json":
        raise HookError(415, "content_type", texts.wrong_content_type(request.content_type))
    return await read_raw_body(request, max_bytes, deadline)


async def read_raw_body(request: web.Request, max_bytes: int, deadline: float | None = None) -> bytes:
    """The whole body of any content type, under the same deadline (408) and size cap (413)."""
    if request.content_length is not None and request.content_length > max_bytes:
        raise HookError(413, "too_large", texts.too_large(max_bytes))
    try:  # asyncio.timeout, not wait_for: no extra task per request (storms are thousands of them)
        async with asyncio.timeout(deadline):
            body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise HookError(413, "too_large", texts.too_large(max_bytes)) from None
    except TimeoutError:
        raise HookError(408, "body_timeout", texts.body_timeout(deadline or 0)) from None
    if len(body) > max_bytes:
        raise HookError(413, "too_large", texts.too_large(max_bytes))
    return body


def check_signature(
    request: web.Request, body: bytes, secret: str | None, now: float, *, accept_v1: bool = False
) -> None:
    """A `v2=` signature over this request's path (or `v1=` while `accept_v1`), fresh within the window."""
    if not secret:
        raise HookError(503, "not_configured", texts.not_configured("DENPEX_WEBHOOK_SECRET"))
    headers = request.headers
    problem = verify(
        secret,
        body,
        headers.get(TIMESTAMP_HEADER),
        headers.get(SIGNATURE_HEADER),
        path=request.path,
        accept_v1=accept_v1,
        now=now,
    )
    if problem == "stale":
        raise HookError(401, "stale", texts.STALE)
    if problem == "v1_disabled":
        raise HookError(401, "signature_v1_disabled", texts.V1_DISABLED)
    if problem:
        raise HookError(401, f"signature_{problem}", texts.UNAUTHORIZED)


def check_bearer(request: web.Request, token: str | None) -> None:
    if not token:
        raise HookError(503, "not_configured", texts.not_configured("DENPEX_ALERTMANAGER_TOKEN"))
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise HookError(401, "bearer", texts.BEARER)


def decode_json(body: bytes) -> Any:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise HookError(400, "utf8", texts.NOT_UTF8, "body") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise HookError(400, "json", texts.NOT_JSON, "body") from None
    if not isinstance(data, dict):
        raise HookError(400, "json", texts.NOT_OBJECT, "body")
    return data


def check_slack_signature(headers: Mapping[str, str], body: bytes, secret: str, now: float) -> None:
    """Slack's `v0=` HMAC-SHA256 over `v0:{timestamp}:{raw body}`, fresh within five minutes.

    Run on the raw bytes before anything parses them, so an unsigned body of any shape (a
    10,000-level nested JSON, non-UTF-8 bytes) costs one HMAC and a 401, never a parser's traceback.
    The timestamp must be plain ASCII digits: `int()` also accepts other scripts' digits and
    underscores, and a header of thousands of digits would raise instead of answering.
    """
    stamp = headers.get(SLACK_TIMESTAMP_HEADER, "")
    given = headers.get(SLACK_SIGNATURE_HEADER, "")
    if not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12) or not given.isascii():
        raise HookError(401, "slack_signature_missing", texts.SLACK_UNAUTHORIZED)
    if abs(now - int(stamp)) > SLACK_WINDOW_SECONDS:
        raise HookError(401, "slack_stale", texts.SLACK_STALE)
    signed = b"v0:" + stamp.encode() + b":" + body
    expected = "v0=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), given.encode()):
        raise HookError(401, "slack_signature_mismatch", texts.SLACK_UNAUTHORIZED)


def check_slack_body(content_type: str, charset: str | None, body: bytes) -> None:
    """Refuse (400, naming what is wrong) a signed body Bolt could not parse, before Bolt sees it.

    Mirrors Bolt's own reading: a JSON object when the type is JSON or the text starts with `{`,
    otherwise a form whose `payload` field, if there is one, is a JSON object.
    """
    if charset is not None and charset.lower() not in ("utf-8", "utf8"):
        raise HookError(400, "charset", texts.wrong_charset(charset), "Content-Type")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise HookError(400, "utf8", texts.NOT_UTF8, "body") from None
    if not text:
        return
    if content_type == "application/json" or text.startswith("{"):
        _json_object(text, "body")
    elif "payload" in text:
        payload = dict(parse_qsl(text, keep_blank_values=True)).get("payload")
        if payload is not None:
            _json_object(payload, "payload")


def _json_object(text: str, field: str) -> None:
    try:
        data = json.loads(text)
    except RecursionError:
        raise HookError(400, "json_depth", texts.slack_nested(field), field) from None
    except ValueError:
        raise HookError(400, "json", texts.slack_not_json(field), field) from None
    if not isinstance(data, dict):
        raise HookError(400, "json", texts.slack_not_object(field), field)
