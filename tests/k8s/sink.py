"""A webhook receiver standing in for the Denpex server in watcher tests: it verifies the signature
with the server's own `integrations.signing.verify` and records what arrived."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from integrations.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, verify


class HookSink:
    def __init__(self, secret: str = "s3cret") -> None:  # noqa: S107 - a test secret
        self.secret = secret
        self.port = 0  # bound at start()
        self.bodies: list[dict[str, Any]] = []
        self.rejected: list[str] = []
        self.fail_next = 0  # answer 503 to this many requests first
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _hook(self, request: web.Request) -> web.Response:
        body = await request.read()
        headers = request.headers
        bad = verify(
            self.secret, body, headers.get(TIMESTAMP_HEADER), headers.get(SIGNATURE_HEADER), path=request.path
        )
        if bad:
            self.rejected.append(bad)
            return web.json_response({"error": bad}, status=401)
        if self.fail_next > 0:
            self.fail_next -= 1
            return web.json_response({"error": "busy"}, status=503)
        self.bodies.append(json.loads(body))
        return web.json_response({"ok": True}, status=202)

    def start(self) -> HookSink:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            app = web.Application()
            app.router.add_post("/hooks/kubernetes", self._hook)
            runner = web.AppRunner(app, shutdown_timeout=0.5)
            loop.run_until_complete(runner.setup())
            loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
            self.port = runner.addresses[0][1]
            ready.set()
            loop.run_forever()
            loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread:
            self._thread.join(10)


def wait_for(cond: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
