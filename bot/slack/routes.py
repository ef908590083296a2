"""How `denpex serve` mounts the Slack app: `route_installers(settings, ...)`, called by the
composition root (`denpex.cli._runtime.slack_route_installers`) with the server's Redis client, its
`Admission` and the job resolver.

- `SLACK_BOT_TOKEN` + `SLACK_SIGNING_SECRET`: Bolt at `POST /slack/events` (Events API, slash commands).
- `SLACK_BOT_TOKEN` + `SLACK_APP_TOKEN`: Socket Mode, connected when the server starts and closed when
  it stops — for clusters behind a firewall; the same listeners.
Neither: no Slack routes; the webhook server runs alone.
"""

from __future__ import annotations

from collections.abc import Callable

import redis
import structlog
from aiohttp import web
from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler

from bot.slack.app import create_slack_app, install_slack_routes, make_client, socket_mode_handler
from bot.slack.jobs import JobResolver, PipelineSubmitter
from denpex.core.settings import Settings
from workers.admission import Admission

log = structlog.get_logger("denpex.slack")
SOCKET = web.AppKey("denpex_slack_socket", AsyncSocketModeHandler)


def route_installers(
    settings: Settings, *, redis_client: redis.Redis, admission: Admission, resolver: JobResolver
) -> list[Callable[[web.Application], None]]:
    has_http = settings.slack_signing_secret is not None
    has_socket = settings.slack_app_token is not None
    if settings.slack_bot_token is None or not (has_http or has_socket):
        return []

    def install(web_app: web.Application) -> None:
        client = make_client(settings)
        slack_app = create_slack_app(
            settings,
            client=client,
            redis=redis_client,
            resolver=resolver,
            submitter=PipelineSubmitter(admission),
        )
        if has_http:
            install_slack_routes(web_app, slack_app)
        if has_socket:
            assert settings.slack_app_token is not None
            token = settings.slack_app_token.get_secret_value()

            async def start_socket(app: web.Application) -> None:
                handler = socket_mode_handler(slack_app, token, client)
                await handler.connect_async()
                app[SOCKET] = handler
                log.info("slack_socket_mode_connected")

            async def stop_socket(app: web.Application) -> None:
                handler = app.get(SOCKET)
                if handler is not None:
                    await handler.close_async()

            web_app.on_startup.append(start_socket)
            web_app.on_cleanup.append(stop_socket)
        log.info("slack_mounted", http=has_http, socket_mode=has_socket)

    return [install]
