"""The Slack app: a Bolt `AsyncApp` built by a factory, served over HTTP or Socket Mode.

No module-level app or client: `create_slack_app` takes every collaborator (tests point the Web API
client at a fake server). The same listeners serve both transports:

- HTTP: `install_slack_routes(web_app, slack_app)` mounts `POST /slack/events` on the pipeline's aiohttp
  application; Bolt verifies Slack's v0 signature (and rejects timestamps over 5 minutes old).
- Socket Mode (`SLACK_APP_TOKEN`, for clusters behind a firewall): `socket_mode_handler(...)`.
"""

from __future__ import annotations

from collections.abc import Mapping

import redis
import structlog
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.audit import AuditLog
from bot.slack.commands import register_commands
from bot.slack.deps import SlackDeps
from bot.slack.details import register_details
from bot.slack.drain import make_drainer, register_drain
from bot.slack.fixnote import register_fixnote
from bot.slack.followups import register_followups
from bot.slack.jobs import DefaultResolver, JobResolver, PipelineSubmitter, Submitter
from bot.slack.llm import LlmPhraser
from denpex.core.settings import Settings
from denpex.core.texts import slack as texts
from integrations.nodedrain import NodeDrainer
from integrations.slack_client import make_async_web_client
from knowledge.masking import Masker
from knowledge.schema import ENTRIES_DIR, Entry, EntryError, load_entries, load_entry
from workers.admission import Admission
from workers.quota import Quota

__all__ = [
    "EVENTS_PATH",
    "SlackDeps",
    "create_slack_app",
    "install_slack_routes",
    "load_entry_map",
    "make_client",
    "make_llm",
    "socket_mode_handler",
]

EVENTS_PATH = "/slack/events"
log = structlog.get_logger("denpex.slack")


def load_entry_map() -> dict[str, Entry]:
    """Every knowledge entry by id. A broken cross-reference must not silence follow-ups, so on a
    load error each file is loaded on its own and the bad ones are skipped (and logged)."""
    try:
        return {e.id: e for e in load_entries()}
    except EntryError as exc:
        log.warning("knowledge_entries_invalid", error=str(exc))
    entries: dict[str, Entry] = {}
    for path in sorted(ENTRIES_DIR.glob("*.toml")):
        try:
            entry = load_entry(path)
        except EntryError as exc:
            log.warning("knowledge_entry_skipped", error=str(exc))
            continue
        entries[entry.id] = entry
    return entries


def make_llm(settings: Settings) -> LlmPhraser | None:
    if not settings.llm_url:
        return None
    return LlmPhraser(settings.llm_url, settings.llm_model, Masker.default())


def _standalone_submitter(settings: Settings) -> Submitter:
    """For an app built without a submitter (Socket Mode only, tests): an `Admission` of its own."""
    return PipelineSubmitter(Admission.connect(settings, Masker.default()))


def create_slack_app(
    settings: Settings,
    *,
    client: AsyncWebClient,
    redis: redis.Redis,
    quota: Quota | None = None,
    resolver: JobResolver | None = None,
    submitter: Submitter | None = None,
    entries: Mapping[str, Entry] | None = None,
    llm: LlmPhraser | None = None,
    drainer: NodeDrainer | None = None,
    audit: AuditLog | None = None,
) -> AsyncApp:
    """Build the app. Without a signing secret, requests are not verified: Socket Mode only.
    `drainer` runs the Drain button (default: the one `DENPEX_DRAIN_ACTION` names, None when off)."""
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    app = AsyncApp(
        client=client,
        signing_secret=secret,
        request_verification_enabled=secret is not None,
        process_before_response=False,
        ignoring_self_events_enabled=True,
    )
    deps = SlackDeps(
        settings=settings,
        redis=redis,
        quota=quota or Quota(redis),
        resolver=resolver or DefaultResolver(settings),
        submitter=submitter or _standalone_submitter(settings),
        entries=dict(entries) if entries is not None else load_entry_map(),
        llm=llm if llm is not None else make_llm(settings),
    )
    register_commands(app, deps)
    register_followups(app, deps)
    register_details(app, deps)  # the thread's Details button
    # the thread's Drain button (audited; refused unless on and pressed by an admin)
    register_drain(app, deps, drainer or make_drainer(settings), audit or AuditLog(redis))
    register_fixnote(app, deps)  # the thread's "Fixed — how?" button and its modal
    return app


def install_slack_routes(web_app: web.Application, slack_app: AsyncApp, path: str = EVENTS_PATH) -> None:
    """Mount Bolt on an aiohttp application (events, slash commands and interactivity)."""

    async def slack_events(request: web.Request) -> web.Response:
        try:
            bolt_request = await to_bolt_request(request)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError):
            # Bolt reads the body's shape before it checks the signature; a body of the wrong shape
            # (found by fuzzing: `"authorizations": false`) would otherwise be a 500 with a traceback
            return web.json_response({"error": texts.MALFORMED_REQUEST}, status=400)
        if isinstance(bolt_request.body, dict) and not isinstance(bolt_request.body.get("event", {}), dict):
            return web.json_response({"error": texts.MALFORMED_REQUEST}, status=400)
        bolt_response = await slack_app.async_dispatch(bolt_request)
        return await to_aiohttp_response(bolt_response)

    web_app.router.add_post(path, slack_events)


def socket_mode_handler(
    slack_app: AsyncApp, app_token: str, client: AsyncWebClient
) -> AsyncSocketModeHandler:
    """Bolt's aiohttp Socket Mode handler; `await handler.connect_async()` / `close_async()`."""
    return AsyncSocketModeHandler(slack_app, app_token, web_client=client)


def make_client(settings: Settings) -> AsyncWebClient:
    """The app's Web API client: `SLACK_API_URL` honoured, 429s retried after Retry-After."""
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    return make_async_web_client(token, settings.slack_api_url)
