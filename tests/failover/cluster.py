"""A real Sentinel-managed Redis on loopback: one primary, one replica (AOF), three Sentinels.

Every process gets its own free port and temp directory and is stopped by the test that started
it. Readiness is polled (the replica's link is up, every Sentinel sees the replica and the two
other Sentinels), never waited for with a fixed sleep: failover only works once Sentinels agree.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import redis

from tests.support.redis_server import free_port

MASTER = "mymaster"
#: a Sentinel declares the primary down after this long without an answer; longer than the server's
#: own retry budget (~0.3 s), so a webhook arriving right after the kill is answered 503
DOWN_AFTER_MS = 2000
FAILOVER_TIMEOUT_MS = 4000


def _wait(predicate: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(redis.RedisError, OSError, IndexError, KeyError):
            if predicate():
                return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class SentinelCluster:
    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed; run scripts/bootstrap")
        self.binary = binary
        self.dir = Path(tempfile.mkdtemp(prefix="denpex-sentinel-"))
        self.primary_port, self.replica_port = free_port(), free_port()
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    # ------------------------------------------------------------------ settings for Denpex
    @property
    def sentinels(self) -> str:
        return ",".join(f"127.0.0.1:{p}" for p in self.sentinel_ports)

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=1)

    # ------------------------------------------------------------------ processes
    def _spawn(self, name: str, args: list[str]) -> None:
        log = (self.dir / f"{name}.log").open("wb")
        self.procs[name] = subprocess.Popen(
            [self.binary, *args], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def _data_node(self, name: str, port: int, *extra: str) -> None:
        folder = self.dir / name
        folder.mkdir()
        args = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)]
        self._spawn(name, [*args, "--loglevel", "warning", *extra])

    def start(self, timeout: float = 30.0) -> None:
        self._data_node("primary", self.primary_port, "--appendonly", "no")
        _wait(lambda: self.client(self.primary_port).ping(), timeout, "the primary")
        self._data_node(
            "replica",
            self.replica_port,
            "--replicaof",
            "127.0.0.1",
            str(self.primary_port),
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
        )
        _wait(self._replica_linked, timeout, "the replica's link to the primary")
        for i, port in enumerate(self.sentinel_ports):
            conf = self.dir / f"sentinel-{i}.conf"
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.dir}\n"
                f"sentinel monitor {MASTER} 127.0.0.1 {self.primary_port} 2\n"
                f"sentinel down-after-milliseconds {MASTER} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {MASTER} {FAILOVER_TIMEOUT_MS}\n"
                f"sentinel parallel-syncs {MASTER} 1\n"
            )
            self._spawn(f"sentinel-{i}", [str(conf), "--sentinel", "--loglevel", "notice"])
        _wait(self._sentinels_agree, timeout, "three Sentinels that see the replica and each other")

    def _replica_linked(self) -> bool:
        role = self.client(self.replica_port).role()
        return role[0] == b"slave" and role[3] == b"connected"

    def _state(self, sentinel_port: int) -> dict[str, Any]:
        return cast(dict[str, Any], self.client(sentinel_port).sentinel_master(MASTER))

    def _sentinels_agree(self) -> bool:
        for port in self.sentinel_ports:
            state = self._state(port)
            if int(state["num-slaves"]) < 1 or int(state["num-other-sentinels"]) < 2:
                return False
        return True

    def master_port(self) -> int | None:
        """The port every Sentinel names as the healthy master, or None while they disagree."""
        ports = set()
        for port in self.sentinel_ports:
            state = self._state(port)
            if state.get("is_sdown") or state.get("is_odown"):
                return None
            ports.add(int(state["port"]))
        return ports.pop() if len(ports) == 1 else None

    def kill_primary(self) -> None:
        """`kill -9`: no shutdown, no last write flushed, no goodbye to the replica."""
        proc = self.procs["primary"]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

    def wait_promoted(self, timeout: float) -> int:
        """Until the Sentinels agree the replica is the master and it says so itself."""

        def promoted() -> bool:
            return (
                self.master_port() == self.replica_port
                and self.client(self.replica_port).role()[0] == b"master"
            )

        _wait(promoted, timeout, "the replica to be promoted")
        return self.replica_port

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(self.dir.glob("*.log"))
        )

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
        for proc in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)
