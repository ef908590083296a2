"""The web routes: `setup(app, settings, masker)` adds the knowledge pages, the paste-a-log page and API.

    GET  /kb/                    every entry, by category and by lifecycle phase, with a search box
    GET  /kb/<id>                one entry in full, with its related entries
    GET  /kb/<id>/vs/<other>     two lookalike entries side by side, and what tells them apart
    GET  /diagnose               paste a log or choose files; the result as the thread shows it
    POST /api/diagnose           the JSON of `denpex diagnose --format json` (bot.web.api)

Pages are Jinja2 templates with autoescape on, served with a Content-Security-Policy that allows no
inline script, so nothing from an entry or a request can run in the browser. An unknown id is a 404
that repeats nothing of the request.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import jinja2
import markupsafe
from aiohttp import web

from bot.web import kb as kbview
from bot.web.api import DiagnoseApi, Diagnoser
from bot.web.links import entry_url
from bot.web.ratelimit import RateLimiter
from denpex.core.settings import Settings
from denpex.core.texts import web as texts
from knowledge.engine import Engine
from knowledge.schema import load_entries
from knowledge.wording import PHASE_WORDS
from workers.masking import TextMasker

HERE = Path(__file__).parent
#: a file larger than this is cut by the browser to its head, matching lines and tail
TAIL_BYTES = 20 << 20
STATIC = {"web.css": "text/css", "kb.js": "text/javascript", "diagnose.js": "text/javascript"}
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class Pages:
    def __init__(self, settings: Settings, knowledge: kbview.KnowledgeBase, api: DiagnoseApi) -> None:
        self.settings, self.kb, self.api = settings, knowledge, api
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.globals.update(texts=texts, view=kbview, SITE=texts.SITE_NAME)
        self.env.filters["ticks"] = ticks
        self.static = {name: (HERE / "static" / name).read_bytes() for name in STATIC}

    def render(self, template: str, status: int = 200, **values: Any) -> web.Response:
        body = self.env.get_template(template).render(**values)
        return web.Response(text=body, status=status, content_type="text/html", headers=HEADERS)

    def not_found(self) -> web.Response:
        return self.render("not_found.html", status=404)

    async def missing(self, request: web.Request) -> web.Response:
        return self.not_found()

    async def index(self, request: web.Request) -> web.Response:
        return self.render("kb_index.html", kb=self.kb, count=len(self.kb.entries))

    async def entry(self, request: web.Request) -> web.Response:
        entry = self.kb.get(request.match_info["entry_id"])
        if entry is None:
            return self.not_found()
        public = entry_url(self.settings, entry.id)
        return self.render("kb_entry.html", e=entry, related=self.kb.related(entry), public=public)

    async def compare(self, request: web.Request) -> web.Response:
        left = self.kb.get(request.match_info["entry_id"])
        right = self.kb.get(request.match_info["other"])
        if left is None or right is None or left.id == right.id:
            return self.not_found()
        return self.render("kb_compare.html", c=self.kb.compare(left, right))

    async def diagnose(self, request: web.Request) -> web.Response:
        cap = self.settings.max_body_bytes
        return self.render(
            "diagnose.html",
            enabled=self.api.enabled,
            proxy=bool(self.settings.web_trusted_header),
            cap=cap,
            tail=min(TAIL_BYTES, cap),
            phases=json.dumps(PHASE_WORDS),
        )

    async def asset(self, name: str, request: web.Request) -> web.Response:
        headers = {**HEADERS, "Cache-Control": "public, max-age=3600"}
        return web.Response(body=self.static[name], content_type=STATIC[name], headers=headers)


def setup(
    app: web.Application,
    settings: Settings,
    masker: TextMasker,
    *,
    clock: Callable[[], float] = time.monotonic,
    engine: Callable[[], Engine] | None = None,
) -> None:
    """Add the web routes to `app`. The engine is loaded on the first diagnosis (`engine` builds it)."""
    factory = engine or partial(Engine.load, masker=masker)
    limiter = RateLimiter(settings.web_rate_per_minute, settings.web_rate_burst, clock)
    api = DiagnoseApi(settings, Diagnoser(factory, masker), limiter)
    pages = Pages(settings, kbview.KnowledgeBase(load_entries()), api)
    router = app.router
    router.add_get("/kb", _to_index)
    router.add_get("/kb/", pages.index)
    router.add_get("/kb/{entry_id}", pages.entry)
    router.add_get("/kb/{entry_id}/vs/{other}", pages.compare)
    router.add_get("/kb/{rest:.+}", pages.missing)  # any other path below /kb/: the same 404 page
    router.add_get("/diagnose", pages.diagnose)
    router.add_post("/api/diagnose", api.handle)
    for name in STATIC:
        router.add_get(f"/static/{name}", partial(pages.asset, name))


_TICKS = re.compile(r"`([^`\n]+)`")


def ticks(text: str) -> markupsafe.Markup:
    """An entry's prose with its `inline code` as <code>: escaped first, so only our tags are markup."""
    escaped = str(markupsafe.escape(text))
    return markupsafe.Markup(_TICKS.sub(r"<code>\1</code>", escaped))  # noqa: S704 - escaped above


async def _to_index(request: web.Request) -> web.Response:
    raise web.HTTPMovedPermanently("/kb/")
