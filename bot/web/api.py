"""`POST /api/diagnose`: a pasted log or a few files in, the JSON of `denpex diagnose --format json` out.

Nothing is stored: the body is read into memory (under the webhooks' size cap and deadline), handed
to the engine as in-memory `LogSource`s, diagnosed in a worker thread (the event loop keeps serving
/healthz and the webhooks), masked again as a whole, answered, and dropped. No Redis, no disk.
Access is a bearer token (`DENPEX_WEB_TOKEN`) or a header a trusted reverse proxy sets after its own
login (`DENPEX_WEB_TRUSTED_HEADER`); with neither configured the API is off. Each client (the proxy's
user, else the peer address) has its own token bucket.
"""

from __future__ import annotations

import asyncio
import hmac
import threading
from collections.abc import Callable
from pathlib import PurePosixPath, PureWindowsPath

from aiohttp import BodyPartReader, web

from bot.web.ratelimit import RateLimiter
from bot.webhooks import HookError, read_raw_body
from denpex.core.models import Diagnosis, LogSource
from denpex.core.settings import Settings
from denpex.core.texts import http as http_texts
from denpex.core.texts import web as texts
from knowledge.engine import Engine
from workers.masking import TextMasker, mask_model

#: the name a pasted text (text/plain, or the form's `text` field) is diagnosed under
PASTED_NAME = "pasted.log"
CHUNK = 1 << 16


class Diagnoser:
    """One engine for the server, built on first use; the engine is not thread-safe, hence the lock."""

    def __init__(self, factory: Callable[[], Engine], masker: TextMasker) -> None:
        self._factory, self._masker = factory, masker
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    def diagnose(self, sources: list[LogSource]) -> Diagnosis:
        with self._lock:
            if self._engine is None:
                self._engine = self._factory()
            diag = self._engine.diagnose(sources)
        return mask_model(self._masker, diag)  # the second line of defence, as for Redis and Slack


class DiagnoseApi:
    def __init__(self, settings: Settings, diagnoser: Diagnoser, limiter: RateLimiter) -> None:
        self.settings, self.diagnoser, self.limiter = settings, diagnoser, limiter
        # one diagnosis at a time (one engine); the others wait here, not in the loop's thread pool
        self.gate = asyncio.Semaphore(1)

    @property
    def enabled(self) -> bool:
        return bool(self.settings.web_token or self.settings.web_trusted_header)

    async def handle(self, request: web.Request) -> web.Response:
        try:
            client = self.client(request)
            wait = self.limiter.take(client)
            if wait > 0:
                resp = HookError(429, "rate", texts.rate_limited(wait)).response()
                resp.headers["Retry-After"] = str(max(1, round(wait)))
                return resp
            sources = await read_sources(
                request, self.settings.max_body_bytes, self.settings.body_timeout_seconds
            )
        except HookError as exc:
            return exc.response()
        try:
            async with self.gate:
                diag = await asyncio.to_thread(self.diagnoser.diagnose, sources)
        except (ValueError, OSError):
            return HookError(422, "diagnose", texts.DIAGNOSE_FAILED).response()
        return web.json_response(diag.model_dump(mode="json"), headers={"Cache-Control": "no-store"})

    def client(self, request: web.Request) -> str:
        """The client's rate-limit key, once it is allowed in; `HookError` (403 off, 401) otherwise."""
        settings = self.settings
        if not self.enabled:
            raise HookError(403, "off", texts.api_off("DENPEX_WEB_TOKEN", "DENPEX_WEB_TRUSTED_HEADER"))
        if settings.web_trusted_header:
            user = request.headers.get(settings.web_trusted_header, "").strip()
            if user:
                return f"user:{user}"
        token = settings.web_token.get_secret_value() if settings.web_token else ""
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if not token or scheme.lower() != "bearer" or not hmac.compare_digest(given.strip(), token):
            raise HookError(401, "bearer", texts.BEARER)
        return f"addr:{request.remote or '?'}"


async def read_sources(request: web.Request, cap: int, deadline: float) -> list[LogSource]:
    """The log(s) in the body, in memory: text/plain is one pasted log, multipart one source a file."""
    if request.content_length is not None and request.content_length > cap:
        raise HookError(413, "too_large", texts.too_large(cap))
    if request.content_type == "text/plain":
        body = await read_raw_body(request, cap, deadline)
        sources = [LogSource(name=PASTED_NAME, data=body)] if body.strip() else []
    elif request.content_type == "multipart/form-data":
        try:
            sources = await asyncio.wait_for(_multipart(request, cap), deadline)
        except TimeoutError:
            raise HookError(408, "body_timeout", http_texts.body_timeout(deadline)) from None
    else:
        raise HookError(415, "content_type", texts.WRONG_TYPE)
    if not sources:
        raise HookError(400, "empty", texts.NO_LOG, "body")
    return sources


async def _multipart(request: web.Request, cap: int) -> list[LogSource]:
    try:
        reader = await request.multipart()
    except (ValueError, AssertionError):
        raise HookError(400, "multipart", texts.BAD_MULTIPART) from None
    sources: list[LogSource] = []
    names: set[str] = set()
    total = 0
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader):
            raise HookError(400, "multipart", texts.BAD_MULTIPART)
        chunks = []
        while chunk := await part.read_chunk(CHUNK):
            total += len(chunk)
            if total > cap:
                raise HookError(413, "too_large", texts.too_large(cap))
            chunks.append(chunk)
        data = b"".join(chunks)
        if part.filename:
            name = _unique(_base_name(part.filename), names)
        elif part.name == "text":
            name = _unique(PASTED_NAME, names)
        else:
            continue  # another form field: not a log
        if data.strip():
            names.add(name)
            sources.append(LogSource(name=name, data=data))
    return sources


def _base_name(filename: str) -> str:
    """The file's own name (a browser may send a path); rank, node and kind are inferred from it."""
    base = PureWindowsPath(PurePosixPath(filename).name).name.strip()
    return base[:200] or "upload.log"


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    n = 2
    while f"{n}-{name}" in taken:
        n += 1
    return f"{n}-{name}"
