"""How `denpex serve` mounts the Slack app: `route_installers(settings, deps)` (found by
`denpex.cli._runtime.slack_route_installers`).

- `SLACK_BOT_TOKEN` + `SLACK_SIGNING_SECRET`: Bolt at `POST /slack/events` (Events API, slash commands).
- `SLACK_BOT_TOKEN` + `SLACK_APP_TOKEN`: Socket Mode, connected when the server starts and closed when
  it stops — for clusters behind a firewall; the same listeners.
Neither: no Slack routes; the webhook server runs alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog
from aiohttp import web

from bot.slack.app import create_slack_app, install_slack_routes, make_client, socket_mode_handler
from bot.slack.jobs import pipeline_submitter
from denpex.settings import Settings

if TYPE_CHECKING:
    from bot.server import ServerDeps

log = structlog.get_logger("denpex.slack")
SOCKET = web.AppKey("denpex_slack_socket", object)


def route_installers(settings: Settings, deps: ServerDeps) -> list[Callable[[web.Application], None]]:
    has_http = settings.slack_signing_secret is not None
    has_socket = settings.slack_app_token is not None
    if settings.slack_bot_token is None or not (has_http or has_socket):
        return []

    def install(web_app: web.Application) -> None:
        client = make_client(settings)
        slack_app = create_slack_app(
            settings, client=client, redis=deps.redis, submitter=pipeline_submitter(settings, deps)
        )
        if has_http:
            install_slack_routes(web_app, slack_app)
        if has_socket:
            assert settings.slack_app_token is not None
            token = settings.slack_app_token.get_secret_value()

            async def start_socket(app: web.Application) -> None:
                handler: Any = socket_mode_handler(slack_app, token, client)
                await handler.connect_async()
                app[SOCKET] = handler
                log.info("slack_socket_mode_connected")

            async def stop_socket(app: web.Application) -> None:
                handler: Any = app.get(SOCKET)
                if handler is not None:
                    await handler.close_async()

            web_app.on_startup.append(start_socket)
            web_app.on_cleanup.append(stop_socket)
        log.info("slack_mounted", http=has_http, socket_mode=has_socket)

    return [install]
