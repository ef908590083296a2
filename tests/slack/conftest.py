"""Fixtures for the Slack app tests: the fake Slack server, and the real app on a real aiohttp server.

`slack_stack` is the app as `denpex serve` runs it: Bolt mounted at /slack/events on an aiohttp
application on 127.0.0.1, its Web API client pointed at the fake Slack, real Redis, the real RQ queue.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bot.server import build_deps, create_app
from bot.slack.answers import Answerer
from denpex.cli._runtime import slack_route_installers
from denpex.core.settings import Settings
from tests.fakes.slack import FakeSlack, payloads
from tests.fakes.slack.fixture import fake_slack
from tests.slack import helpers

__all__ = ["fake_slack"]


@pytest.fixture
def settings(fake_slack: FakeSlack, redis_url: str, tmp_path: Path) -> Settings:
    (tmp_path / "logs" / "ci" / "4242").mkdir(parents=True)
    (tmp_path / "logs" / "ci" / "4242" / "rank0.log").write_text("boom\n")
    return Settings(
        REDIS_URL=redis_url,
        SLACK_BOT_TOKEN=fake_slack.bot_token,
        SLACK_SIGNING_SECRET=helpers.SECRET,
        SLACK_API_URL=fake_slack.base_url,
        DENPEX_CHANNEL="C0ALERTS",
        DENPEX_LOG_ROOT=tmp_path / "logs",
        DENPEX_CLUSTER="ci",
        DENPEX_QUEUE="denpex-slack-test",
    )


@dataclass
class SlackStack:
    url: str
    fake: FakeSlack
    session: aiohttp.ClientSession

    async def post(
        self,
        body: str,
        content_type: str,
        *,
        timestamp: int | None = None,
        secret: str = helpers.SECRET,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str]:
        signed = {**payloads.sign(body, secret, timestamp=timestamp), "Content-Type": content_type}
        async with self.session.post(
            self.url, data=body.encode(), headers={**signed, **(headers or {})}
        ) as resp:
            return resp.status, await resp.text()

    async def command(self, text: str, **kw: Any) -> tuple[int, str]:
        form = self.fake.slash_command(text, **kw)
        return await self.post(payloads.form_body(form), "application/x-www-form-urlencoded")

    async def event(
        self, event: dict[str, Any], *, event_id: str | None = None, retry: int = 0
    ) -> tuple[int, str]:
        body = payloads.json_body(self.fake.event_callback(event, event_id=event_id))
        headers = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"} if retry else None
        return await self.post(body, "application/json", headers=headers)


@pytest.fixture(scope="session")
def masker() -> Any:
    from knowledge.masking import Masker

    return Masker.default()


@contextlib.asynccontextmanager
async def running_stack(settings: Settings, fake: FakeSlack, masker: Any) -> AsyncIterator[SlackStack]:
    """`denpex serve`'s application: the pipeline's server with the Slack routes installed."""
    deps = build_deps(settings, masker)
    deps.extra_routes.extend(slack_route_installers(settings, deps))
    runner = web.AppRunner(create_app(settings, deps), shutdown_timeout=1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession(trust_env=False) as session:
            yield SlackStack(f"http://127.0.0.1:{port}/slack/events", fake, session)
    finally:
        await runner.cleanup()


@pytest.fixture
async def slack_stack(settings: Settings, fake_slack: FakeSlack, masker: Any) -> AsyncIterator[SlackStack]:
    async with running_stack(settings, fake_slack, masker) as stack:
        yield stack


@pytest.fixture(scope="session")
def answerers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Answerer]:
    """An answerer for every fact job (tests/slack/factjobs.py), built once for the follow-up tests."""
    from tests.slack import factjobs, heldout

    tmp = tmp_path_factory.mktemp("factjobs")
    return heldout.answerers({name: build(tmp) for name, build in factjobs.JOBS.items()})
