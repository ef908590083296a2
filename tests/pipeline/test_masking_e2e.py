"""End to end, the masking corpus through the whole pipeline: no secret reaches Slack or Redis.

Webhook (secrets in the payload) → Redis/RQ → a real `denpex worker` → engine over rank logs and a
node kernel log holding every line of tests/knowledge/secrets_corpus → fake Slack. Every request body
the worker sends to Slack passes a recording proxy on 127.0.0.1, so the check covers the raw bytes
on the wire, uploaded files and every Redis key and value, not only what the fake parsed.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.server import build_deps, create_app
from knowledge.masking import Masker
from tests.knowledge.test_masking import CORPUS, _fill_values, corpus_groups
from tests.pipeline.conftest import (
    PLANTED,
    WorkerProcs,
    all_redis_text,
    install_demo_job,
    make_settings,
    signed,
    slack_env,
    slack_text,
    wait_async,
)

pytestmark = pytest.mark.timeout(120)


class RecordingProxy:
    """Forwards every request to the fake Slack and keeps the raw request bodies."""

    def __init__(self, upstream: str) -> None:
        self.upstream, self.bodies = upstream.rstrip("/"), []  # type: ignore[var-annotated]

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.bodies.append(request.path_qs.encode() + b"\n" + body)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        async with (
            aiohttp.ClientSession() as session,
            session.request(
                request.method,
                self.upstream + request.path_qs.removeprefix("/api"),
                data=body,
                headers=headers,
            ) as resp,
        ):
            payload = await resp.read()
            return web.Response(body=payload, status=resp.status, content_type=resp.content_type)


@pytest.fixture
async def client(redis_url: str, log_root: Path) -> AsyncIterator[TestClient]:
    settings = make_settings(redis_url, log_root)
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


@pytest.fixture
async def proxy(fake_slack: Any) -> AsyncIterator[tuple[RecordingProxy, str]]:
    rec = RecordingProxy(fake_slack.base_url)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", rec.handle)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    yield rec, str(server.make_url("/api/"))
    await server.close()


def plant_corpus(folder: Path) -> tuple[list[str], list[str]]:
    """Every secret group into rank5's log (the failing rank) and the node log; returns the secret
    values and the benign lines that were written at the end of the rank log (its tail)."""
    rng, secrets, lines = random.Random(77), [], []
    for template in corpus_groups(CORPUS / "secret_lines.txt"):
        text, values = _fill_values(template, rng)
        lines.append(text)
        secrets += values
    benign = [line for line in (CORPUS / "benign_lines.txt").read_text().splitlines() if line.strip()]
    rank5 = folder / "rank5.log"
    original = rank5.read_text().splitlines()
    cut = next(i for i, line in enumerate(original) if "Error" in line or "error" in line)
    rank5.write_text("\n".join([*original[:cut], *lines, *original[cut:], *benign[-12:]]) + "\n")
    dmesg = folder / "node-gpu-02.dmesg"
    dmesg.write_text(dmesg.read_text() + "".join(f"[9{i}.0] {line}\n" for i, line in enumerate(lines[:80])))
    return secrets, benign[-12:]


async def test_secret_corpus_never_reaches_slack_or_redis(
    client: TestClient,
    fake_slack: Any,
    proxy: tuple[RecordingProxy, str],
    workers: Callable[..., WorkerProcs],
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    folder = install_demo_job(log_root, "ci", "5151")
    secrets, benign_tail = plant_corpus(folder)
    recorder, proxy_url = proxy
    procs = workers(**{**slack_env(fake_slack), "SLACK_API_URL": proxy_url})
    procs.start()
    name_secret = secrets[0]
    payload = {
        "cluster": "ci",
        "job_id": "5151",
        "state": "FAILED",
        "exit_code": "1:0",
        "user": "alice",
        "name": f"llama-ft HF_TOKEN={name_secret}",
        "extra": {"env": f"DB_PASSWORD={secrets[1]}"},
    }
    body, headers = signed(payload)
    assert (await client.post("/hooks/job", data=body, headers=headers)).status == 202
    key = "denpex:post:files:ci:5151"
    await wait_async(lambda: redis_client.hget(key, "status") == b"posted", 90, "the post\n" + procs.output())

    wire = b"\n".join(recorder.bodies).decode("utf-8", "replace")
    assert recorder.bodies, "the worker talked to Slack through the proxy"
    seen = {"wire": wire, "slack": slack_text(fake_slack), "redis": all_redis_text(redis_client)}
    for where, text in seen.items():
        for variant in (text, json.dumps(text)):
            leaked = [s for s in [*secrets, PLANTED] if s in variant or json.dumps(s)[1:-1] in variant]
            assert leaked == [], f"{len(leaked)} secrets reached {where}"
    diagnosis = json.loads(redis_client.get("denpex:diagnosis:files:ci:5151") or b"{}")
    tail_texts = {line["text"] for tail in diagnosis["tails"] for line in tail["lines"]}
    kept = [line for line in benign_tail if line.rstrip() in tail_texts]
    assert kept == benign_tail, "the benign tail lines reach the diagnosis unchanged"
    assert "[MASKED:" in seen["redis"] and "[MASKED:" in wire, "secret lines were retained, masked"
    print(
        f"e2e: {len(secrets)} secret values, 0 leaked; {len(kept)} benign tail lines unchanged; "
        f"{len(recorder.bodies)} Slack requests"
    )
