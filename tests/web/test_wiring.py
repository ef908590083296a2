"""The web routes as `denpex serve` mounts them (create_app, real Redis), and the Slack thread's link."""

from __future__ import annotations

import json

from aiohttp.test_utils import TestClient, TestServer

from bot.server import build_deps, create_app
from bot.slack.render import BlockKitRenderer
from denpex.core.models import JobRef, LogSource, Scheduler
from denpex.core.settings import Settings
from denpex.demo import LOGS
from knowledge.engine import Engine
from knowledge.masking import TextMasker


async def test_create_app_serves_the_pages(redis_url: str, masker: TextMasker) -> None:
    settings = Settings.model_validate({"REDIS_URL": redis_url})
    async with TestClient(TestServer(create_app(settings, build_deps(settings, masker)))) as client:
        assert (await client.get("/kb/")).status == 200
        assert (await client.get("/kb/disk-full")).status == 200
        css = await client.get("/static/web.css")
        assert css.status == 200 and css.content_type == "text/css"
        assert (await client.get("/diagnose")).status == 200
        assert (await client.post("/api/diagnose", data=b"x")).status == 403  # no token: the API is off
        assert (await client.get("/healthz")).status == 200


def test_thread_footer_links_the_entry_when_a_public_url_is_set(engine: Engine) -> None:
    diag = engine.diagnose([LogSource(name=p.name, path=p) for p in sorted(LOGS.iterdir())])
    assert diag.entry is not None
    job = JobRef(scheduler=Scheduler.slurm, cluster="demo", job_id="1")
    plain = json.dumps([m.blocks for m in BlockKitRenderer(engine.entries).thread_messages(job, diag)])
    assert f"entry `{diag.entry.id}`" in plain and "/kb/" not in plain
    renderer = BlockKitRenderer(engine.entries, public_url="https://denpex.example.com")
    linked = json.dumps([m.blocks for m in renderer.thread_messages(job, diag)])
    assert f"entry <https://denpex.example.com/kb/{diag.entry.id}|{diag.entry.id}>" in linked
