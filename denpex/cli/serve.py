"""`denpex serve [--host H] [--port P]`: the aiohttp app (webhooks, /healthz, /metrics, Slack routes)."""

from __future__ import annotations

import sys

import typer

from denpex.core.texts import service as texts

LISTEN_BACKLOG = 4096


def register(app: typer.Typer) -> None:
    @app.command("serve", help=texts.SERVE_HELP)
    def serve(
        host: str = typer.Option("0.0.0.0", "--host", help="Address to listen on."),
        port: int = typer.Option(8080, "--port", help="Port to listen on."),
    ) -> None:
        raise typer.Exit(run(host, port))


def run(host: str, port: int) -> int:
    from aiohttp import web

    from bot.server import build_deps, create_app
    from denpex.cli._runtime import configure_logging, slack_route_installers
    from denpex.core.settings import MissingSetting, Settings
    from knowledge.masking import Masker

    settings = Settings()
    configure_logging(settings.log_level)
    try:
        settings.require("DENPEX_WEBHOOK_SECRET")  # Redis (URL or Sentinel): build_deps
        deps = build_deps(settings, Masker.default())
    except MissingSetting as exc:
        print(texts.error("serve", str(exc)), file=sys.stderr)
        return 2
    deps.extra_routes.extend(slack_route_installers(settings, deps))
    # A large accept backlog: when every node's epilog reports at once, new connections (kubelet's
    # /healthz probe among them) must not be dropped and retried after a 1 s SYN timeout.
    web.run_app(
        create_app(settings, deps),
        host=host,
        port=port,
        access_log=None,
        print=lambda message: _announce(message, host, port, settings.log_level),
        shutdown_timeout=10,
        backlog=LISTEN_BACKLOG,
    )
    return 0


def _announce(message: str, host: str, port: int, log_level: str) -> None:
    """One line once the server listens: its URL (aiohttp's message names the bound socket) and logs."""
    import re

    found = re.search(r"https?://\S+", message)
    url = found.group(0).rstrip(",") if found else f"http://{host}:{port}"
    print(texts.serving(url, log_level), file=sys.stderr, flush=True)
