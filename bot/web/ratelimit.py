"""Per-client token buckets for `POST /api/diagnose`: a diagnosis costs CPU, a script must not hog it.

In process, not in Redis: the paste-a-log API stores nothing anywhere, and one server's fairness is
what the limit protects. The clock is injected, so tests never sleep.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

#: clients remembered at most; the least recently seen is forgotten first (a full bucket, by then)
MAX_CLIENTS = 10_000


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """`take(key)` is 0.0 when `key` may go ahead now, else the seconds until it may."""

    def __init__(self, per_minute: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = per_minute / 60.0, float(burst), clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def take(self, key: str) -> float:
        now = self.clock()
        bucket = self._buckets.pop(key, None) or _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        self._buckets[key] = bucket  # most recently seen last
        while len(self._buckets) > MAX_CLIENTS:
            self._buckets.popitem(last=False)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate
