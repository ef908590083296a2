"""Every Redis client of every process, built in one place: from `REDIS_URL` or from Redis Sentinel.

Why one builder: a team that outgrows one Redis runs Sentinel, and then each client must ask the
Sentinels where the master is, follow it across a failover, and retry while it moves. Doing that in
one module keeps the server, the workers (RQ takes the Sentinel-managed client as its connection),
the Kubernetes watcher and the CLI consistent: same timeouts, same retry on failover, same
credentials. Callers pass `ClientOptions` for their role (a webhook must fail fast with 503 and let
the sender retry; a worker may wait out a failover) and hand the clients down; nothing here is kept
between calls.

`wait_for_replica` / `await_replica` are the durability half: Sentinel replication is asynchronous,
so a write the master acknowledged can be lost if it dies before the replica has it. Before Denpex
promises something (a 202 to a webhook, a post-journal step before a Slack call) it runs
`WAIT 1 <timeout>`, when the client is Sentinel-managed and a replica is connected.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import redis
import redis.asyncio as aioredis
import redis.asyncio.sentinel as asentinel
import redis.sentinel as sentinel
import structlog
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.connection import parse_url
from redis.retry import Retry

from denpex.core.settings import Settings

log = structlog.get_logger("denpex.redis")

#: how long an acknowledgement may wait for the replica (milliseconds); a healthy one answers in ~1 ms
REPLICA_WAIT_MS = 1000
#: written right before WAIT: WAIT counts replicas that have this connection's last write, and every
#: write the master accepted earlier precedes it in the replication stream, whichever client made it
REPLICATION_MARK = "denpex:replication:mark"


@dataclass(frozen=True)
class RedisTarget:
    """Where Redis is: one server (`url`), or the master Sentinels name (`sentinels` non-empty).

    With Sentinel, `url` (optional) only contributes the database number and the data nodes'
    username and password; the address always comes from the Sentinels.
    """

    url: str | None = None
    sentinels: tuple[tuple[str, int], ...] = ()
    master: str = "mymaster"
    sentinel_password: str | None = field(default=None, repr=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> RedisTarget:
        """Raises `MissingSetting` when neither `REDIS_URL` nor `DENPEX_REDIS_SENTINELS` is set."""
        settings.require_redis()
        password = settings.redis_sentinel_password
        return cls(
            url=settings.redis_url or None,
            sentinels=tuple(settings.sentinels),
            master=settings.redis_sentinel_master,
            sentinel_password=password.get_secret_value() if password is not None else None,
        )

    @property
    def uses_sentinel(self) -> bool:
        return bool(self.sentinels)

    def describe(self) -> str:
        """For messages: names the setting or the master, never a password."""
        if not self.uses_sentinel:
            return "REDIS_URL"
        hosts = ",".join(f"{h}:{p}" for h, p in self.sentinels)
        return f"Sentinel master {self.master!r} ({hosts})"

    def data_node_kwargs(self) -> dict[str, Any]:
        """Database and credentials of the data nodes (Sentinel mode), taken from `url` when set."""
        if not self.url:
            return {}
        parse: Any = parse_url  # untyped before redis-py 8, typed since: `Any` checks under both
        parsed = parse(self.url)
        return {k: parsed[k] for k in ("db", "username", "password") if parsed.get(k) is not None}


@dataclass(frozen=True)
class ClientOptions:
    """Timeouts and retries for one role. `retries` cover connection errors and timeouts, i.e. a
    master that is moving; each retry also asks the Sentinels again where the master is."""

    socket_timeout: float = 5.0
    connect_timeout: float = 2.0
    retries: int = 3
    backoff_base: float = 0.05
    backoff_cap: float = 0.5
    max_connections: int | None = None
    #: with `max_connections`: wait this long for a free connection instead of failing at once
    pool_wait: float | None = None

    def retry(self, *, asyncio: bool = False) -> Retry | AsyncRetry:
        """redis-py needs its asyncio `Retry` for asyncio clients (the sync one would not await)."""
        backoff = ExponentialBackoff(cap=self.backoff_cap, base=self.backoff_base)
        return AsyncRetry(backoff, self.retries) if asyncio else Retry(backoff, self.retries)

    def connection_kwargs(self, *, asyncio: bool = False) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "socket_timeout": self.socket_timeout,
            "socket_connect_timeout": self.connect_timeout,
            "retry": self.retry(asyncio=asyncio),
        }
        if self.max_connections is not None:
            kwargs["max_connections"] = self.max_connections
        return kwargs


class _SentinelConnection(sentinel.SentinelManagedConnection):
    """redis-py's synchronous Sentinel connection, but dropped when a read fails, as a plain one is.

    Upstream it defaults to `disconnect_on_error=False`: a read interrupted by a signal (RQ's warm
    shutdown during its blocking dequeue, a job timeout) keeps the connection, and the late reply
    then answers the next command on it ("Wrong number of response items")."""

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("disconnect_on_error", True)
        return super().read_response(*args, **kwargs)


class _SentinelPool(sentinel.SentinelConnectionPool):
    """Closing the client also closes its connections to the Sentinels."""

    def close(self) -> None:
        super().close()
        self.sentinel_manager.close()


class _AsyncSentinelPool(asentinel.SentinelConnectionPool):
    async def aclose(self) -> None:
        await super().aclose()
        await self.sentinel_manager.aclose()


class _AsyncBlockingSentinelPool(asentinel.SentinelConnectionPool, aioredis.BlockingConnectionPool):
    """Bounded and blocking, like the URL mode's webhook pool: a burst waits for a connection."""

    async def aclose(self) -> None:
        await super().aclose()
        await self.sentinel_manager.aclose()


def _sentinel_kwargs(target: RedisTarget, options: ClientOptions, *, asyncio: bool) -> dict[str, Any]:
    """Connections to the Sentinels themselves: short, no retries (the next Sentinel is asked instead)."""
    kwargs: dict[str, Any] = {
        "socket_timeout": min(options.socket_timeout, 2.0),
        "socket_connect_timeout": min(options.connect_timeout, 2.0),
        "retry": AsyncRetry(NoBackoff(), 0) if asyncio else Retry(NoBackoff(), 0),
    }
    if target.sentinel_password:
        kwargs["password"] = target.sentinel_password
    return kwargs


def sync_client(target: RedisTarget, options: ClientOptions | None = None) -> redis.Redis:
    """A synchronous client (raw bytes, as RQ needs) for the server or the current master."""
    options = options or ClientOptions()
    kwargs = options.connection_kwargs()
    if not target.uses_sentinel:
        return redis.Redis.from_url(target.url or "", **kwargs)
    # Typed `Any` on purpose: redis-py < 8 leaves Sentinel untyped, 8 types it; either way it type-checks.
    sentinel_class: Any = sentinel.Sentinel
    manager = sentinel_class(
        list(target.sentinels), sentinel_kwargs=_sentinel_kwargs(target, options, asyncio=False)
    )
    client: redis.Redis = manager.master_for(
        target.master,
        connection_pool_class=_SentinelPool,
        connection_class=_SentinelConnection,
        **target.data_node_kwargs(),
        **kwargs,
    )
    return client


def async_client(target: RedisTarget, options: ClientOptions | None = None) -> aioredis.Redis:
    """The asyncio twin of `sync_client`, for the server's event loop."""
    options = options or ClientOptions()
    kwargs = options.connection_kwargs(asyncio=True)
    blocking = options.max_connections is not None and options.pool_wait is not None
    if blocking:
        kwargs["timeout"] = options.pool_wait
    if not target.uses_sentinel:
        if blocking:
            pool = aioredis.BlockingConnectionPool.from_url(target.url or "", **kwargs)
            return aioredis.Redis.from_pool(pool)
        return aioredis.Redis.from_url(target.url or "", **kwargs)
    sentinel_class: Any = asentinel.Sentinel  # as in `sync_client`: typed or not, by redis-py version
    manager = sentinel_class(
        list(target.sentinels), sentinel_kwargs=_sentinel_kwargs(target, options, asyncio=True)
    )
    pool_class = _AsyncBlockingSentinelPool if blocking else _AsyncSentinelPool
    client: aioredis.Redis = manager.master_for(
        target.master, connection_pool_class=pool_class, **target.data_node_kwargs(), **kwargs
    )
    return client


def is_sentinel_client(client: redis.Redis | aioredis.Redis) -> bool:
    """True for a client made by `sync_client`/`async_client` from Sentinels."""
    return isinstance(
        client.connection_pool, sentinel.SentinelConnectionPool | asentinel.SentinelConnectionPool
    )


def _connected_replicas(role: Any) -> int:
    """ROLE on a master: [b"master", offset, [[ip, port, offset], ...]]."""
    if isinstance(role, list | tuple) and len(role) >= 3 and isinstance(role[2], list | tuple):
        return len(role[2])
    return 0


def _report(acked: int, started: float, timeout_ms: int) -> int:
    if acked < 1:
        waited = round(time.monotonic() - started, 3)
        log.warning("redis_not_replicated", waited_seconds=waited, timeout_ms=timeout_ms)
    return acked


def wait_for_replica(client: redis.Redis, timeout_ms: int = REPLICA_WAIT_MS) -> int | None:
    """`WAIT 1 timeout_ms` after a mark, on a Sentinel-managed client with a replica connected.

    Returns the replicas that acknowledged, or None when nothing was awaited (no Sentinel, or no
    replica connected, e.g. right after a failover). A replica that does not answer in time is logged
    and the caller goes on: WAIT narrows the window in which an acknowledged write can be lost, it
    does not make Redis synchronous. Connection errors propagate (the caller answers 503).
    """
    if not is_sentinel_client(client) or _connected_replicas(client.role()) == 0:
        return None
    started = time.monotonic()
    with client.pipeline(transaction=False) as pipe:
        pipe.set(REPLICATION_MARK, b"1", ex=60)
        pipe.wait(1, timeout_ms)
        _, acked = pipe.execute()
    return _report(int(acked), started, timeout_ms)


async def await_replica(client: aioredis.Redis, timeout_ms: int = REPLICA_WAIT_MS) -> int | None:
    """The asyncio twin of `wait_for_replica`."""
    if not is_sentinel_client(client) or _connected_replicas(await client.role()) == 0:
        return None
    started = time.monotonic()
    async with client.pipeline(transaction=False) as pipe:
        pipe.set(REPLICATION_MARK, b"1", ex=60)
        pipe.wait(1, timeout_ms)
        _, acked = await pipe.execute()
    return _report(int(acked), started, timeout_ms)
