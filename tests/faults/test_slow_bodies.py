"""Slow and oversized senders over real sockets: they hold no webhook slot and are cut off in time.

16 connections that send headers and then trickle (or stop) their body used to hold every webhook
slot, because the gate was taken before the body was read; signed webhooks then timed out.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.server import WEBHOOK_CONCURRENCY, build_deps, create_app
from knowledge.masking import Masker
from tests.pipeline.conftest import AM_TOKEN, install_demo_job, make_settings, signed

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def client(redis_url: str, log_root: Path) -> AsyncIterator[TestClient]:
    settings = make_settings(redis_url, log_root, DENPEX_BODY_TIMEOUT=2, DENPEX_METRICS_TOKEN="m-tok")
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


async def open_slow(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A POST that promises 10,000 bytes and sends 10: it would hold a slot forever."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = "POST /hooks/job HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    writer.write((head + "Content-Length: 10000\r\n\r\n").encode() + b'{"cluster"')
    await writer.drain()
    return reader, writer


async def test_signed_webhooks_succeed_during_a_slow_body_attack(client: TestClient, log_root: Path) -> None:
    assert client.server.port is not None
    attackers = [await open_slow(client.server.port) for _ in range(WEBHOOK_CONCURRENCY)]
    install_demo_job(log_root, "ci", "during-attack")
    body, headers = signed({"cluster": "ci", "job_id": "during-attack", "state": "FAILED"})
    # well inside the 2 s body deadline: the attackers still hold their sockets, yet no slot
    resp = await asyncio.wait_for(client.post("/hooks/job", data=body, headers=headers), 1.5)
    assert resp.status == 202
    health = await asyncio.wait_for(client.get("/healthz"), 1.0)
    assert health.status == 200
    # and each attacker is answered 408 once its deadline passes, the connection closed
    for reader, writer in attackers:
        status_line = await asyncio.wait_for(reader.readline(), 10)
        assert status_line.split()[1] == b"408", status_line
        writer.close()


async def test_alertmanager_caps_alerts_per_request(client: TestClient) -> None:
    alert = {"status": "firing", "labels": {"alertname": "KubeJobFailed", "job_name": "j", "namespace": "n"}}
    body = json.dumps({"version": "4", "status": "firing", "alerts": [alert] * 51}).encode()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {AM_TOKEN}"}
    resp = await client.post("/hooks/alertmanager", data=body, headers=headers)
    data = await resp.json()
    assert (resp.status, data["field"]) == (400, "alerts") and "51" in data["error"]


async def test_metrics_require_the_bearer_token_when_set(client: TestClient) -> None:
    assert (await client.get("/metrics")).status == 401
    assert (await client.get("/metrics", headers={"Authorization": "Bearer wrong"})).status == 401
    ok = await client.get("/metrics", headers={"Authorization": "Bearer m-tok"})
    assert ok.status == 200 and "denpex_webhooks" in await ok.text()
