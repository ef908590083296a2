"""Fixtures of the web pages' tests: one engine for the session, the web routes on a real 127.0.0.1
server (aiohttp's TestServer), a clock the tests move by hand."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.web import routes as web_routes
from denpex.core.settings import Settings
from knowledge.engine import Engine
from knowledge.masking import Masker, TextMasker

TOKEN = "web-test-token-0123456789"


class Clock:
    """A monotonic clock that moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="session")
def masker() -> TextMasker:
    return Masker.default()


@pytest.fixture(scope="session")
def engine(masker: TextMasker) -> Engine:
    """Compiled once for every test (~3 s); the routes take it through their `engine` factory."""
    return Engine.load(masker=masker)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def web_app(settings: Settings, masker: TextMasker, engine: Engine, clock: Clock) -> web.Application:
    app = web.Application(client_max_size=settings.max_body_bytes)
    web_routes.setup(app, settings, masker, clock=clock, engine=lambda: engine)
    return app


@pytest.fixture
async def make_client(masker: TextMasker, engine: Engine, clock: Clock) -> AsyncIterator[Callable[..., Any]]:
    """`await make_client(**settings)`: a client of a real server on 127.0.0.1 with those settings."""
    clients: list[TestClient[Any, Any]] = []

    async def make(**values: Any) -> TestClient[Any, Any]:
        settings = Settings.model_validate({"DENPEX_WEB_TOKEN": TOKEN, **values})
        client: TestClient[Any, Any] = TestClient(
            TestServer(web_app(settings, masker, engine, clock), host="127.0.0.1")
        )
        await client.start_server()
        clients.append(client)
        return client

    yield make
    for c in clients:
        await c.close()


@pytest.fixture
async def client(make_client: Callable[..., Any]) -> AsyncIterator[TestClient[Any, Any]]:
    yield await make_client()


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
