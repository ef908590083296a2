"""Process wiring shared by `denpex serve`, `denpex worker` and `denpex demo`.

Builds the concrete objects the lower layers take as arguments: logging, the worker context with the
Slack app's renderer and quota gate when they are installed (the plain ones otherwise), and the
server's route installers from the Slack app.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

from denpex.settings import Settings


def configure_logging(level: str = "INFO") -> None:
    """JSON lines on stderr. Secrets never reach a log call: settings are SecretStr, logs are masked."""
    numeric = logging.getLevelName(level.upper()) if isinstance(level, str) else level
    if not isinstance(numeric, int):
        numeric = logging.INFO
    logging.basicConfig(stream=sys.stderr, level=numeric, format="%(message)s")
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None


def make_renderer(entries: Any = None) -> Any:
    """The Slack app's Block Kit renderer when present, else the plain one. `entries`: id → Entry."""
    try:
        from bot.slack.render import BlockKitRenderer
    except ImportError:
        from workers.render import PlainRenderer

        return PlainRenderer()
    return BlockKitRenderer(entries=entries)


def make_quota(client: Any) -> Any:
    try:
        from workers.quota import Quota
    except ImportError:
        from workers.context import AlwaysAllow

        return AlwaysAllow()
    return Quota(client)


def build_worker_context(
    settings: Settings,
    *,
    post: bool | None = None,
    quota: bool = True,
    collectors: dict[Any, str] | None = None,
    entries: Any = None,
) -> Any:
    """Everything a worker needs; posts to Slack when a bot token and channel are configured."""
    import redis

    from integrations.slack_client import make_web_client
    from knowledge.engine import Engine
    from knowledge.masking import Masker
    from workers.collect import CollectorRegistry
    from workers.context import AlwaysAllow, WorkerContext

    settings.require("REDIS_URL")
    client = redis.Redis.from_url(settings.redis_url or "", socket_connect_timeout=5, socket_timeout=30)
    masker = Masker.default()
    engine = Engine.load(entries, masker=masker)
    token = _secret(settings.slack_bot_token)
    post = bool(token and settings.channel) if post is None else post
    timeout = settings.slack_timeout_seconds
    slack = make_web_client(token, settings.slack_api_url, timeout=timeout) if post else None
    team_id = "local"
    if slack is not None:
        team_id = _team_id(slack, settings.slack_api_url)
    return WorkerContext(
        settings=settings, redis=client, masker=masker, renderer=make_renderer(engine.entries),
        collectors=CollectorRegistry(settings, collectors),
        quota=make_quota(client) if (post and quota) else AlwaysAllow(),
        slack=slack, channel=settings.channel if post else None, team_id=team_id, engine=engine,
    )


class StartupError(RuntimeError):
    """A dependency is misconfigured or unreachable at start-up; `str()` is the one-line message."""


def _team_id(slack: Any, api_url: str) -> str:
    """auth.test once at start-up: a bad token is a one-line error now, not a failed job later."""
    from slack_sdk.errors import SlackApiError

    from denpex.texts import service as texts

    try:
        return str(slack.auth_test().get("team_id") or "local")
    except SlackApiError as exc:
        raise StartupError(texts.slack_rejected(str(exc.response.get("error")))) from None
    except OSError as exc:  # URLError, timeouts, refused connections
        raise StartupError(texts.slack_unreachable(api_url, type(exc).__name__)) from None


def slack_route_installers(settings: Settings, deps: Any) -> list[Any]:
    """Route installers from the Slack app (`bot.slack.routes.route_installers`), if it is installed."""
    try:
        from bot.slack.routes import route_installers  # type: ignore[import-not-found]
    except ImportError:
        return []
    return list(route_installers(settings, deps))
