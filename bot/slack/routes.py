"""How `denpex serve` mounts the Slack app: `route_installers(settings, ...)`, called by the
composition root (`denpex.cli._runtime.slack_route_installers`) with the server's Redis client, its
`Admission` and the job resolver.

- `SLACK_BOT_TOKEN` + `SLACK_SIGNING_SECRET`: Bolt at `POST /slack/events` (Events API, slash commands),
  behind `signature_first`: every request under `/slack/` is read (deadline, size cap) and its Slack
  signature checked on the raw bytes before Bolt or anything else parses it.
- `SLACK_BOT_TOKEN` + `SLACK_APP_TOKEN`: Socket Mode, connected when the server starts and closed when
  it stops — for clusters behind a firewall; the same listeners.
Neither: no Slack routes; the webhook server runs alone.
"""

from __future__ import annotations

from collections.abc import Callable

import redis
import structlog
from aiohttp import web
from aiohttp.typedefs import Handler, Middleware
from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler

from bot.slack.app import create_slack_app, install_slack_routes, make_client, socket_mode_handler
from bot.slack.jobs import JobResolver, PipelineSubmitter
from bot.webhooks import HookError, check_slack_body, check_slack_signature, read_raw_body
from denpex.core.settings import Settings
from workers.admission import Admission

log = structlog.get_logger("denpex.slack")
SOCKET = web.AppKey("denpex_slack_socket", AsyncSocketModeHandler)
#: every path Slack may call; anything under it is verified before it is parsed
SLACK_PREFIX = "/slack/"


def signature_first(settings: Settings, secret: str, clock: Callable[[], float]) -> Middleware:
    """A middleware that answers 401 (unsigned, stale, tampered) or 400 (signed but unparseable)
    before a Slack route's handler runs.

    Bolt builds its request, parsing the body, before it verifies the signature: an unsigned body
    that breaks the parser (deep nesting) was a 500 with a traceback. Here the raw bytes are read
    under the webhook deadline and size cap, authenticated, then checked the way Bolt will read them.
    """

    @web.middleware
    async def verify(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith(SLACK_PREFIX):
            return await handler(request)
        try:
            body = await read_raw_body(request, settings.max_body_bytes, settings.body_timeout_seconds)
            check_slack_signature(request.headers, body, secret, clock())
            check_slack_body(request.content_type, request.charset, body)
        except HookError as exc:
            log.debug("slack_request_refused", reason=exc.reason, path=request.path)
            return exc.response()
        return await handler(request)

    return verify


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
            assert settings.slack_signing_secret is not None
            secret = settings.slack_signing_secret.get_secret_value()
            web_app.middlewares.append(signature_first(settings, secret, admission.clock))
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
