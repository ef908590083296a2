"""`/healthz` latency while the server is under pressure: p50 / p95 / p99 in two situations.

    .venv/bin/python benchmarks/healthz_latency.py [--reports 1000] [--attackers 64] [--seconds 20]

Starts a private redis-server and `denpex serve` as its own process on 127.0.0.1 (no workers: the
first report is queued, the rest are duplicates), then probes `GET /healthz` back to back, a fresh
connection per probe as kubelet does (one kept-alive connection with `--keep-alive`), during
  1. a storm of `--reports` signed duplicate reports of one failed job over 50 connections;
  2. a slow-body + slow-header attack: `--attackers` connections that promise a body and trickle it,
     and as many that trickle their headers, each reopened as soon as the server cuts it off, for
     `--seconds`; a signed webhook every 0.5 s measures whether real senders still get through.
The target is p99 < 100 ms in both. Not a test (timings depend on the machine); prints Markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
    os.environ.pop(_var, None)

import aiohttp  # noqa: E402
import psutil  # noqa: E402

from integrations.signing import sign  # noqa: E402
from tests.faults.storm import percentile  # noqa: E402
from tests.faults.support import ServeProc  # noqa: E402
from tests.pipeline.conftest import SECRET  # noqa: E402
from tests.support.redis_server import RedisServer  # noqa: E402

T = TypeVar("T")
JOB = {"cluster": "hpc", "job_id": "31337", "state": "FAILED", "exit_code": "1:0", "node_list": "gpu-01"}


def signed_request(payload: dict[str, Any], path: str) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(payload).encode()
    return body, {"Content-Type": "application/json", **sign(SECRET, body, path=path)}


async def probe_while(url: str, work: Awaitable[T], fresh: bool) -> tuple[list[float], Counter[int], T]:
    """GET /healthz back to back until `work` finishes: latencies (ms), statuses, `work`'s result."""
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    task = asyncio.ensure_future(work)
    timeout = aiohttp.ClientTimeout(total=5)
    async with aiohttp.ClientSession(timeout=timeout, trust_env=False) as session:
        while not task.done():
            t0 = time.perf_counter()
            headers = {"Connection": "close"} if fresh else None
            try:
                async with session.get(url + "/healthz", headers=headers) as resp:
                    await resp.read()
                    statuses[resp.status] += 1
            except (aiohttp.ClientError, TimeoutError):
                statuses[0] += 1
            latencies.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.005)
    return latencies, statuses, await task


async def duplicate_reports(url: str, n: int, connections: int = 50) -> Counter[int]:
    body, _ = signed_request(JOB, "/hooks/slurm")
    statuses: Counter[int] = Counter()
    remaining = iter(range(n))
    connector = aiohttp.TCPConnector(limit=connections)
    async with aiohttp.ClientSession(connector=connector, trust_env=False) as session:

        async def sender() -> None:
            for _ in remaining:
                headers = {"Content-Type": "application/json", **sign(SECRET, body, path="/hooks/slurm")}
                async with session.post(url + "/hooks/slurm", data=body, headers=headers) as resp:
                    await resp.read()
                    statuses[resp.status] += 1

        await asyncio.gather(*(sender() for _ in range(connections)))
    return statuses


async def slow_connection(port: int, head: bytes, stop: asyncio.Event, cuts: Counter[str], kind: str) -> None:
    """Send `head`, then one byte every 0.5 s; reopen whenever the server closes the connection."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        try:
            writer.write(head)
            while not stop.is_set():
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(reader.read(1024), 0.5)
                    break  # an answer (408) or the close: the server cut this sender off
                writer.write(b"a")
            if not stop.is_set():
                cuts[kind] += 1
        except ConnectionError:
            cuts[kind] += 1
        finally:
            writer.close()


async def attack(url: str, port: int, attackers: int, seconds: float) -> tuple[Counter[str], Counter[int]]:
    """Slow bodies and slow headers for `seconds`, with a signed webhook every 0.5 s."""
    stop, cuts, webhooks = asyncio.Event(), Counter[str](), Counter[int]()
    slow_body = b"POST /hooks/job HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    slow_body += b'Content-Length: 100000\r\n\r\n{"cluster"'
    slow_head = b"POST /hooks/job HTTP/1.1\r\nHost: x\r\nX-Slow: "
    tasks = [
        asyncio.create_task(slow_connection(port, slow_body, stop, cuts, "body")) for _ in range(attackers)
    ]
    tasks += [
        asyncio.create_task(slow_connection(port, slow_head, stop, cuts, "header")) for _ in range(attackers)
    ]
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10), trust_env=False) as session:
        i = 0
        while time.monotonic() < deadline:
            i += 1
            payload = {"cluster": "ci", "job_id": f"attack-{i}", "state": "FAILED"}
            body, headers = signed_request(payload, "/hooks/job")
            try:
                async with session.post(url + "/hooks/job", data=body, headers=headers) as resp:
                    webhooks[resp.status] += 1
            except (aiohttp.ClientError, TimeoutError):
                webhooks[0] += 1
            await asyncio.sleep(0.5)
    stop.set()
    await asyncio.gather(*tasks)
    return cuts, webhooks


def cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (its threads included), to price a report in CPU time."""
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def row(name: str, ms: list[float], extra: str) -> str:
    p50, p95, p99 = (percentile(ms, q) for q in (0.5, 0.95, 0.99))
    return f"| {name} | {len(ms)} | {p50:.1f} | {p95:.1f} | {p99:.1f} | {max(ms):.1f} | {extra} |"


async def load(args: argparse.Namespace) -> None:
    """The load itself (`--load storm|attack`), run as a child so it cannot starve the prober."""
    if args.load == "storm":
        result: dict[str, Any] = {"reports": dict(await duplicate_reports(args.url, args.reports))}
    else:
        port = int(args.url.rsplit(":", 1)[1])
        cuts, webhooks = await attack(args.url, port, args.attackers, args.seconds)
        result = {"cut_off": dict(cuts), "signed_webhooks": dict(webhooks)}
    print(json.dumps(result))


async def run_load(args: argparse.Namespace, kind: str, url: str) -> dict[str, Any]:
    argv = [__file__, "--load", kind, "--url", url, "--reports", str(args.reports)]
    argv += ["--attackers", str(args.attackers), "--seconds", str(args.seconds)]
    child = await asyncio.create_subprocess_exec(sys.executable, *argv, stdout=asyncio.subprocess.PIPE)
    out, _ = await child.communicate()
    if child.returncode != 0:
        raise RuntimeError(f"the {kind} load failed (exit {child.returncode})")
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


async def main(args: argparse.Namespace) -> None:
    redis_server, tmp = RedisServer(), Path(tempfile.mkdtemp(prefix="denpex-healthz-"))
    redis_server.start()
    logs = tmp / "logs"
    for cluster in ("hpc", "ci"):
        (logs / cluster).mkdir(parents=True)
    env = {"DENPEX_BODY_TIMEOUT": str(args.body_timeout), "DENPEX_HEADER_TIMEOUT": str(args.header_timeout)}
    server = ServeProc(redis_server.url, logs, tmp / "serve.log", **env)
    server.start()
    fresh = not args.keep_alive
    try:
        quiet_ms, quiet_health, _ = await probe_while(server.url, asyncio.sleep(3), fresh)
        assert server.proc is not None and redis_server.proc is not None
        before = cpu_seconds(server.proc.pid), cpu_seconds(redis_server.proc.pid)
        storm_ms, storm_health, storm = await probe_while(
            server.url, run_load(args, "storm", server.url), fresh
        )
        procs = (server.proc, redis_server.proc)
        storm_cpu = [cpu_seconds(p.pid) - b for p, b in zip(procs, before, strict=True)]
        siege = run_load(args, "attack", server.url)
        attack_ms, attack_health, siege_result = await probe_while(server.url, siege, fresh)
        alive = server.alive()
    finally:
        server.stop()
        redis_server.stop()
    print(f"/healthz probed on {'a fresh connection each' if fresh else 'one kept-alive connection'}")
    print("| situation | probes | p50 ms | p95 ms | p99 ms | max ms | notes |\n|---|---|---|---|---|---|---|")
    print(row("idle (3 s)", quiet_ms, f"/healthz {dict(quiet_health)}"))
    print(row(f"{args.reports} duplicate reports", storm_ms, f"{storm}; /healthz {dict(storm_health)}"))
    name = f"{args.attackers} slow-body + {args.attackers} slow-header, {args.seconds:g} s"
    print(row(name, attack_ms, f"{siege_result}; /healthz {dict(attack_health)}"))
    per_report = [1000 * c / max(args.reports, 1) for c in storm_cpu]
    print(
        f"CPU during the storm (probes included): server {storm_cpu[0]:.2f} s ({per_report[0]:.2f} ms a"
        f" report), redis-server {storm_cpu[1]:.2f} s ({per_report[1]:.2f} ms a report)"
    )
    print(
        f"server alive at the end: {alive}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reports", type=int, default=1000)
    parser.add_argument(
        "--attackers", type=int, default=64, help="slow-body connections (and as many slow-header)"
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the attack lasts")
    parser.add_argument("--body-timeout", type=float, default=10.0, help="DENPEX_BODY_TIMEOUT of the server")
    parser.add_argument(
        "--header-timeout", type=float, default=10.0, help="DENPEX_HEADER_TIMEOUT of the server"
    )
    parser.add_argument("--keep-alive", action="store_true", help="probe on one kept-alive connection")
    parser.add_argument("--load", choices=["storm", "attack"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parsed = parser.parse_args()
    asyncio.run(load(parsed) if parsed.load else main(parsed))
