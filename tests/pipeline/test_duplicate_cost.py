"""What a duplicate report and a `/healthz` probe cost Redis, counted by a private redis-server's MONITOR.

Why count: in a storm (every node's epilog reports the same failed job) nearly every request is a
duplicate, and each round trip it costs is event-loop time a `/healthz` probe waits behind. A
duplicate must cost one command (the gate script) and write nothing (so no replica WAIT); a probe
one PING on its own client with a short timeout.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from aiohttp.test_utils import TestClient, TestServer

from bot.server import DEPS, build_deps, create_app
from knowledge.masking import Masker
from tests.pipeline.conftest import make_settings, signed
from tests.support.redis_server import RedisServer
from workers.queueing import rq_job_id

pytestmark = pytest.mark.timeout(60)

SLURM = {"cluster": "hpc", "job_id": 777, "state": "FAILED", "exit_code": "1:0", "node_list": "gpu-01"}
END = "denpex-test-end-of-capture"
GATE = "denpex:dedupe:slurm:hpc:777"


@pytest.fixture
def private_redis() -> Iterator[RedisServer]:
    """Its own server: nothing but this test's app may issue commands while MONITOR counts."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def client(private_redis: RedisServer, log_root: Path) -> AsyncIterator[TestClient]:
    settings = make_settings(private_redis.url, log_root)
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


class Capture:
    """Every command the server receives from now until `commands()`, via MONITOR."""

    def __init__(self, server: RedisServer) -> None:
        self.marker = redis.Redis.from_url(server.url)
        self.marker.ping()  # connected before MONITOR starts: its handshake is not captured
        self.client = redis.Redis.from_url(server.url)
        self.monitor = self.client.monitor()
        self.monitor.__enter__()  # sends MONITOR; the server buffers what follows on this socket

    def commands(self) -> list[dict[str, Any]]:
        """The commands captured up to an end marker sent now (so nothing depends on timing)."""
        self.marker.echo(END)
        self.marker.close()
        seen: list[dict[str, Any]] = []
        for command in self.monitor.listen():
            if END in command["command"]:
                break
            seen.append(command)
        self.monitor.__exit__()
        self.client.close()
        return seen


def sent_by_clients(commands: list[dict[str, Any]]) -> list[str]:
    """Command names the app sent (a script's own calls, tagged `lua`, are not round trips)."""
    return [c["command"].split()[0].upper() for c in commands if c["client_type"] != "lua"]


async def report(client: TestClient, job_id: int = 777) -> tuple[int, str]:
    body, headers = signed({**SLURM, "job_id": job_id}, path="/hooks/slurm")
    resp = await client.post("/hooks/slurm", data=body, headers=headers)
    return resp.status, (await resp.json())["status"]


async def test_a_duplicate_costs_one_round_trip_and_writes_nothing(
    client: TestClient, private_redis: RedisServer
) -> None:
    assert await report(client) == (202, "queued")
    assert await report(client) == (200, "duplicate")  # the script is loaded, the pool warm
    capture = Capture(private_redis)
    for _ in range(5):
        assert await report(client) == (200, "duplicate")
    commands = capture.commands()
    assert sent_by_clients(commands) == ["EVALSHA"] * 5
    in_script = {c["command"].split()[0].upper() for c in commands if c["client_type"] == "lua"}
    assert in_script == {"GET"}  # no write, hence no WAIT for a replica


async def test_a_stale_pending_gate_is_taken_over_in_the_same_round_trip(
    client: TestClient, private_redis: RedisServer
) -> None:
    assert await report(client, job_id=778) == (202, "queued")  # another job: the script is loaded
    with redis.Redis.from_url(private_redis.url) as r:
        r.set(GATE, "pending:1000.000000")  # left by a recorder that died long ago
        capture = Capture(private_redis)
        assert await report(client) == (202, "queued")
        on_gate = [
            c["command"].split()[0].upper()
            for c in capture.commands()
            if c["client_type"] != "lua" and GATE in c["command"]
        ]
        assert on_gate == ["EVALSHA", "SET"]  # claim-or-take-over, then the RQ id once queued
        assert r.get(GATE) == rq_job_id("slurm:hpc:777").encode()


async def test_healthz_is_one_ping_with_a_short_timeout(
    client: TestClient, private_redis: RedisServer
) -> None:
    assert (await client.get("/healthz")).status == 200  # connect first (HELLO/CLIENT SETINFO)
    capture = Capture(private_redis)
    resp = await client.get("/healthz")
    assert resp.status == 200
    assert sent_by_clients(capture.commands()) == ["PING"]
    assert client.app is not None
    health = client.app[DEPS].health
    assert health is not None
    assert health.connection_pool.connection_kwargs["socket_timeout"] <= 1
