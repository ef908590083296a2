"""While Redis has no reachable primary (a Sentinel failover, a restart), answer 503 with `Retry-After`.

A webhook the server cannot store must never look like a crash (500) or like success: a 503 tells
the sender nothing was promised, and `Retry-After` tells it when to try again. The Slurm hooks and
the Kubernetes watcher retry 5xx answers with backoff, and the retry is admitted once a primary is
known again (`workers.admission` reopens the dedupe gate of an accept that failed half-way), so the
event is not lost. A Sentinel failover takes a few seconds: `RETRY_AFTER_SECONDS` is about that.

One middleware, so every route gets it: Redis errors a handler lets escape become 503, and every
503 that does not say when to come back gets `Retry-After`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import redis
import structlog
from aiohttp import web

from denpex.core.texts import http as texts

log = structlog.get_logger("denpex.server")

#: seconds a sender should wait before retrying a 503 (a Sentinel failover takes a few)
RETRY_AFTER_SECONDS = 2

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def service_unavailable() -> web.Response:
    return web.json_response(
        {"error": texts.QUEUE_DOWN}, status=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)}
    )


@web.middleware
async def redis_unavailable(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        response = await handler(request)
    except redis.RedisError as exc:  # MasterNotFoundError, ConnectionError, TimeoutError, ReadOnlyError
        log.warning("redis_unavailable", path=request.path, error=type(exc).__name__)
        return service_unavailable()
    if response.status == 503 and "Retry-After" not in response.headers and not response.prepared:
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
