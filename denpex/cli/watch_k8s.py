"""`denpex watch-k8s`: report failed Jobs, PyTorchJobs and JobSets to the Denpex server."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from denpex.core.texts import k8s as texts
from denpex.core.texts import service as service_texts

if TYPE_CHECKING:
    from denpex.core.settings import Settings
    from integrations.kubernetes.reported import RedisReported


def register(app: typer.Typer) -> None:
    @app.command("watch-k8s", help=texts.WATCH_HELP)
    def watch_k8s(
        kubeconfig: str = typer.Option(
            None,
            "--kubeconfig",
            help="Kubeconfig file (default: KUBECONFIG, "
            "~/.kube/config, else the in-cluster service account).",
        ),
        watch_timeout: int = typer.Option(
            300,
            "--watch-timeout",
            help="Seconds per watch request before it is renewed from the last resourceVersion.",
        ),
        max_restarts: int = typer.Option(
            3,
            "--max-restarts",
            help="A crash-looping pod with this many restarts counts as failed (restarts exhausted).",
        ),
        health_port: int = typer.Option(
            0,
            "--health-port",
            help="Serve GET /healthz on this port "
            "(0: off); 200 while every watch is alive and the API answers.",
        ),
    ) -> None:
        raise typer.Exit(run(kubeconfig, watch_timeout, max_restarts, health_port))


def serve_health(port: int, healthy: Callable[[], bool]) -> None:
    """A tiny /healthz for the liveness probe, in a daemon thread (the watcher itself is synchronous)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            ok = self.path == "/healthz" and healthy()
            self.send_response(200 if ok else 503)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"ok\n" if ok else b"unhealthy\n")

        def log_message(self, *args: object) -> None:  # no access log
            pass

    server = ThreadingHTTPServer(("0.0.0.0", port), Handler)
    threading.Thread(target=server.serve_forever, name="healthz", daemon=True).start()


def open_reported(settings: Settings) -> RedisReported | None:
    """What was reported, in Redis (`REDIS_URL` or Sentinel) when configured and answering, else None
    (the watcher then remembers in memory). Redis is optional for the watcher: it only dedupes."""
    import redis
    import structlog

    from denpex.cli._runtime import redis_client
    from integrations.kubernetes.reported import RedisReported

    if not settings.redis_url and not settings.sentinels:
        return None
    client = redis_client(settings)
    try:
        client.ping()
    except redis.RedisError as exc:
        structlog.get_logger("denpex.k8s.reported").warning(
            "reported_redis_unavailable", error=type(exc).__name__, fallback="memory"
        )
        client.close()
        return None
    return RedisReported(client)


def run(kubeconfig: str | None, watch_timeout: int, max_restarts: int, health_port: int = 0) -> int:
    import signal

    from kubernetes.config import ConfigException

    from denpex.cli._runtime import configure_logging
    from denpex.core.settings import MissingSetting, Settings
    from integrations.kubernetes import load_api_client
    from integrations.kubernetes.reported import MemoryReported
    from integrations.kubernetes.sender import HookSender
    from integrations.kubernetes.watcher import Watcher, WatchOptions

    settings = Settings()
    configure_logging(settings.log_level)
    try:
        settings.require("DENPEX_URL", "DENPEX_WEBHOOK_SECRET")
    except MissingSetting as exc:
        print(service_texts.error("watch-k8s", str(exc)), file=sys.stderr)
        return 2
    try:
        api = load_api_client(kubeconfig)
    except ConfigException as exc:
        print(texts.no_cluster(str(exc)), file=sys.stderr)
        return 2
    assert settings.url and settings.webhook_secret  # checked by require()
    sender = HookSender(settings.url, settings.webhook_secret.get_secret_value())
    options = WatchOptions(
        cluster=settings.cluster,
        namespaces=tuple(settings.namespaces),
        watch_timeout=watch_timeout,
        max_restarts=max_restarts,
    )
    watcher = Watcher(api, sender.send, options, reported=open_reported(settings) or MemoryReported())
    signal.signal(signal.SIGTERM, lambda *_: watcher.stop_event.set())
    watcher.start()
    if health_port:
        serve_health(health_port, watcher.healthy)
    print(texts.watcher_started(settings.namespaces, watcher.kinds), file=sys.stderr, flush=True)
    try:
        while not watcher.stop_event.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    watcher.stop(timeout=5)
    return 0
