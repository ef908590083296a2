"""Which failures the watcher already reported, so a re-list, a 410 or a restart never re-sends one.

`claim(key)` is atomic: it returns True once per key until `release(key)` (the send failed for good
enough to retry later) — an in-flight claim is held for `inflight_ttl` so a watcher that dies mid-send
lets the next one retry. `confirm(key)` keeps the key for `ttl` (a job is not reported again for 30
days). Redis is used when available (shared by replicas and surviving restarts); otherwise a
bounded in-memory LRU, which forgets the oldest keys first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Protocol

import structlog

log = structlog.get_logger("denpex.k8s.reported")

PREFIX = "denpex:k8s:reported:"


class Reported(Protocol):
    def claim(self, key: str) -> bool: ...
    def confirm(self, key: str) -> None: ...
    def release(self, key: str) -> None: ...


class MemoryReported:
    def __init__(self, max_keys: int = 100_000) -> None:
        self.max_keys = max_keys
        self._keys: OrderedDict[str, bool] = OrderedDict()  # key -> confirmed
        self._lock = threading.Lock()

    def claim(self, key: str) -> bool:
        with self._lock:
            if key in self._keys:
                self._keys.move_to_end(key)
                return False
            self._keys[key] = False
            while len(self._keys) > self.max_keys:
                self._keys.popitem(last=False)
            return True

    def confirm(self, key: str) -> None:
        with self._lock:
            self._keys[key] = True

    def seen(self, key: str) -> bool:
        with self._lock:
            return key in self._keys

    def release(self, key: str) -> None:
        with self._lock:
            self._keys.pop(key, None)

    def __len__(self) -> int:
        return len(self._keys)


class RedisReported:
    """Keys `denpex:k8s:reported:<key>` (this module owns them). Falls back to memory while Redis is down."""

    def __init__(
        self,
        redis_client: Any,
        *,
        ttl: int = 30 * 86400,
        inflight_ttl: int = 600,
        fallback: MemoryReported | None = None,
    ) -> None:
        self.redis = redis_client
        self.ttl = ttl
        self.inflight_ttl = inflight_ttl
        self.fallback = fallback or MemoryReported()

    def claim(self, key: str) -> bool:
        if self.fallback.seen(key):  # reported while Redis was down, or by this process already
            return False
        try:
            return bool(self.redis.set(PREFIX + key, "inflight", nx=True, ex=self.inflight_ttl))
        except Exception as exc:  # any redis error: degrade, do not stop watching
            log.warning("reported_redis_unavailable", error=type(exc).__name__, fallback="memory")
            return self.fallback.claim(key)

    def confirm(self, key: str) -> None:
        self.fallback.claim(key)
        self.fallback.confirm(key)
        try:
            self.redis.set(PREFIX + key, "sent", ex=self.ttl)
        except Exception as exc:
            log.warning("reported_redis_unavailable", error=type(exc).__name__)

    def release(self, key: str) -> None:
        self.fallback.release(key)
        try:
            self.redis.delete(PREFIX + key)
        except Exception as exc:
            log.warning("reported_redis_unavailable", error=type(exc).__name__)


def open_reported(redis_url: str | None) -> Reported:
    """Redis when `redis_url` is set and answers PING, else memory."""
    if redis_url:
        try:
            import redis

            client = redis.Redis.from_url(redis_url, socket_timeout=5, socket_connect_timeout=5)
            client.ping()
            return RedisReported(client)
        except Exception as exc:
            log.warning("reported_redis_unavailable", error=type(exc).__name__, fallback="memory")
    return MemoryReported()
