"""The webhook signature scheme shared by every sender and the server.

HMAC-SHA256 over `v1:{timestamp}:{body}` with the shared secret, sent as `X-Denpex-Timestamp` and
`X-Denpex-Signature: v1=<hex>` (the Slack scheme). The Slurm hook scripts re-implement this in the
standard library; the Kubernetes watcher, the demo and the tests import it from here so there is one
definition to keep in step with the server's `verify`.
"""

from __future__ import annotations

import hashlib
import hmac
import time

TIMESTAMP_HEADER = "X-Denpex-Timestamp"
SIGNATURE_HEADER = "X-Denpex-Signature"
#: requests older or newer than this are rejected, so a captured request cannot be replayed later
REPLAY_WINDOW_SECONDS = 300


def signature(secret: str | bytes, body: bytes, timestamp: str) -> str:
    """The `v1=<hex>` value for `body` sent at `timestamp` (unix seconds, as a string)."""
    key = secret.encode() if isinstance(secret, str) else secret
    mac = hmac.new(key, b"v1:" + timestamp.encode("ascii") + b":" + body, hashlib.sha256)
    return "v1=" + mac.hexdigest()


def sign(secret: str | bytes, body: bytes, ts: float | int | None = None) -> dict[str, str]:
    """Headers that authenticate `body`: add them to the POST (with `Content-Type: application/json`)."""
    timestamp = str(int(time.time() if ts is None else ts))
    return {TIMESTAMP_HEADER: timestamp, SIGNATURE_HEADER: signature(secret, body, timestamp)}


def verify(
    secret: str | bytes,
    body: bytes,
    timestamp: str | None,
    sig: str | None,
    *,
    now: float | None = None,
    window: int = REPLAY_WINDOW_SECONDS,
) -> str | None:
    """Return None when the request is authentic, else a short reason (`missing`, `stale`, `mismatch`).

    The comparison is constant-time; the reason goes to metrics and logs, never the expected value.
    """
    if not timestamp or not sig:
        return "missing"
    try:
        ts = int(timestamp)
    except ValueError:
        return "malformed"
    current = time.time() if now is None else now
    if abs(current - ts) > window:
        return "stale"
    expected = signature(secret, body, timestamp)
    if not hmac.compare_digest(expected.encode(), sig.strip().encode("ascii", "replace")):
        return "mismatch"
    return None
