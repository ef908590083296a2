"""Slack Web API clients, configured the one way Denpex needs them.

- `base_url` comes from `SLACK_API_URL` (tests and proxies point it elsewhere); slack_sdk joins method
  names onto it, so it must end with `/` — we add one when it is missing.
- slack_sdk's default retry handlers retry only connection resets; they do NOT retry HTTP 429. Both
  factories add the rate-limit handler, which sleeps for `Retry-After` and tries again.
- 5xx answers and timeouts are deliberately not retried here: a 500 may come after Slack already
  posted the message, so the pipeline decides (it looks the message up by its metadata first).
"""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

DEFAULT_API_URL = "https://slack.com/api/"


def api_url(base_url: str | None) -> str:
    """`base_url` with the trailing slash slack_sdk needs (`http://127.0.0.1:9/api` → `.../api/`)."""
    url = (base_url or DEFAULT_API_URL).strip()
    return url if url.endswith("/") else url + "/"


def make_web_client(
    token: str | None, base_url: str | None = None, *, timeout: int = 15, rate_limit_retries: int = 3
) -> WebClient:
    """A synchronous client for the RQ worker (jobs are synchronous code)."""
    return WebClient(
        token=token,
        base_url=api_url(base_url),
        timeout=timeout,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=1),
            RateLimitErrorRetryHandler(max_retry_count=rate_limit_retries),
        ],
    )


def make_async_web_client(
    token: str | None, base_url: str | None = None, *, timeout: int = 15, rate_limit_retries: int = 3
) -> AsyncWebClient:
    """An asyncio client for the Bolt app and the aiohttp server."""
    return AsyncWebClient(
        token=token,
        base_url=api_url(base_url),
        timeout=timeout,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=1),
            AsyncRateLimitErrorRetryHandler(max_retry_count=rate_limit_retries),
        ],
    )
