"""Texts of the webhook server's HTTP answers (error bodies, health), one named function each.

Senders are scripts and operators reading logs: each error says what was wrong and, where it helps,
which field; none echoes the request body back (it may hold secrets).
"""

from __future__ import annotations

UNAUTHORIZED = "invalid or missing signature (X-Denpex-Timestamp / X-Denpex-Signature: v2=<hex>)"
V1_DISABLED = (
    "v1 signatures are no longer accepted: upgrade the hook to sign v2 (route included), "
    "or set DENPEX_ACCEPT_V1=1 on the server while upgrading"
)
METRICS_BEARER = "invalid or missing bearer token (Authorization: Bearer <DENPEX_METRICS_TOKEN>)"
STALE = "request timestamp outside the five-minute replay window; check the sender's clock"
BEARER = "invalid or missing bearer token (Authorization: Bearer <DENPEX_ALERTMANAGER_TOKEN>)"
NOT_JSON = "body is not valid JSON"
NOT_UTF8 = "body is not valid UTF-8"
NOT_OBJECT = "body must be a JSON object"
UNSAFE_PATH = (
    "cluster and job_id must each be one plain path component inside DENPEX_LOG_ROOT, and not a link "
    "(Denpex does not follow links)"
)
QUEUE_DOWN = "the queue (Redis) is unavailable; retry later"


def too_large(limit: int) -> str:
    return f"body exceeds the {limit}-byte limit (DENPEX_MAX_BODY_BYTES)"


def wrong_content_type(got: str) -> str:
    return f"content type must be application/json, not {got or 'missing'!r}"


def not_configured(setting: str) -> str:
    return f"{setting} is not set on the server; this route is disabled"


def invalid_field(field: str, problem: str) -> str:
    return f"field {field!r}: {problem}"


def redis_down(problem: str) -> str:
    return f"redis unavailable: {problem}"


def body_timeout(seconds: float) -> str:
    return f"body not received within {seconds:g} s (DENPEX_BODY_TIMEOUT)"


def too_many_alerts(count: int, limit: int) -> str:
    return f"{count} alerts in one request; at most {limit} are accepted (DENPEX_MAX_ALERTS)"


# ---------------------------------------------------------------- Slack routes (signature before parsing)
SLACK_UNAUTHORIZED = (
    "invalid or missing Slack signature (X-Slack-Request-Timestamp / X-Slack-Signature: v0=<hex>)"
)
SLACK_STALE = "X-Slack-Request-Timestamp outside the five-minute replay window; check the clocks"


def slack_not_json(field: str) -> str:
    return f"{field} is not valid JSON"


def slack_not_object(field: str) -> str:
    return f"{field} must be a JSON object"


def slack_nested(field: str) -> str:
    return f"{field} is JSON nested too deeply to parse"


def wrong_charset(charset: str) -> str:
    return f"charset must be utf-8, not {charset!r}"
