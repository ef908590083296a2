"""Slack's signature is checked on the raw bytes before Bolt (or anything) parses a body.

Bolt builds its request, parsing the body, before it verifies the signature: an unsigned 10,000-level
nested JSON to /slack/events was a 500 with a traceback. Now every request under /slack/ is read
(deadline, size cap), authenticated (401) and only then checked for what Bolt can parse (400 naming
the problem). Real HTTP on 127.0.0.1; the server's clock is fixed where the window matters.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import itertools
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bot.server import build_deps, create_app
from denpex.cli._runtime import slack_route_installers
from denpex.core.settings import Settings
from tests.fakes.slack import FakeSlack, payloads
from tests.slack import helpers

pytestmark = pytest.mark.timeout(60)

NOW = 1_700_000_000  # the server's fixed clock
NESTED_ARRAY = b"[" * 10_000 + b"]" * 10_000
NESTED_OBJECT = b'{"a":' * 10_000 + b"1" + b"}" * 10_000
FORM = "application/x-www-form-urlencoded"


def signature(body: bytes, stamp: str, secret: str = helpers.SECRET) -> dict[str, str]:
    """Slack's headers for any timestamp string (even one Slack would never send)."""
    digest = hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={digest}"}


class Server:
    def __init__(self, base: str, session: aiohttp.ClientSession) -> None:
        self.base, self.session = base, session

    async def post(
        self, body: bytes, headers: dict[str, str], path: str = "/slack/events"
    ) -> tuple[int, dict[str, Any], str]:
        async with self.session.post(self.base + path, data=body, headers=headers) as resp:
            text = await resp.text()
            data = json.loads(text) if resp.content_type == "application/json" else {}
            return resp.status, data, text


@contextlib.asynccontextmanager
async def serve(settings: Settings, masker: Any, clock: Any) -> AsyncIterator[Server]:
    """`denpex serve`'s application (webhooks + Slack routes) on a real port, its clock injected."""
    deps = build_deps(settings, masker, clock=clock)
    deps.extra_routes.extend(slack_route_installers(settings, deps))
    runner = web.AppRunner(create_app(settings, deps), shutdown_timeout=1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession(trust_env=False) as session:
            yield Server(f"http://127.0.0.1:{port}", session)
    finally:
        await runner.cleanup()


@pytest.fixture
async def fixed(settings: Settings, masker: Any) -> AsyncIterator[Server]:
    short = settings.model_copy(update={"body_timeout_seconds": 1.0})
    async with serve(short, masker, lambda: float(NOW)) as server:
        yield server


@pytest.fixture
async def live(settings: Settings, masker: Any) -> AsyncIterator[Server]:
    """The same, on the real clock, as Bolt (which verifies again, with time.time()) sees it."""
    async with serve(settings, masker, time.time) as server:
        yield server


BODIES = {
    "nested-array": NESTED_ARRAY,
    "nested-object": NESTED_OBJECT,
    "nested-payload": b"payload=" + NESTED_ARRAY,
    "not-utf8": b"\xff\xfe not utf-8",
    "empty": b"",
    "array": b"[1]",
}


async def test_unsigned_or_badly_signed_is_401_whatever_the_body(fixed: Server) -> None:
    for (name, body), content_type in itertools.product(
        BODIES.items(), ["application/json", FORM, "text/plain"]
    ):
        wrong = signature(body, str(NOW), secret="not-the-secret")
        garbage = {"X-Slack-Request-Timestamp": "soon", "X-Slack-Signature": "v0=\u00e9"}
        truncated = {**signature(body, str(NOW)), "X-Slack-Signature": "v0=00"}
        for headers in ({}, wrong, garbage, truncated):
            for path in ("/slack/events", "/slack/commands"):  # every path under /slack/, even unrouted
                status, data, text = await fixed.post(body, {"Content-Type": content_type, **headers}, path)
                case = (name, content_type, headers, path, text[:300])
                assert status == 401 and "X-Slack-Signature" in data["error"], case
                assert "Traceback" not in text, case


STAMPS = {
    "arabic-indic": "".join(chr(0x0660 + int(d)) for d in str(NOW)),  # int() accepts these digits
    "underscores": "1_700_000_000",
    "space": f" {NOW}",
    "plus": f"+{NOW}",
    "huge": "9" * 5000,  # int() of it raises instead of answering
    "stale": str(NOW - 301),
    "future": str(NOW + 301),
}


async def test_timestamps_must_be_ascii_digits_within_five_minutes(fixed: Server) -> None:
    body = NESTED_ARRAY  # validly signed for each timestamp, and would break a parser
    for name, stamp in STAMPS.items():
        headers = {"Content-Type": "application/json", **signature(body, stamp)}
        status, data, text = await fixed.post(body, headers)
        assert status == 401 and "X-Slack-Request-Timestamp" in data["error"], (name, text[:300])
    # five minutes either way exactly still passes the signature check and reaches the parse check
    for stamp in (str(NOW - 300), str(NOW + 300)):
        headers = {"Content-Type": "application/json", **signature(b"{not json", stamp)}
        status, data, _ = await fixed.post(b"{not json", headers)
        assert (status, data["field"]) == (400, "body"), stamp


UNPARSEABLE = [
    (NESTED_ARRAY, "application/json", "body", "nested too deeply"),
    (NESTED_OBJECT, FORM, "body", "nested too deeply"),  # starts with "{": Bolt reads it as JSON
    (b"payload=" + NESTED_ARRAY, FORM, "payload", "nested too deeply"),
    (b"{not json", "application/json", "body", "not valid JSON"),
    (b"payload=%7Bnot+json", FORM, "payload", "not valid JSON"),
    (b"[1, 2]", "application/json", "body", "must be a JSON object"),
    (b'payload="text"', FORM, "payload", "must be a JSON object"),
    (b"command=%2Fdenpex&text=\xff\xfe", FORM, "body", "UTF-8"),
    (b'{"type": "url_verification"}', "application/json; charset=latin-1", "Content-Type", "utf-8"),
]


async def test_signed_but_unparseable_is_400_naming_the_problem(fixed: Server) -> None:
    for body, content_type, field, words in UNPARSEABLE:
        headers = {"Content-Type": content_type, **signature(body, str(NOW))}
        status, data, text = await fixed.post(body, headers)
        case = (body[:40], content_type, text[:300])
        assert (status, data.get("field")) == (400, field), case
        assert words in data["error"] and "Traceback" not in text, case


async def test_a_slow_body_to_slack_is_cut_off_with_408(fixed: Server) -> None:
    host, port = fixed.base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        head = (
            f"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: {FORM}\r\nContent-Length: 10000\r\n\r\n"
        )
        writer.write(head.encode() + b"command=%2Fden")
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 10)
        assert status_line.split()[1] == b"408", status_line
    finally:
        writer.close()


async def test_non_ascii_digits_are_refused_even_on_a_live_clock(live: Server, fake_slack: FakeSlack) -> None:
    """Bolt's own check (`int(timestamp)`) accepts other scripts' digits; ours answers 401 first."""
    body = payloads.form_body(fake_slack.slash_command("help")).encode()
    stamp = "".join(chr(0x0660 + int(d)) for d in str(int(time.time())))
    status, data, _ = await live.post(body, {"Content-Type": FORM, **signature(body, stamp)})
    assert status == 401 and "X-Slack-Request-Timestamp" in data["error"]
    # the same command with an ASCII timestamp is answered by Bolt as before
    ok, _, text = await live.post(body, {"Content-Type": FORM, **payloads.sign(body, helpers.SECRET)})
    assert ok == 200 and "/denpex diagnose" in text
