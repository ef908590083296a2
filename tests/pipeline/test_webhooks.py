"""The webhook door over real HTTP: auth, validation naming the field, paths, limits, dedupe.

Each test checks the queue afterwards: a rejected request must leave nothing queued or stored.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis
from aiohttp.test_utils import TestClient, TestServer
from rq import Queue

from bot.server import build_deps, create_app
from integrations.signing import signature
from knowledge.masking import Masker
from tests.pipeline.conftest import AM_TOKEN, PLANTED, SECRET, all_redis_text, make_settings, signed

pytestmark = pytest.mark.timeout(60)

SLURM = {
    "cluster": "hpc",
    "job_id": 4242,
    "state": "FAILED",
    "exit_code": "1:0",
    "node_list": "gpu-[01-02]",
    "user": "alice",
    "name": "llama-ft",
    "start": 1763600000,
    "end": 1763603000,
}


@pytest.fixture
async def client(redis_url: str, log_root: Path) -> AsyncIterator[TestClient]:
    settings = make_settings(redis_url, log_root)
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


def queued(redis_client: redis.Redis) -> int:
    return Queue("denpex", connection=redis_client).count


async def post(client: TestClient, path: str, payload: Any, **kw: Any) -> tuple[int, dict[str, Any]]:
    body, headers = signed(payload, path=path, **kw)
    resp = await client.post(path, data=body, headers=headers)
    return resp.status, await resp.json()


async def test_good_signature_queues_once(client: TestClient, redis_client: redis.Redis) -> None:
    status, body = await post(client, "/hooks/slurm", SLURM)
    assert (status, body["status"], body["job_key"]) == (202, "queued", "slurm:hpc:4242")
    status, body = await post(client, "/hooks/slurm", SLURM)
    assert (status, body["status"]) == (200, "duplicate")
    assert queued(redis_client) == 1
    job = json.loads(redis_client.hget("denpex:job:slurm:hpc:4242", "job"))
    assert job["nodes"] == ["gpu-01", "gpu-02"]


#: the server's clock in the signature tests: fixed, so the replay-window edges are exact
NOW = 1_800_000_000.0


@pytest.fixture
async def clocked(redis_url: str, log_root: Path) -> AsyncIterator[TestClient]:
    """The app with its clock pinned to `NOW` (sign() truncates to whole seconds; NOW is whole)."""
    settings = make_settings(redis_url, log_root)
    app = create_app(settings, build_deps(settings, Masker.default(), clock=lambda: NOW))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


@pytest.mark.parametrize(
    "case", ["bad", "stale", "future", "missing", "wrong_secret", "tampered", "other_route", "v1"]
)
async def test_bad_signatures_are_401_and_queue_nothing(
    clocked: TestClient, redis_client: redis.Redis, case: str
) -> None:
    body, headers = signed(SLURM, ts=NOW, path="/hooks/slurm")
    if case == "bad":
        headers["X-Denpex-Signature"] = "v2=" + "0" * 64
    elif case == "stale":
        body, headers = signed(SLURM, ts=NOW - 301, path="/hooks/slurm")
    elif case == "future":
        body, headers = signed(SLURM, ts=NOW + 301, path="/hooks/slurm")
    elif case == "missing":
        del headers["X-Denpex-Signature"]
    elif case == "wrong_secret":
        body, headers = signed(SLURM, secret="not-the-secret", ts=NOW, path="/hooks/slurm")
    elif case == "tampered":
        body = body.replace(b"4242", b"4243")
    elif case == "other_route":  # signed for /hooks/job, replayed on /hooks/slurm
        body, headers = signed(SLURM, ts=NOW, path="/hooks/job")
    elif case == "v1":  # an old hook: refused unless DENPEX_ACCEPT_V1=1
        ts = headers["X-Denpex-Timestamp"]
        headers["X-Denpex-Signature"] = signature(SECRET, body, ts)
    resp = await clocked.post("/hooks/slurm", data=body, headers=headers)
    assert resp.status == 401
    assert "error" in await resp.json()
    assert queued(redis_client) == 0
    assert not redis_client.keys("denpex:*")


@pytest.mark.parametrize("offset", [-300, 300])
async def test_window_edges_are_accepted(clocked: TestClient, offset: int) -> None:
    body, headers = signed(SLURM, ts=NOW + offset, path="/hooks/slurm")
    assert (await clocked.post("/hooks/slurm", data=body, headers=headers)).status == 202


#: NOW in Arabic-Indic digits: int() reads it as NOW, inside the window (it used to crash with 500)
ARABIC_NOW = "".join(chr(0x0660 + int(d)) for d in str(int(NOW)))


@pytest.mark.parametrize("stamp", [ARABIC_NOW, "180000000\u0660", "+1800000000", "1_800_000_000"])
async def test_non_ascii_timestamps_are_401(clocked: TestClient, stamp: str) -> None:
    """int() accepts Arabic-Indic digits, spaces and underscores; the header must be ASCII digits."""
    body, headers = signed(SLURM, ts=NOW, path="/hooks/slurm")
    raw = "POST /hooks/slurm HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    raw += f"X-Denpex-Timestamp: {stamp}\r\nX-Denpex-Signature: {headers['X-Denpex-Signature']}\r\n"
    raw += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    assert clocked.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", clocked.server.port)
    writer.write(raw.encode("utf-8") + body)
    await writer.drain()
    status_line = await asyncio.wait_for(reader.readline(), 10)
    writer.close()
    assert status_line.split()[1] == b"401", status_line


async def test_v1_is_accepted_only_when_enabled(redis_url: str, log_root: Path) -> None:
    settings = make_settings(redis_url, log_root, DENPEX_ACCEPT_V1="1")
    app = create_app(settings, build_deps(settings, Masker.default(), clock=lambda: NOW))
    body, headers = signed(SLURM, ts=NOW, path="/hooks/slurm")
    headers["X-Denpex-Signature"] = signature(SECRET, body, headers["X-Denpex-Timestamp"])
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        assert (await c.post("/hooks/slurm", data=body, headers=headers)).status == 202


@pytest.mark.parametrize(
    ("route", "payload", "field"),
    [
        ("/hooks/slurm", {**SLURM, "cluster": ""}, "cluster"),
        ("/hooks/slurm", {k: v for k, v in SLURM.items() if k != "job_id"}, "job_id"),
        ("/hooks/slurm", {**SLURM, "state": None}, "state"),
        ("/hooks/slurm", {**SLURM, "node_list": "gpu-[01-"}, "node_list"),
        ("/hooks/slurm", {**SLURM, "nodes": ["gpu 01"]}, "nodes"),
        ("/hooks/slurm", {**SLURM, "end": "yesterday-ish"}, "end"),
        ("/hooks/slurm", {**SLURM, "cluster": "a:b"}, "cluster"),
        ("/hooks/slurm/node", {"cluster": "hpc", "job_id": "1", "node": "gpu-01"}, "kernel_log"),
        ("/hooks/slurm/node", {"cluster": "hpc", "job_id": "1", "node": "../x", "kernel_log": ""}, "node"),
        (
            "/hooks/kubernetes",
            {"cluster": "k", "namespace": "ml", "kind": "Deployment", "name": "x", "state": "Failed"},
            "kind",
        ),
        (
            "/hooks/kubernetes",
            {
                "cluster": "k",
                "namespace": "ml",
                "kind": "Job",
                "name": "x",
                "state": "Failed",
                "pods": [{"name": "x-0", "rank": "zero"}],
            },
            "pods.0.rank",
        ),
        ("/hooks/job", {"cluster": "ci"}, "job_id"),
        ("/hooks/job", ["not", "an", "object"], "body"),
    ],
)
async def test_malformed_payload_is_400_naming_the_field(
    client: TestClient, redis_client: redis.Redis, route: str, payload: Any, field: str
) -> None:
    status, body = await post(client, route, payload)
    assert status == 400, body
    assert body["field"] == field
    assert field.split(".")[-1] in body["error"] or field == "body"
    assert queued(redis_client) == 0


async def test_alertmanager_needs_bearer_and_names_the_field(
    client: TestClient, redis_client: redis.Redis
) -> None:
    alert = {
        "version": "4",
        "status": "firing",
        "alerts": [
            {
                "status": "firing",
                "labels": {"alertname": "KubeJobFailed", "namespace": "ml", "job_name": "train-7"},
                "annotations": {"description": "Job ml/train-7 failed to complete."},
            },
            {"status": "firing", "labels": {"alertname": "Watchdog"}},
        ],
    }
    body = json.dumps(alert).encode()
    resp = await client.post("/hooks/alertmanager", data=body, headers={"Content-Type": "application/json"})
    assert resp.status == 401
    resp = await client.post(
        "/hooks/alertmanager",
        data=body,
        headers={"Content-Type": "application/json", "Authorization": "Bearer wrong"},
    )
    assert resp.status == 401
    auth = {"Content-Type": "application/json", "Authorization": f"Bearer {AM_TOKEN}"}
    empty = json.dumps({"version": "4", "alerts": []})
    resp = await client.post("/hooks/alertmanager", data=empty, headers=auth)
    assert resp.status == 400 and (await resp.json())["field"] == "alerts"
    assert queued(redis_client) == 0
    resp = await client.post("/hooks/alertmanager", data=body, headers=auth)
    assert resp.status == 202
    assert (await resp.json())["jobs"] == [{"job_key": "kubernetes:default:ml/train-7", "status": "queued"}]
    assert queued(redis_client) == 1


@pytest.mark.parametrize("job_id", ["..", "../etc", "/etc/passwd", "a/../../b", "escape"])
async def test_path_traversal_rejected(
    client: TestClient, redis_client: redis.Redis, log_root: Path, tmp_path: Path, job_id: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (log_root / "ci").mkdir()
    os.symlink(outside, log_root / "ci" / "escape")
    status, body = await post(client, "/hooks/job", {"cluster": "ci", "job_id": job_id})
    assert status == 400, body
    assert body["field"] == "job_id"
    assert queued(redis_client) == 0


async def test_transport_errors(client: TestClient, redis_client: redis.Redis) -> None:
    body, headers = signed(SLURM, path="/hooks/slurm")
    resp = await client.post("/hooks/slurm", data=body, headers={**headers, "Content-Type": "text/plain"})
    assert resp.status == 415
    big, headers = signed({"pad": "x" * (2 << 20), **SLURM}, path="/hooks/slurm")
    resp = await client.post("/hooks/slurm", data=big, headers=headers)
    assert resp.status == 413
    for raw, problem in ((b"\xff\xfe{}", "UTF-8"), (b'{"cluster": ', "JSON")):
        body, headers = signed(raw, path="/hooks/slurm")
        resp = await client.post("/hooks/slurm", data=body, headers=headers)
        data = await resp.json()
        assert (resp.status, data["field"]) == (400, "body") and problem in data["error"]
    assert queued(redis_client) == 0


async def test_node_report_is_masked_at_ingress(client: TestClient, redis_client: redis.Redis) -> None:
    log = f"[ 12.3] NVRM: Xid (PCI:0000:17:00): 79, GPU has fallen off the bus.\nexport HF_TOKEN={PLANTED}\n"
    report = {"cluster": "hpc", "job_id": "4242", "node": "gpu-01", "kernel_log": log}
    status, body = await post(client, "/hooks/slurm/node", report)
    assert status == 202, body
    stored = json.loads(redis_client.hget("denpex:nodelog:slurm:hpc:4242", "gpu-01"))
    assert "Xid" in stored["log"] and PLANTED not in stored["log"]
    assert redis_client.ttl("denpex:nodelog:slurm:hpc:4242") > 0
    assert PLANTED not in all_redis_text(redis_client)
    assert queued(redis_client) == 0


async def test_health_and_metrics(client: TestClient, redis_server: Any) -> None:
    resp = await client.get("/healthz")
    assert resp.status == 200
    await post(client, "/hooks/slurm", SLURM)
    await post(client, "/hooks/slurm", {**SLURM, "job_id": "x y"})
    text = await (await client.get("/metrics")).text()
    assert 'denpex_jobs_queued_total{route="slurm"} 1.0' in text
    assert 'denpex_webhooks_rejected_total{reason="payload",route="slurm"} 1.0' in text
    assert 'denpex_queue_depth{queue="denpex"} 1.0' in text
    redis_server.stop()
    try:
        resp = await client.get("/healthz")
        assert resp.status == 503
        assert "redis" in (await resp.json())["problem"]
        status, _ = await post(client, "/hooks/slurm", {**SLURM, "job_id": "9"})
        assert status == 503
    finally:
        redis_server.start()


async def test_new_occurrence_starts_clean_but_a_takeover_keeps_post_state(
    redis_url: str,
    log_root: Path,
    redis_client: redis.Redis,
) -> None:
    now = [time.time()]
    settings = make_settings(redis_url, log_root)
    deps = build_deps(settings, Masker.default(), dedupe_ttl=60, clock=lambda: now[0])
    key = "slurm:hpc:4242"
    async with TestClient(TestServer(create_app(settings, deps), host="127.0.0.1")) as client:
        assert (await post(client, "/hooks/slurm", SLURM))[1]["status"] == "queued"
        redis_client.hset(f"denpex:post:{key}", mapping={"status": "posting", "channel": "C1"})
        # the recorder stalled: its pending token is stale, the next report takes the gate over
        redis_client.set(f"denpex:dedupe:{key}", f"pending:{now[0] - 10:.6f}")
        assert (await post(client, "/hooks/slurm", SLURM))[1]["status"] == "queued"
        assert redis_client.hget(f"denpex:post:{key}", "status") == b"posting", "same occurrence: kept"
        # the dedupe window passed: the same id failing again is a new failure, diagnosed afresh
        now[0] += 61
        redis_client.delete(f"denpex:dedupe:{key}")
        redis_client.hset(f"denpex:post:{key}", "status", "posted")
        body, headers = signed(SLURM, ts=now[0], path="/hooks/slurm")
        resp = await client.post("/hooks/slurm", data=body, headers=headers)
        assert (await resp.json())["status"] == "queued"
        assert not redis_client.exists(f"denpex:post:{key}")
