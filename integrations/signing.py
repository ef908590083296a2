"""The webhook signature scheme shared by every sender and the server.

`v2`: HMAC-SHA256 over `v2:{timestamp}:{path}:{body}` with the shared secret, sent as
`X-Denpex-Timestamp` and `X-Denpex-Signature: v2=<hex>`. The path (e.g. `/hooks/job`) is signed so a
body captured on one route cannot be replayed on another. `v1` (over `v1:{timestamp}:{body}`, no route)
is what older hooks send; the server accepts it only while `DENPEX_ACCEPT_V1=1`, so they can be upgraded.
The Slurm hook script re-implements this in the standard library; the Kubernetes watcher, the demo and
the tests import it from here so there is one definition to keep in step with the server's `verify`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time

TIMESTAMP_HEADER = "X-Denpex-Timestamp"
SIGNATURE_HEADER = "X-Denpex-Signature"
#: requests older or newer than this are rejected, so a captured request cannot be replayed later
REPLAY_WINDOW_SECONDS = 300
#: ASCII digits only: `int()` also takes `"١٢٣"`, `" 12"` and `"1_000"`, none of which a sender makes
_TIMESTAMP = re.compile(r"[0-9]{1,12}")


def _mac(secret: str | bytes, message: bytes) -> str:
    key = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def signature(secret: str | bytes, body: bytes, timestamp: str, path: str | None = None) -> str:
    """`v2=<hex>` for `body` POSTed to `path` at `timestamp` (unix seconds); `v1=<hex>` without a path."""
    if path is None:
        return "v1=" + _mac(secret, b"v1:" + timestamp.encode("ascii") + b":" + body)
    message = b"v2:" + timestamp.encode("ascii") + b":" + path.encode("utf-8") + b":" + body
    return "v2=" + _mac(secret, message)


def sign(secret: str | bytes, body: bytes, ts: float | int | None = None, *, path: str) -> dict[str, str]:
    """v2 headers that authenticate `body` POSTed to `path` (add `Content-Type: application/json`)."""
    timestamp = str(int(time.time() if ts is None else ts))
    return {TIMESTAMP_HEADER: timestamp, SIGNATURE_HEADER: signature(secret, body, timestamp, path)}


def verify(
    secret: str | bytes,
    body: bytes,
    timestamp: str | None,
    sig: str | None,
    *,
    path: str | None = None,
    accept_v1: bool = False,
    now: float | None = None,
    window: int = REPLAY_WINDOW_SECONDS,
) -> str | None:
    """Return None when the request is authentic, else a short reason.

    Reasons: `missing`, `malformed` (timestamp not ASCII digits), `stale`, `v1_disabled`, `mismatch`.
    A `v2=` signature is checked over `path`; a `v1=` one only when `accept_v1`. The comparison is
    constant-time; the reason goes to metrics and logs, never the expected value.
    """
    if not timestamp or not sig:
        return "missing"
    if not _TIMESTAMP.fullmatch(timestamp):
        return "malformed"
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > window:
        return "stale"
    given = sig.strip()
    if given.startswith("v1="):
        if not accept_v1:
            return "v1_disabled"
        expected = signature(secret, body, timestamp)
    elif path is None:
        return "mismatch"
    else:
        expected = signature(secret, body, timestamp, path)
    if not hmac.compare_digest(expected.encode(), given.encode("ascii", "replace")):
        return "mismatch"
    return None
