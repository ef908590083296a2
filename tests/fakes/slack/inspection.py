"""What tests read from `FakeSlack`: recorded calls, messages, files, acks, and bounded waits.

A mixin so the server module stays about the protocol; these helpers only read state under its locks.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from tests.fakes.slack.server import Call
    from tests.fakes.slack.state import Workspace

T = TypeVar("T")


class Inspection:
    _lock: threading.RLock
    _calls: list[Call]
    acks: dict[str, dict[str, Any]]
    workspace: Workspace
    bot_token: str
    base_url: str

    def calls(self, method: str | None = None) -> list[Call]:
        with self._lock:
            return [c for c in self._calls if method in (None, c.method)]

    def messages(self, channel: str = "C0ALERTS") -> list[dict[str, Any]]:
        """Every message in the channel, replies included, oldest first."""
        return self.workspace.channel_messages(channel)

    def roots(self, channel: str = "C0ALERTS") -> list[dict[str, Any]]:
        return [m for m in self.messages(channel) if m.get("thread_ts") in (None, m["ts"])]

    def thread(self, ts: str, channel: str = "C0ALERTS") -> list[dict[str, Any]]:
        """The replies in the thread under `ts` (the root excluded), oldest first."""
        return [m for m in self.messages(channel) if m.get("thread_ts") == ts and m["ts"] != ts]

    @property
    def ephemerals(self) -> list[dict[str, Any]]:
        with self.workspace.lock:
            return list(self.workspace.ephemerals)

    @property
    def files(self) -> dict[str, dict[str, Any]]:
        with self.workspace.lock:
            return {k: dict(v) for k, v in self.workspace.files.items()}

    def wait_for(self, predicate: Callable[[], T], timeout: float = 10.0, what: str = "condition") -> T:
        """Poll `predicate` until it returns something truthy (for sync tests)."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"fake Slack: timed out after {timeout}s waiting for {what}")
            time.sleep(0.02)

    async def wait_for_async(
        self, predicate: Callable[[], T], timeout: float = 10.0, what: str = "condition"
    ) -> T:
        """Like `wait_for`, but yields to the test's event loop (for async tests)."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"fake Slack: timed out after {timeout}s waiting for {what}")
            await asyncio.sleep(0.02)

    def ack_of(self, envelope_id: str) -> Callable[[], dict[str, Any] | None]:
        """Predicate for `wait_for*`: the ack payload of an envelope (`{}` is returned as `{"": ""}`)."""

        def check() -> dict[str, Any] | None:
            with self._lock:
                if envelope_id not in self.acks:
                    return None
                return self.acks[envelope_id] or {"": ""}

        return check

    def async_client(self, **kwargs: Any) -> Any:
        """An AsyncWebClient pointed here, with the 429/5xx retry handlers production uses."""
        from slack_sdk.http_retry.builtin_async_handlers import (
            AsyncRateLimitErrorRetryHandler,
            AsyncServerErrorRetryHandler,
        )
        from slack_sdk.web.async_client import AsyncWebClient

        client = AsyncWebClient(token=self.bot_token, base_url=self.base_url, **kwargs)
        client.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=2))
        client.retry_handlers.append(AsyncServerErrorRetryHandler(max_retry_count=2))
        return client

    def web_client(self, **kwargs: Any) -> Any:
        """A sync WebClient pointed here, with the 429/5xx retry handlers."""
        from slack_sdk import WebClient
        from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler, ServerErrorRetryHandler

        client = WebClient(token=self.bot_token, base_url=self.base_url, **kwargs)
        client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=2))
        client.retry_handlers.append(ServerErrorRetryHandler(max_retry_count=2))
        return client
