"""The aiohttp application: scheduler webhooks, health and metrics (the Slack app mounts its routes).

`create_app(settings, deps)` is a factory; every client comes in through `ServerDeps`, so tests and
`denpex serve` build the same app with different Redis servers. Other features add their routes via
`deps.extra_routes`, a list of callables `install(app: web.Application) -> None` run after the core
routes, e.g. the Slack app: `lambda app: app.router.add_post("/slack/events", handler.handle)`.

Exactly-once starts here: a failure report wins the dedupe gate (`SET NX` on `denpex:dedupe:<key>`)
or is answered `duplicate`; only the winner records the (masked) job and enqueues it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import redis
import redis.asyncio as aioredis
import structlog
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from rq import Queue

from bot import payloads
from bot.metrics import Metrics, create_metrics
from bot.webhooks import HookError, check_bearer, check_signature, decode_json, read_body
from denpex.models import JobRef, Scheduler
from denpex.settings import Settings
from denpex.texts import http as texts
from integrations.files import UnsafePath, resolve_job_dir
from workers import store
from workers.masking import TextMasker, mask_model
from workers.queueing import enqueue, rq_job_id

log = structlog.get_logger("denpex.server")

RouteInstaller = Callable[[web.Application], None]
#: while the first report of a job is being recorded, later reports count as duplicates this long
PENDING_TTL = 120
#: a `pending:<time>` gate older than this is left over from an accept that failed half-way (Redis
#: went down, the server died): the sender's retry takes it over instead of being told "duplicate"
PENDING_STALE = 3.0
_TAKEOVER = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3])) return 1 end
return 0
"""
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"
#: webhooks processed at once per server; Redis connections they share
WEBHOOK_CONCURRENCY = 16
WEBHOOK_CONNECTIONS = 32
#: masking above this size runs in a thread so the event loop (and /healthz) stays responsive
INLINE_MASK_BYTES = 64 << 10


@dataclass
class ServerDeps:
    redis: redis.Redis  # sync client: RQ and the metrics collector
    aredis: aioredis.Redis  # asyncio client: dedupe gate, node logs, health
    masker: TextMasker
    queue: Queue | None = None
    metrics: Metrics | None = None
    extra_routes: list[RouteInstaller] = field(default_factory=list)
    #: a separate client (own pool) for /healthz, so a storm of webhooks never queues the probe
    health: aioredis.Redis | None = None
    alertnames: frozenset[str] = frozenset({"KubeJobFailed"})
    dedupe_ttl: int = 6 * 3600
    clock: Callable[[], float] = time.time


DEPS = web.AppKey("denpex_deps", ServerDeps)
SETTINGS = web.AppKey("denpex_settings", Settings)


def build_deps(settings: Settings, masker: TextMasker, **options: Any) -> ServerDeps:
    """Clients for `settings.redis_url` (required)."""
    settings.require("REDIS_URL")
    assert settings.redis_url
    url = settings.redis_url
    sync = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
    # bounded and blocking: a burst of webhooks waits for a connection instead of failing with 503
    pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=WEBHOOK_CONNECTIONS, timeout=10,
                                                    socket_timeout=5, socket_connect_timeout=2)
    health = aioredis.Redis.from_url(url, max_connections=4, socket_timeout=1, socket_connect_timeout=1)
    return ServerDeps(redis=sync, aredis=aioredis.Redis(connection_pool=pool), health=health, masker=masker,
                      **options)


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None


class Hooks:
    """Route handlers; one instance per app, holding its settings and deps."""

    def __init__(self, settings: Settings, deps: ServerDeps) -> None:
        self.settings, self.deps = settings, deps
        assert deps.metrics is not None and deps.queue is not None
        self.metrics, self.queue = deps.metrics, deps.queue
        # Webhooks run a few at a time: in a storm (every node's epilog at once) the rest wait here
        # cheaply, so the event loop stays free for /healthz and the Slack routes.
        self.gate = asyncio.Semaphore(WEBHOOK_CONCURRENCY)

    async def _mask(self, text: str) -> str:
        if len(text) <= INLINE_MASK_BYTES:
            return self.deps.masker.mask(text)
        return await asyncio.to_thread(self.deps.masker.mask, text)

    async def _authentic_json(self, request: web.Request, bearer: bool = False) -> Any:
        body = await read_body(request, self.settings.max_body_bytes)
        if bearer:
            check_bearer(request, _secret(self.settings.alertmanager_token))
        else:
            check_signature(request, body, _secret(self.settings.webhook_secret), self.deps.clock())
        return decode_json(body)

    async def _gate(self, work: str) -> str | None:
        """Win the dedupe gate: returns our `pending:<time>` token, or None for a duplicate.

        A report that finds another one being recorded waits for it (milliseconds); one that finds
        a stale pending token (its recorder failed and could not clean up) takes the gate over.
        """
        r, key = self.deps.aredis, store.dedupe_key(work)
        give_up = time.monotonic() + PENDING_STALE + 1.0
        while True:
            token = f"pending:{self.deps.clock():.6f}"
            if await r.set(key, token, nx=True, ex=PENDING_TTL):
                return token
            raw = await r.get(key)
            value = raw.decode() if isinstance(raw, bytes) else raw
            if value is None:
                continue
            if not value.startswith("pending") or time.monotonic() > give_up:
                return None
            stamp = value.partition(":")[2]
            stale = bool(stamp) and self.deps.clock() - float(stamp) >= PENDING_STALE
            if stale and await r.eval(_TAKEOVER, 1, key, value, token, PENDING_TTL):
                log.warning("dedupe_gate_taken_over", job_key=work)
                return token
            await asyncio.sleep(0.02)

    async def accept(self, event: payloads.JobEvent) -> str:
        """Win the dedupe gate, record the masked job, enqueue. Returns `queued` or `duplicate`."""
        work, r = event.dedupe_key, self.deps.aredis
        token = await self._gate(work)
        if token is None:
            return "duplicate"
        rq_id = rq_job_id(work)
        try:
            job = mask_model(self.deps.masker, event.job)
            facts = [await self._mask(f) for f in event.facts]
            previous = await r.hget(store.job_key(work), "received_at")
            now = self.deps.clock()
            # A new occurrence of this key (its last report is older than the dedupe window) starts
            # from a clean slate. A gate taken over from a stalled recorder is the same occurrence:
            # its diagnosis and post state must survive, or the job could be posted twice.
            if previous is None or now - float(previous) >= self.deps.dedupe_ttl:
                async with r.pipeline(transaction=True) as pipe:
                    pipe.delete(store.diagnosis_key(work), store.post_key(work), store.job_key(work))
                    pipe.hset(store.job_key(work), mapping=store.job_mapping(job, facts, now, rq_id,
                                                                                    channel=event.channel))
                    pipe.expire(store.job_key(work), self.settings.result_ttl_seconds)
                    await pipe.execute()
            await asyncio.to_thread(enqueue, self.queue, work, result_ttl=self.settings.result_ttl_seconds)
        except Exception:
            # not queued: reopen the gate so the sender's retry is not taken for a duplicate
            with contextlib.suppress(redis.RedisError):
                await r.eval(_RELEASE, 1, store.dedupe_key(work), token)
            raise
        # queued: from here on a failure must not reopen the gate (a retry would re-queue the job and
        # wipe its post state); at worst the pending token goes stale and a much later report retakes it
        with contextlib.suppress(redis.RedisError):
            await r.set(store.dedupe_key(work), rq_id, xx=True, ex=self.deps.dedupe_ttl)
        return "queued"

    async def _queue_events(self, route: str, events: list[payloads.JobEvent]) -> web.Response:
        results = []
        for event in events:
            outcome = await self.accept(event)
            results.append({"job_key": event.dedupe_key, "status": outcome})
            if outcome == "queued":
                self.metrics.queued.labels(route).inc()
                log.info("job_queued", route=route, job_key=event.dedupe_key)
            else:  # duplicates come in storms (every node's epilog): count them, do not log each
                self.metrics.duplicates.labels(route).inc()
        if route != "alertmanager" and len(results) == 1:
            return web.json_response(results[0], status=202 if results[0]["status"] == "queued" else 200)
        any_queued = any(r["status"] == "queued" for r in results)
        return web.json_response({"jobs": results}, status=202 if any_queued else 200)

    async def slurm(self, data: Any) -> list[payloads.JobEvent]:
        return [payloads.slurm_event(payloads.parse(payloads.SlurmJobBody, data))]

    async def kubernetes(self, data: Any) -> list[payloads.JobEvent]:
        return [payloads.kubernetes_event(payloads.parse(payloads.KubernetesBody, data))]

    async def alertmanager(self, data: Any) -> list[payloads.JobEvent]:
        body = payloads.parse(payloads.AlertmanagerBody, data)
        return payloads.alert_events(body, self.deps.alertnames, self.settings.cluster)

    async def files(self, data: Any) -> list[payloads.JobEvent]:
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
        entry = {"log": await self._mask(body.kernel_log), "truncated": body.truncated,
                 "since": body.since.isoformat() if body.since else None, "received_at": self.deps.clock()}
        key = store.nodelog_key(ref.key)
        async with self.deps.aredis.pipeline(transaction=True) as pipe:
            pipe.hset(key, body.node, json.dumps(entry))
            pipe.expire(key, store.NODE_LOG_TTL)
            await pipe.execute()
        self.metrics.node_logs.inc()
        return web.json_response({"job_key": ref.key, "node": body.node, "status": "stored"}, status=202)

    def route(self, name: str, parse: Callable[[Any], Awaitable[Any]], *, bearer: bool = False,
              raw: bool = False) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handler(request: web.Request) -> web.Response:
            self.metrics.received.labels(name).inc()
            async with self.gate:
                return await self._handle(name, parse, request, bearer=bearer, raw=raw)

        return handler

    async def _handle(self, name: str, parse: Callable[[Any], Awaitable[Any]], request: web.Request, *,
                      bearer: bool, raw: bool) -> web.Response:
        try:
            data = await self._authentic_json(request, bearer=bearer)
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
    try:
        await asyncio.wait_for((deps.health or deps.aredis).ping(), timeout=1.0)
    except (redis.RedisError, OSError, TimeoutError) as exc:
        problem = type(exc).__name__ if not str(exc) else str(exc)[:200]
        return web.json_response({"status": "unavailable", "problem": texts.redis_down(problem)}, status=503)
    return web.json_response({"status": "ok"})


async def metrics_view(request: web.Request) -> web.Response:
    deps = request.app[DEPS]
    assert deps.metrics is not None
    body = await asyncio.to_thread(generate_latest, deps.metrics.registry)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


def create_app(settings: Settings, deps: ServerDeps) -> web.Application:
    """The server application. Closing it closes the deps' Redis clients."""
    if deps.queue is None:
        deps.queue = Queue(settings.queue_name, connection=deps.redis)
    if deps.metrics is None:
        deps.metrics = create_metrics(deps.redis, settings.queue_name)
    app = web.Application(client_max_size=settings.max_body_bytes)
    app[DEPS], app[SETTINGS] = deps, settings
    hooks = Hooks(settings, deps)
    app.router.add_post("/hooks/slurm", hooks.route("slurm", hooks.slurm))
    app.router.add_post("/hooks/slurm/node", hooks.route("slurm_node", hooks.slurm_node, raw=True))
    app.router.add_post("/hooks/kubernetes", hooks.route("kubernetes", hooks.kubernetes))
    app.router.add_post("/hooks/alertmanager", hooks.route("alertmanager", hooks.alertmanager, bearer=True))
    app.router.add_post("/hooks/job", hooks.route("job", hooks.files))
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_view)
    for install in deps.extra_routes:
        install(app)

    async def close_clients(app: web.Application) -> None:
        await deps.aredis.aclose(close_connection_pool=True)
        if deps.health is not None:
            await deps.health.aclose()
        deps.redis.close()

    app.on_cleanup.append(close_clients)
    return app
