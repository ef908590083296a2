"""A private, real `redis-server` per test session, on a free port of 127.0.0.1.

Tests never touch the machine's own Redis on 6379: each run gets its own server, each test its own
empty database (flushed), and fault-injection tests can stop and restart it on the same port.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """`appendonly=True` runs it as production should: an append-only file fsynced on every write,
    so queued jobs survive a restart (the Redis-restart fault tests rely on it)."""

    def __init__(self, port: int | None = None, *, appendonly: bool = False) -> None:
        self.appendonly = appendonly
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed; run scripts/bootstrap")
        self.binary = binary
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="denpex-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "always"] if self.appendonly else ["--appendonly", "no"]
        )
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                *persistence,
                "--dir",
                str(self.dir),
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.2)
        while time.monotonic() < deadline:
            try:
                if client.ping():
                    client.close()
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def restart(self, down_seconds: float = 0.0) -> None:
        self.stop()
        time.sleep(down_seconds)
        self.start()
