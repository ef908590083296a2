"""Slack payloads fuzzed through the real app: signed slash-command form bodies and Events API JSON,
posted over HTTP to /slack/events of `denpex serve`'s application (Bolt mounted on the aiohttp app),
with its Web API client on the fake Slack. Any input must get an answer below 500 and leave the
app serving; nothing it does may raise out of a handler.

The app runs in its own thread and event loop for the whole module, so hypothesis drives it with
plain synchronous HTTP (one app, many examples).
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from hypothesis import given
from hypothesis import strategies as st

from bot.server import build_deps, create_app
from denpex.cli._runtime import slack_route_installers
from denpex.core.settings import Settings
from tests.fakes.slack import FakeSlack, payloads
from tests.slack import helpers
from tests.support.redis_server import RedisServer


class AppThread:
    """`denpex serve`'s app (webhooks + Slack routes) on 127.0.0.1, in a thread with its own loop."""

    def __init__(self, settings: Settings) -> None:
        self.settings, self.url, self.errors = settings, "", []
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.set_exception_handler(lambda loop, ctx: self.errors.append(ctx))
        self.runner = self.loop.run_until_complete(self._start())
        self.ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.runner.cleanup())

    async def _start(self) -> web.AppRunner:
        from knowledge.masking import Masker

        deps = build_deps(self.settings, Masker.default())
        deps.extra_routes.extend(slack_route_installers(self.settings, deps))
        runner = web.AppRunner(create_app(self.settings, deps), shutdown_timeout=1)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]
        return runner

    def __enter__(self) -> AppThread:
        self.thread.start()
        assert self.ready.wait(30), "the app did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def post(self, body: bytes, content_type: str, *, sign: bool = True) -> tuple[int, str]:
        headers = {"Content-Type": content_type}
        if sign:
            headers.update(payloads.sign(body, helpers.SECRET))
        req = urllib.request.Request(self.url + "/slack/events", data=body, headers=headers, method="POST")  # noqa: S310
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - 127.0.0.1
                return resp.status, resp.read().decode(errors="replace")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")


@pytest.fixture(scope="module")
def app(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppThread]:
    logs = tmp_path_factory.mktemp("slack-fuzz") / "logs"
    (logs / "ci" / "4242").mkdir(parents=True)
    (logs / "ci" / "4242" / "rank0.log").write_text("boom\n")
    with FakeSlack() as fake:
        settings = Settings(
            REDIS_URL=redis_server.url,
            SLACK_BOT_TOKEN=fake.bot_token,
            SLACK_SIGNING_SECRET=helpers.SECRET,
            SLACK_API_URL=fake.base_url,
            DENPEX_CHANNEL="C0ALERTS",
            DENPEX_LOG_ROOT=Path(logs),
            DENPEX_CLUSTER="ci",
            DENPEX_QUEUE="denpex-fuzz",
        )
        with AppThread(settings) as running:
            running.fake = fake  # type: ignore[attr-defined]
            yield running
        assert not running.errors, running.errors


words = st.sampled_from(
    [
        "diagnose",
        "quota",
        "redeem",
        "history",
        "help",
        "--cluster",
        "ci",
        "4242",
        "../x",
        "DPX-AAAAA-BBBBB-CCCCC-DDDDD",
        "<!channel>",
        "&amp;",
        "`",
        "*",
        "\n",
        "999999999999",
    ]
)
command_text = st.lists(words | st.text(max_size=12), max_size=6).map(" ".join) | st.text(max_size=200)
ids = st.sampled_from(["C0ALERTS", "C0NOPE", "", "U0ALICE", "T0DENPEX", "x" * 300]) | st.text(max_size=12)


@given(command_text, ids, ids, st.sampled_from(["/denpex", "/other", ""]))
def test_slash_commands_never_fail(app: AppThread, text: str, channel: str, user: str, command: str) -> None:
    form = app.fake.slash_command(text, channel_id=channel, user_id=user)  # type: ignore[attr-defined]
    form["command"] = command
    status, body = app.post(payloads.form_body(form).encode(), "application/x-www-form-urlencoded")
    assert status < 500, (status, body[:300])


json_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=30)
json_value = st.recursive(
    json_leaf,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids, max_size=3),
    max_leaves=10,
)
event = st.fixed_dictionaries(
    {"type": st.sampled_from(["app_mention", "message", "reaction_added", "", "x"])},
    optional={
        "text": command_text | json_value,
        "channel": ids | json_value,
        "user": ids,
        "ts": st.sampled_from(["1795980398.849376", "0", "-1", "nan", ""]) | st.text(max_size=10),
        "thread_ts": st.sampled_from(["1795980398.849376", "1.0"]) | st.text(max_size=10) | json_value,
        "subtype": st.sampled_from(["bot_message", "message_changed", None]),
        "bot_id": ids,
        "blocks": json_value,
        "files": json_value,
    },
)


@given(
    event,
    st.dictionaries(
        st.sampled_from(["team_id", "api_app_id", "type", "event_id", "authorizations"]),
        json_value,
        max_size=2,
    ),
)
def test_events_never_fail(app: AppThread, evt: dict[str, Any], overrides: dict[str, Any]) -> None:
    body = {**app.fake.event_callback(evt), **overrides}  # type: ignore[attr-defined]
    status, text = app.post(json.dumps(body).encode(), "application/json")
    assert status < 500, (status, text[:300])


@given(
    st.binary(max_size=300),
    st.sampled_from(["application/json", "application/x-www-form-urlencoded", "text/plain"]),
)
def test_garbage_bodies_never_fail(app: AppThread, body: bytes, content_type: str) -> None:
    status, text = app.post(body, content_type)
    assert status < 500, (status, text[:300])


@pytest.mark.parametrize(
    "overrides",
    [
        {"team_id": None, "authorizations": False},
        {"authorizations": [1]},
        {"event": "x"},
        {"event": {"type": "message", "channel": ["C0"]}},
    ],
)
def test_regression_wrongly_shaped_events_are_400_not_500(app: AppThread, overrides: dict[str, Any]) -> None:
    """Found by fuzzing: Bolt parses the body's shape before checking the signature, and raised
    TypeError (a 500 with a traceback, for unsigned requests too) on `"authorizations": false`."""
    body = {**app.fake.event_callback({"type": "app_mention", "text": "hi"}), **overrides}  # type: ignore[attr-defined]
    for signed in (True, False):
        status, text = app.post(json.dumps(body).encode(), "application/json", sign=signed)
        assert status < 500, (status, text[:300])
