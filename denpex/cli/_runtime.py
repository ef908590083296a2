"""The composition root: process wiring shared by `denpex serve`, `denpex worker` and `denpex demo`.

Builds the concrete objects the lower layers take as arguments: logging, the worker context (engine,
masker, Slack client, the Slack app's Block Kit renderer and quota gate), the job resolver with its
Slurm and Kubernetes clients, and the server's routes from the Slack app, which gets the server's
one `Admission`. Heavy imports stay inside the functions, so `denpex diagnose` pays for none of them.
"""

from __future__ import annotations

import logging
import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import structlog
from pydantic import SecretStr

from denpex.core.models import Scheduler
from denpex.core.settings import DrainAction, Settings

if TYPE_CHECKING:
    import redis
    from slack_sdk import WebClient

    from bot.server import RouteInstaller, ServerDeps
    from bot.slack.jobs import DefaultResolver
    from knowledge.schema import Entry
    from workers.context import WorkerContext
    from workers.ports import QuotaGate, Renderer


def configure_logging(level: str = "INFO") -> None:
    """JSON lines on stderr, one style for Denpex's own events and for libraries' stdlib logging
    (rq, Bolt, aiohttp, urllib3), which structlog's stdlib bridge renders the same way. Secrets never
    reach a log call: settings are SecretStr, logs are masked."""
    numeric = logging.getLevelName(level.upper()) if isinstance(level, str) else level
    if not isinstance(numeric, int):
        numeric = logging.INFO
    stamp = structlog.processors.TimeStamper(fmt="iso", utc=True)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            stamp,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.add_log_level, structlog.stdlib.add_logger_name, stamp],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.JSONRenderer(),
            ],
        )
    )
    root = logging.getLogger()
    if not root.handlers:  # a host that configured logging itself (a test runner) keeps its own
        root.addHandler(handler)
    root.setLevel(numeric)


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value is not None else None


def make_renderer(
    entries: Mapping[str, Entry] | None = None,
    public_url: str | None = None,
    *,
    drain_action: DrainAction = DrainAction.off,
    history_on: Callable[[], bool] | None = None,
) -> Renderer:
    """The Slack app's Block Kit renderer; `entries` (id → Entry) supplies fix snippets, `public_url`
    (DENPEX_PUBLIC_URL) the entry pages the threads link to, `drain_action` (DENPEX_DRAIN_ACTION)
    whether advised nodes get a Drain button, `history_on` whether a thread gets "Fixed — how?"."""
    from bot.slack.render import BlockKitRenderer

    return BlockKitRenderer(
        entries=entries, public_url=public_url, drain_action=drain_action, history_on=history_on
    )


def _history_on(client: redis.Redis, team_id: str) -> Callable[[], bool]:
    """Whether the workspace keeps the incident history now (Scale): the check the "Fixed — how?"
    button's press and `/denpex solved` make, asked when a thread is rendered."""
    from workers.quota import Quota

    quota = Quota(client)
    return lambda: quota.status(team_id).is_scale


def redis_client(settings: Settings, *, worker: bool = False) -> redis.Redis:
    """The process's synchronous Redis client, from `REDIS_URL` or Sentinel (`workers.redisconn`).

    A worker waits out a failover (about 7 s of retries) rather than fail the job it is running; a
    command-line tool gives up sooner. Raises `MissingSetting` when Redis is not configured."""
    from workers.redisconn import ClientOptions, RedisTarget, sync_client

    options = ClientOptions(socket_timeout=5, connect_timeout=5, retries=3)
    if worker:
        options = ClientOptions(
            socket_timeout=30, connect_timeout=5, retries=6, backoff_base=0.1, backoff_cap=2
        )
    return sync_client(RedisTarget.from_settings(settings), options)


def make_quota(client: redis.Redis) -> QuotaGate:
    from workers.quota import Quota

    return Quota(client)


def build_worker_context(
    settings: Settings,
    *,
    post: bool | None = None,
    quota: bool = True,
    collectors: dict[Scheduler, str] | None = None,
    entries: Path | None = None,
) -> WorkerContext:
    """Everything a worker needs; posts to Slack when a bot token and channel are configured."""
    from integrations.slack_client import make_web_client
    from knowledge.engine import Engine
    from knowledge.masking import Masker
    from workers.collect import CollectorRegistry
    from workers.context import AlwaysAllow, WorkerContext

    client = redis_client(settings, worker=True)
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
        settings=settings,
        redis=client,
        masker=masker,
        renderer=make_renderer(
            engine.entries,
            settings.public_url,
            drain_action=settings.drain_action,
            history_on=_history_on(client, team_id) if post else None,
        ),
        collectors=CollectorRegistry(settings, collectors),
        quota=make_quota(client) if (post and quota) else AlwaysAllow(),
        slack=slack,
        channel=settings.channel if post else None,
        team_id=team_id,
        engine=engine,
    )


class StartupError(RuntimeError):
    """A dependency is misconfigured or unreachable at start-up; `str()` is the one-line message."""


def _team_id(slack: WebClient, api_url: str) -> str:
    """auth.test once at start-up: a bad token is a one-line error now, not a failed job later."""
    from slack_sdk.errors import SlackApiError

    from denpex.core.texts import service as texts

    try:
        return str(slack.auth_test().get("team_id") or "local")
    except SlackApiError as exc:
        raise StartupError(texts.slack_rejected(str(exc.response.get("error")))) from None
    except OSError as exc:  # URLError, timeouts, refused connections
        raise StartupError(texts.slack_unreachable(api_url, type(exc).__name__)) from None


def job_resolver(settings: Settings) -> DefaultResolver:
    """`/denpex diagnose`'s resolver, with the Slurm backend (when `sacct` is on PATH) and the
    Kubernetes client (when `DENPEX_K8S_CLUSTER` is set and a cluster is configured) built once."""
    from bot.slack.jobs import DefaultResolver

    slurm = None
    if shutil.which("sacct"):
        from integrations.slurm import CliBackend

        slurm = CliBackend()
    kube = None
    if settings.k8s_cluster:
        from integrations.kubernetes import try_api_client

        kube = try_api_client()
    return DefaultResolver(settings, slurm=slurm, kube=kube)


def slack_route_installers(settings: Settings, deps: ServerDeps) -> list[RouteInstaller]:
    """The Slack app's routes on the server, sharing its Redis client and its one `Admission`."""
    from bot.slack.routes import route_installers

    return route_installers(
        settings, redis_client=deps.redis, admission=deps.admission, resolver=job_resolver(settings)
    )
