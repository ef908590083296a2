"""Texts of the web pages (`/kb/`, `/diagnose`) and of `POST /api/diagnose`'s error bodies.

The pages are read by people with a failed job in front of them; the API's errors by whoever wrote a
script against it. None of them echoes anything from the request (it may be a log full of secrets).
"""

from __future__ import annotations

SITE_NAME = "Denpex"
KB_TITLE = "Knowledge base"
KB_INTRO = (
    "Every failure mode Denpex recognises in the logs of a distributed training job: what it looks "
    "like, why it happens, how to confirm it, the fix and how to verify it."
)
SEARCH_LABEL = "Search the knowledge base"
SEARCH_PLACEHOLDER = "NCCL timeout, Xid 79, CUDA out of memory…"
NO_MATCH = "No entry matches."
BY_CATEGORY = "By category"
BY_PHASE = "By lifecycle phase"
ANY_PHASE = "any phase"
NOT_FOUND_TITLE = "No such entry"
NOT_FOUND = "There is no knowledge entry by that name. The list of every entry is at /kb/."
COMPARE = "compare side by side"
TELLS_APART = "What tells them apart"

DIAGNOSE_TITLE = "Diagnose a log"
DIAGNOSE_INTRO = (
    "Paste a log or choose files (per-rank logs, a combined log, a node's dmesg). The log is masked "
    "and diagnosed in memory; nothing is stored."
)
ACCESS_LABEL = "Access token (DENPEX_WEB_TOKEN; kept in this browser tab only)"
TEXT_LABEL = "Log text"
FILES_LABEL = "Log files"
SUBMIT = "Diagnose"
SHOW_JSON = "Show the JSON (as `denpex diagnose --format json`)"
NEEDS_JS = "This page reads your files in the browser: it needs JavaScript."


def tail_note(limit_bytes: int, cap_bytes: int) -> str:
    """What the page says about large files, which it cuts before sending."""
    return (
        f"Files are read in your browser. A file larger than {_mb(limit_bytes)} is cut to "
        f"{_mb(limit_bytes)}: its first 64 KB, the lines between that look like errors, and its end "
        f"(where a failure is written). All files together stay under the server's {_mb(cap_bytes)} "
        "limit per request, and the page says which files it cut and what it left out."
    )


def api_off(token_env: str, header_env: str) -> str:
    return (
        f"The paste-a-log API is off on this server: set {token_env} (or {header_env} behind a reverse "
        "proxy that logs people in) to turn it on."
    )


BEARER = "invalid or missing bearer token (Authorization: Bearer <DENPEX_WEB_TOKEN>)"
NO_LOG = "no log in the request: send text/plain, or multipart/form-data with files or a `text` field"
WRONG_TYPE = "send the log as text/plain or multipart/form-data"
BAD_MULTIPART = "the multipart body could not be read"
DIAGNOSE_FAILED = "the diagnosis failed on this input; try `denpex diagnose` on the files"


def rate_limited(retry_after: float) -> str:
    return f"too many diagnoses from this client; retry in {max(1, round(retry_after))} s"


def too_large(limit: int) -> str:
    return f"body exceeds the {limit}-byte limit (DENPEX_MAX_BODY_BYTES)"


def demo_urls(url: str, api_on: bool) -> str:
    api = "" if api_on else " (set DENPEX_WEB_TOKEN to turn the paste-a-log API on)"
    return f"Knowledge base: {url}/kb/ · paste a log: {url}/diagnose{api} (both stay up with --keep)"


def _mb(n: int) -> str:
    return f"{n / (1 << 20):.0f} MB" if n >= 1 << 20 else f"{n // 1024} KB"
