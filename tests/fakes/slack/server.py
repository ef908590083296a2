"""`FakeSlack`: a separate aiohttp server that speaks Slack's Web API and Socket Mode protocols.

It runs on 127.0.0.1 (free port) in its own thread with its own event loop, so sync tests, async
tests and subprocesses (via `base_url`) all drive it the same way, with the real slack_sdk clients.
See the package docstring (`tests/fakes/slack/__init__.py`) for usage.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.fakes.slack import payloads
from tests.fakes.slack.inspection import Inspection
from tests.fakes.slack.state import Workspace
from tests.fakes.slack.validation import SlackError

BOT, APP = "bot", "app"


@dataclass
class Call:
    """One Web API request as the fake received it, and what it answered."""

    method: str
    params: dict[str, Any]
    token: str | None
    status: int
    response: dict[str, Any]
    at: float = field(default_factory=time.time)

    @property
    def ok(self) -> bool:
        return bool(self.response.get("ok"))


@dataclass
class _Fault:
    kind: str  # "status" | "hang" | "error"
    remaining: int
    method: str | None
    status: int = 429
    retry_after: int = 1
    seconds: float = 0.0
    error: str = ""


class FakeSlack(Inspection):
    """A fake Slack workspace with one bot; see the package docstring."""

    def __init__(
        self,
        *,
        bot_token: str = "xoxb-1111-2222-denpexfake",  # noqa: S107 - a fake's fixed test token
        app_token: str = "xapp-1-A0DENPEX-1-fake",  # noqa: S107
        team_id: str = "T0DENPEX",
        bot_user_id: str = "U0BOT",
        bot_id: str = "B0BOT",
        app_id: str = "A0DENPEX",
    ) -> None:
        self.bot_token, self.app_token = bot_token, app_token
        self.workspace = Workspace(
            team_id=team_id, team_domain="denpex-test", bot_user_id=bot_user_id, bot_id=bot_id, app_id=app_id
        )
        self.workspace.add_channel("C0ALERTS", "denpex-alerts")
        self.workspace.add_channel("C0GENERAL", "general")
        self.workspace.add_channel("G0PRIVATE", "ml-private", private=True)
        self._lock = threading.RLock()
        self._calls: list[Call] = []
        self._faults: list[_Fault] = []
        self._tickets: set[str] = set()
        self._sockets: list[web.WebSocketResponse] = []
        self.acks: dict[str, dict[str, Any]] = {}
        self.socket_connections = 0
        self.responses: list[dict[str, Any]] = []  # what apps POSTed to response_url
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The Web API base URL for `WebClient(base_url=...)`; ends with '/' as slack_sdk needs."""
        return f"{self.root_url}/api/"

    def start(self) -> FakeSlack:
        ready = threading.Event()
        failure: list[BaseException] = []
        self._loop = asyncio.new_event_loop()

        def run() -> None:
            assert self._loop is not None
            asyncio.set_event_loop(self._loop)
            try:
                self._loop.run_until_complete(self._start())
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                return
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="fake-slack", daemon=True)
        self._thread.start()
        if not ready.wait(10) or failure:
            raise RuntimeError(f"fake Slack did not start: {failure}")
        return self

    def stop(self) -> None:
        if self._loop is None or self._thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(15)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self._loop = self._thread = None

    def __enter__(self) -> FakeSlack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 << 20)
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_post("/upload/v1/{file_id}", self._upload)
        app.router.add_post("/response/{rid}", self._response_url)
        app.router.add_get("/link/", self._socket)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]

    async def _stop(self) -> None:
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # ------------------------------------------------------------------ fault knobs
    def fail_next(
        self, n: int = 1, *, status: int = 429, retry_after: int = 1, method: str | None = None
    ) -> None:
        """The next `n` calls (of `method`, or any) answer HTTP `status` (429 carries Retry-After)."""
        with self._lock:
            self._faults.append(_Fault("status", n, method, status=status, retry_after=retry_after))

    def error_next(self, error: str, n: int = 1, *, method: str | None = None) -> None:
        """The next `n` calls answer `{"ok": false, "error": error}` with HTTP 200."""
        with self._lock:
            self._faults.append(_Fault("error", n, method, error=error))

    def hang_next(self, seconds: float, n: int = 1, *, method: str | None = None) -> None:
        """The next `n` calls wait `seconds` before they are handled (client timeouts)."""
        with self._lock:
            self._faults.append(_Fault("hang", n, method, seconds=seconds))

    def _take_fault(self, method: str) -> _Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.remaining > 0 and fault.method in (None, method):
                    fault.remaining -= 1
                    return fault
        return None

    # ------------------------------------------------------------------ Web API
    async def _params(self, request: web.Request) -> dict[str, Any]:
        params: dict[str, Any] = dict(request.query)
        if request.method == "POST" and request.can_read_body:
            if request.content_type == "application/json":
                body = await request.json()
                if isinstance(body, dict):
                    params.update(body)
            else:
                form = await request.post()
                params.update({k: v for k, v in form.items() if isinstance(v, str)})
        return params

    def _methods(self) -> dict[str, tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]]:
        w = self.workspace
        return {
            "auth.test": (BOT, w.auth_test),
            "chat.postMessage": (BOT, w.chat_post_message),
            "chat.update": (BOT, w.chat_update),
            "chat.postEphemeral": (BOT, w.chat_post_ephemeral),
            "conversations.replies": (BOT, w.conversations_replies),
            "conversations.history": (BOT, w.conversations_history),
            "files.getUploadURLExternal": (BOT, lambda p: w.files_get_upload_url(p, root_url=self.root_url)),
            "files.completeUploadExternal": (BOT, w.files_complete_upload),
            "views.open": (BOT, w.views_open),
            "views.update": (BOT, w.views_update),
            "apps.connections.open": (APP, self._connections_open),
        }

    def _authorize(self, request: web.Request, params: dict[str, Any], kind: str) -> str | None:
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header.startswith("Bearer ") else params.pop("token", None)
        params.pop("token", None)
        if not token:
            raise SlackError("not_authed")
        expected = self.bot_token if kind == BOT else self.app_token
        if token == expected:
            return str(token)
        if token in (self.bot_token, self.app_token):
            raise SlackError("not_allowed_token_type")
        raise SlackError("invalid_auth")

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = await self._params(request)
        token = None
        fault = self._take_fault(method)
        if fault is not None and fault.kind == "hang":
            await asyncio.sleep(fault.seconds)
        status, headers = 200, {"X-Slack-Req-Id": uuid.uuid4().hex}
        try:
            if fault is not None and fault.kind == "status":
                status = fault.status
                if status == 429:
                    headers["Retry-After"] = str(fault.retry_after)
                raise SlackError("ratelimited" if status == 429 else "internal_error")
            if fault is not None and fault.kind == "error":
                raise SlackError(fault.error)
            entry = self._methods().get(method)
            if entry is None:
                raise SlackError("unknown_method")
            token = self._authorize(request, params, entry[0])
            body: dict[str, Any] = {"ok": True, **entry[1](params)}
        except SlackError as exc:
            body = {"ok": False, "error": exc.error}
            if exc.detail:
                body["errors"] = exc.detail
                body["response_metadata"] = {"messages": exc.detail}
        params.pop("token", None)
        with self._lock:
            self._calls.append(Call(method, params, token, status, body))
        return web.json_response(body, status=status, headers=headers)

    def _connections_open(self, params: dict[str, Any]) -> dict[str, Any]:
        ticket = uuid.uuid4().hex
        with self._lock:
            self._tickets.add(ticket)
        return {"url": f"ws://127.0.0.1:{self.port}/link/?ticket={ticket}&app_id={self.workspace.app_id}"}

    async def _upload(self, request: web.Request) -> web.Response:
        status = self.workspace.upload(request.match_info["file_id"], await request.read())
        return web.Response(status=status, text="OK" if status == 200 else "file_not_found")

    async def _response_url(self, request: web.Request) -> web.Response:
        body = await request.json()
        with self._lock:
            self.responses.append({"id": request.match_info["rid"], **body})
        return web.Response(text="ok")

    def trigger_id(self) -> str:
        """A trigger_id for an interaction payload; views.open accepts it once, within 3 s."""
        return self.workspace.issue_trigger()

    def response_url(self) -> str:
        """A response_url for a slash command; what the app posts there lands in `responses`."""
        return f"{self.root_url}/response/{uuid.uuid4().hex}"

    # ------------------------------------------------------------------ Socket Mode
    async def _socket(self, request: web.Request) -> web.StreamResponse:
        with self._lock:
            if request.query.get("ticket") not in self._tickets:
                return web.Response(status=401, text="invalid ticket")
            self._tickets.discard(request.query["ticket"])
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._sockets.append(ws)
        with self._lock:
            self.socket_connections += 1
        await ws.send_json(
            {
                "type": "hello",
                "num_connections": len(self._sockets),
                "debug_info": {"host": "fake-slack", "build_number": 1, "approximate_connection_time": 18060},
                "connection_info": {"app_id": self.workspace.app_id},
            }
        )
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                data = json.loads(msg.data)
                if isinstance(data, dict) and "envelope_id" in data:
                    with self._lock:
                        self.acks[data["envelope_id"]] = data.get("payload") or {}
        finally:
            self._sockets.remove(ws)
        return ws

    def send_envelope(self, kind: str, payload: dict[str, Any], *, retry_attempt: int = 0) -> str:
        """Push a Socket Mode envelope to the connected app; returns its envelope_id."""
        env = payloads.envelope(kind, payload, retry_attempt=retry_attempt)

        async def push() -> None:
            if not self._sockets:
                raise RuntimeError("no Socket Mode connection")
            await self._sockets[-1].send_json(env)

        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(push(), self._loop).result(10)
        return str(env["envelope_id"])

    def send_event(
        self, event: dict[str, Any], *, event_id: str | None = None, retry_attempt: int = 0
    ) -> str:
        return self.send_envelope(
            "events_api", self.event_callback(event, event_id=event_id), retry_attempt=retry_attempt
        )

    def send_slash_command(self, text: str, *, channel_id: str = "C0ALERTS", user_id: str = "U0ALICE") -> str:
        payload = self.slash_command(text, channel_id=channel_id, user_id=user_id)
        return self.send_envelope("slash_commands", payload)

    def disconnect_sockets(self, reason: str = "refresh_requested") -> None:
        async def push() -> None:
            for ws in list(self._sockets):
                await ws.send_json(
                    {"type": "disconnect", "reason": reason, "debug_info": {"host": "fake-slack"}}
                )

        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(push(), self._loop).result(10)

    # ------------------------------------------------------------------ payload builders
    def event_callback(self, event: dict[str, Any], *, event_id: str | None = None) -> dict[str, Any]:
        w = self.workspace
        return payloads.event_callback(
            event, team_id=w.team_id, app_id=w.app_id, bot_user_id=w.bot_user_id, event_id=event_id
        )

    def slash_command(
        self, text: str, *, channel_id: str = "C0ALERTS", user_id: str = "U0ALICE"
    ) -> dict[str, str]:
        w = self.workspace
        return payloads.slash_command(
            text,
            team_id=w.team_id,
            app_id=w.app_id,
            channel_id=channel_id,
            user_id=user_id,
            response_url=self.response_url(),
        )
