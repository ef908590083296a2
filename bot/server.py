"""The aiohttp application: scheduler webhooks, health and metrics (the Slack app mounts its routes).

`create_app(settings, deps)` is a factory; every client comes in through `ServerDeps`, so tests and
`denpex serve` build the same app with different Redis servers. Other features add their routes via
`deps.extra_routes`, a list of callables `install(app: web.Application) -> None` run after the core
routes, e.g. the Slack app: `lambda app: app.router.add_post("/slack/events", handler.handle)`.

Each handler is HTTP only: authenticate, parse the body into `JobEvent`s, hand them to the one
`workers.admission.Admission` (dedupe gate, masked job record, enqueue), answer. The Slack app's
`/denpex diagnose` uses the same `Admission` (`deps.admission`), handed to it by the composition root.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import redis
import redis.asyncio as aioredis
import structlog
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import SecretStr
from rq import Queue

from bot import payloads
from bot.metrics import Metrics, create_metrics
from bot.unavailable import redis_unavailable
from bot.web import routes as web_routes
from bot.webhooks import HookError, check_bearer, check_signature, decode_json, read_body
from denpex.core.models import JobRef, Scheduler
from denpex.core.settings import Settings
from denpex.core.texts import http as texts
from integrations.files import UnsafePath, resolve_job_dir
from workers.admission import DEDUPE_TTL, Admission, Admitted, JobEvent
from workers.masking import TextMasker
from workers.redisconn import ClientOptions, RedisTarget, async_client, sync_client

log = structlog.get_logger("denpex.server")

RouteInstaller = Callable[[web.Application], None]
#: webhooks processed at once per server; Redis connections they share
WEBHOOK_CONCURRENCY = 16
WEBHOOK_CONNECTIONS = 32


@dataclass
class ServerDeps:
    redis: redis.Redis  # sync client: RQ and the metrics collector
    aredis: aioredis.Redis  # asyncio client: admission (dedupe gate, records, node logs)
    masker: TextMasker
    queue: Queue
    admission: Admission
    metrics: Metrics
    extra_routes: list[RouteInstaller] = field(default_factory=list)
    #: a separate client (own pool) for /healthz, so a storm of webhooks never queues the probe
    health: aioredis.Redis | None = None
    alertnames: frozenset[str] = frozenset({"KubeJobFailed"})


DEPS = web.AppKey("denpex_deps", ServerDeps)
SETTINGS = web.AppKey("denpex_settings", Settings)


def build_deps(
    settings: Settings,
    masker: TextMasker,
    *,
    alertnames: frozenset[str] = frozenset({"KubeJobFailed"}),
    dedupe_ttl: int = DEDUPE_TTL,
    clock: Callable[[], float] = time.time,
) -> ServerDeps:
    """Clients for Redis (`REDIS_URL` or Sentinel; required), the queue, the metrics and the `Admission`."""
    target = RedisTarget.from_settings(settings)
    # one quick reconnect (a stale connection after a failover), no more: a webhook arriving while
    # no primary is known gets 503 + Retry-After within a fraction of a second, and its sender retries
    sync = sync_client(target, ClientOptions(socket_timeout=5, connect_timeout=2, retries=1))
    # bounded and blocking: a burst of webhooks waits for a connection instead of failing with 503
    webhooks = ClientOptions(
        socket_timeout=5, connect_timeout=2, retries=1, max_connections=WEBHOOK_CONNECTIONS, pool_wait=10
    )
    aredis = async_client(target, webhooks)
    health = async_client(
        target, ClientOptions(socket_timeout=1, connect_timeout=1, retries=0, max_connections=4)
    )
    queue = Queue(settings.queue_name, connection=sync)
    admission = Admission(
        aredis, queue, masker, result_ttl=settings.result_ttl_seconds, dedupe_ttl=dedupe_ttl, clock=clock
    )
    return ServerDeps(
        redis=sync,
        aredis=aredis,
        masker=masker,
        queue=queue,
        admission=admission,
        metrics=create_metrics(sync, settings.queue_name),
        health=health,
        alertnames=alertnames,
    )


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value is not None else None


class Hooks:
    """Route handlers; one instance per app, holding its settings and deps."""

    def __init__(self, settings: Settings, deps: ServerDeps) -> None:
        self.settings, self.deps = settings, deps
        self.metrics, self.admission = deps.metrics, deps.admission
        self.clock = deps.admission.clock
        # Webhooks run a few at a time: in a storm (every node's epilog at once) the rest wait here
        # cheaply, so the event loop stays free for /healthz and the Slack routes.
        self.gate = asyncio.Semaphore(WEBHOOK_CONCURRENCY)

    async def _authentic_json(self, request: web.Request, bearer: bool = False) -> Any:
        """Read (deadline, size cap) and authenticate the body; called before a slot is taken."""
        settings = self.settings
        body = await read_body(request, settings.max_body_bytes, settings.body_timeout_seconds)
        if bearer:
            check_bearer(request, _secret(settings.alertmanager_token))
        else:
            secret = _secret(settings.webhook_secret)
            check_signature(request, body, secret, self.clock(), accept_v1=settings.accept_v1)
        return decode_json(body)

    async def _queue_events(self, route: str, events: list[JobEvent]) -> web.Response:
        results: list[dict[str, str]] = []
        for event in events:
            outcome = await self.admission.accept(event)
            results.append({"job_key": event.dedupe_key, "status": outcome.value})
            if outcome is Admitted.queued:
                self.metrics.queued.labels(route).inc()
                log.info("job_queued", route=route, job_key=event.dedupe_key)
            else:  # duplicates come in storms (every node's epilog): count them, do not log each
                self.metrics.duplicates.labels(route).inc()
        if route != "alertmanager" and len(results) == 1:
            return web.json_response(
                results[0], status=202 if results[0]["status"] == Admitted.queued else 200
            )
        any_queued = any(r["status"] == Admitted.queued for r in results)
        return web.json_response({"jobs": results}, status=202 if any_queued else 200)

    async def slurm(self, data: Any) -> list[JobEvent]:
        return [payloads.slurm_event(payloads.parse(payloads.SlurmJobBody, data))]

    async def kubernetes(self, data: Any) -> list[JobEvent]:
        return [payloads.kubernetes_event(payloads.parse(payloads.KubernetesBody, data))]

    async def alertmanager(self, data: Any) -> list[JobEvent]:
        alerts = data.get("alerts")
        if isinstance(alerts, list) and len(alerts) > self.settings.max_alerts:
            message = texts.too_many_alerts(len(alerts), self.settings.max_alerts)
            raise HookError(400, "too_many_alerts", message, "alerts")
        body = payloads.parse(payloads.AlertmanagerBody, data)
        return payloads.alert_events(body, self.deps.alertnames, self.settings.cluster)

    async def files(self, data: Any) -> list[JobEvent]:
        body = payloads.parse(payloads.FilesJobBody, data)
        if self.settings.log_root is None:
            raise HookError(503, "not_configured", texts.not_configured("DENPEX_LOG_ROOT"))
        try:
            resolve_job_dir(self.settings.log_root, body.cluster, body.job_id)
        except UnsafePath:
            raise HookError(400, "path", texts.UNSAFE_PATH, "job_id") from None
        return [payloads.files_event(body)]

    async def slurm_node(self, data: Any) -> web.Response:
        body = payloads.parse(payloads.SlurmNodeBody, data)
        ref = JobRef(scheduler=Scheduler.slurm, cluster=body.cluster, job_id=body.job_id)
        await self.admission.node_log(
            ref, body.node, body.kernel_log, truncated=body.truncated, since=body.since
        )
        self.metrics.node_logs.inc()
        return web.json_response({"job_key": ref.key, "node": body.node, "status": "stored"}, status=202)

    def route(
        self, name: str, parse: Callable[[Any], Awaitable[Any]], *, bearer: bool = False, raw: bool = False
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handler(request: web.Request) -> web.Response:
            self.metrics.received.labels(name).inc()
            try:  # outside the gate: slow or unsigned senders must not hold a slot
                data = await self._authentic_json(request, bearer=bearer)
            except HookError as exc:
                self.metrics.rejected.labels(name, exc.reason).inc()
                return exc.response()
            async with self.gate:
                return await self._handle(name, parse, data, raw=raw)

        return handler

    async def _handle(
        self, name: str, parse: Callable[[Any], Awaitable[Any]], data: Any, *, raw: bool
    ) -> web.Response:
        try:
            result = await parse(data)
            return result if raw else await self._queue_events(name, result)
        except HookError as exc:
            self.metrics.rejected.labels(name, exc.reason).inc()
            return exc.response()
        except payloads.PayloadError as exc:
            self.metrics.rejected.labels(name, "payload").inc()
            message = texts.invalid_field(exc.field, exc.message)
            return HookError(400, "payload", message, exc.field).response()
        except redis.RedisError as exc:
            self.metrics.rejected.labels(name, "redis").inc()
            log.warning("redis_unavailable", route=name, error=type(exc).__name__)
            return web.json_response({"error": texts.QUEUE_DOWN}, status=503)


async def healthz(request: web.Request) -> web.Response:
    deps = request.app[DEPS]
    try:  # one PING on its own pool (1 s socket timeout, no retries); no task per probe
        async with asyncio.timeout(1.0):
            await (deps.health or deps.aredis).ping()
    except (redis.RedisError, OSError, TimeoutError) as exc:
        problem = type(exc).__name__ if not str(exc) else str(exc)[:200]
        return web.json_response({"status": "unavailable", "problem": texts.redis_down(problem)}, status=503)
    return web.json_response({"status": "ok"})


async def metrics_view(request: web.Request) -> web.Response:
    deps, token = request.app[DEPS], _secret(request.app[SETTINGS].metrics_token)
    if token:
        try:
            check_bearer(request, token)
        except HookError:
            error = HookError(401, "bearer", texts.METRICS_BEARER)
            return error.response()
    body = await asyncio.to_thread(generate_latest, deps.metrics.registry)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


def create_app(settings: Settings, deps: ServerDeps) -> web.Application:
    """The server application. Closing it closes the deps' Redis clients."""
    # The header deadline: aiohttp (>= 3.14.4) arms its keep-alive timer when a connection opens and
    # again after each response, and closes the connection if no complete request line and headers
    # arrived by then; so a slowloris sender is cut off after DENPEX_HEADER_TIMEOUT, before any handler
    # (or webhook slot) is involved. Set through handler_args so run_app, AppRunner and TestServer agree.
    header_deadline = {"keepalive_timeout": settings.header_timeout_seconds}
    app = web.Application(client_max_size=settings.max_body_bytes, handler_args=header_deadline)
    app[DEPS], app[SETTINGS] = deps, settings
    app.middlewares.append(redis_unavailable)  # no primary (failover): 503 + Retry-After, never 500
    hooks = Hooks(settings, deps)
    app.router.add_post("/hooks/slurm", hooks.route("slurm", hooks.slurm))
    app.router.add_post("/hooks/slurm/node", hooks.route("slurm_node", hooks.slurm_node, raw=True))
    app.router.add_post("/hooks/kubernetes", hooks.route("kubernetes", hooks.kubernetes))
    app.router.add_post("/hooks/alertmanager", hooks.route("alertmanager", hooks.alertmanager, bearer=True))
    app.router.add_post("/hooks/job", hooks.route("job", hooks.files))
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_view)
    web_routes.setup(app, settings, deps.masker)  # /kb/, /diagnose, POST /api/diagnose (bot.web)
    for install in deps.extra_routes:
        install(app)

    async def close_clients(app: web.Application) -> None:
        await deps.aredis.aclose(close_connection_pool=True)
        if deps.health is not None:
            await deps.health.aclose()
        deps.redis.close()

    app.on_cleanup.append(close_clients)
    return app
