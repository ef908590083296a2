"""Slow headers (slowloris) over real sockets: cut off at the header deadline, holding no slot.

A sender that trickles its request line and headers (or sends nothing at all) used to keep its
connection for aiohttp's default hour-long keep-alive; hundreds of them exhaust the server's sockets.
`DENPEX_HEADER_TIMEOUT` bounds the time from opening a connection (or from its previous response) to a
complete request head. The tricklers here keep sending well past the deadline, so a close can only
be the server's doing; while they are connected, signed webhooks and `/healthz` are answered.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.server import WEBHOOK_CONCURRENCY, build_deps, create_app
from knowledge.masking import Masker
from tests.pipeline.conftest import install_demo_job, make_settings, signed

pytestmark = pytest.mark.timeout(90)

HEADER_TIMEOUT = 1.0
#: how long an attacker keeps trickling if nobody stops it: far past the deadline
TRICKLE_FOR = 20.0
#: how long a test waits for the server to close an attacker (a failure, not a pass, if it runs out)
CLOSE_WITHIN = 15.0


@pytest.fixture
async def client(redis_url: str, log_root: Path) -> AsyncIterator[TestClient]:
    settings = make_settings(redis_url, log_root, DENPEX_HEADER_TIMEOUT=HEADER_TIMEOUT, DENPEX_BODY_TIMEOUT=5)
    app = create_app(settings, build_deps(settings, Masker.default()))
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


class Slowloris:
    """One connection that sends `head`, then one more header byte every 50 ms for `TRICKLE_FOR`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes) -> None:
        self.reader, self.writer = reader, writer
        self.trickler = asyncio.create_task(self._trickle(head))

    @classmethod
    async def open(cls, port: int, head: bytes = b"POST /hooks/job HTTP/1.1\r\nHost: x\r\n") -> Slowloris:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer, head)

    async def _trickle(self, head: bytes) -> None:
        with contextlib.suppress(ConnectionError):
            self.writer.write(head + b"X-Slow: ")
            for _ in range(int(TRICKLE_FOR / 0.05)):
                await self.writer.drain()
                await asyncio.sleep(0.05)
                self.writer.write(b"a")

    async def closed_by_server(self) -> bool:
        """True once the server closed the connection while this side was still sending."""
        try:
            data = await asyncio.wait_for(self.reader.read(), CLOSE_WITHIN)
        except ConnectionError:
            data = b""
        still_sending = not self.trickler.done()
        self.trickler.cancel()
        self.writer.close()
        return data == b"" and still_sending


async def test_slow_headers_are_cut_off_and_hold_no_slot(client: TestClient, log_root: Path) -> None:
    port = client.server.port
    assert port is not None
    attackers = [await Slowloris.open(port) for _ in range(WEBHOOK_CONCURRENCY + 8)]
    install_demo_job(log_root, "ci", "during-slowloris")
    body, headers = signed({"cluster": "ci", "job_id": "during-slowloris", "state": "FAILED"})
    resp = await asyncio.wait_for(client.post("/hooks/job", data=body, headers=headers), 5)
    assert resp.status == 202
    health = await asyncio.wait_for(client.get("/healthz"), 2)
    assert health.status == 200
    closed = await asyncio.gather(*(a.closed_by_server() for a in attackers))
    assert all(closed), closed
    # and the server still answers once they are gone
    assert (await asyncio.wait_for(client.get("/healthz"), 2)).status == 200


async def test_a_connection_that_sends_nothing_is_closed(client: TestClient) -> None:
    assert client.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    try:
        assert await asyncio.wait_for(reader.read(), CLOSE_WITHIN) == b""
    finally:
        writer.close()


async def test_the_next_request_on_a_kept_alive_connection_has_the_same_deadline(client: TestClient) -> None:
    """A sender that behaves for one request and then trickles the next is cut off too."""
    assert client.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    status = await asyncio.wait_for(reader.readline(), 5)
    assert status.split()[1] == b"200", status
    length = 0
    while (line := await asyncio.wait_for(reader.readline(), 5)) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    await reader.readexactly(length)  # the whole response: the connection is idle and kept alive
    slow = Slowloris(reader, writer, b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    assert await slow.closed_by_server()


async def test_headers_sent_in_pieces_within_the_deadline_are_served(client: TestClient) -> None:
    assert client.server.port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    try:
        for piece in (b"GET /heal", b"thz HTTP/1.1\r\nHo", b"st: x\r\nConnection: close\r\n\r\n"):
            writer.write(piece)
            await writer.drain()
            await asyncio.sleep(0.01)
        status = await asyncio.wait_for(reader.readline(), 5)
        assert status.split()[1] == b"200", status
    finally:
        writer.close()
