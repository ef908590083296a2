"""A storm of duplicate failure reports with `/healthz` probed throughout (shared with benchmarks/).

Every node of a big job reports the same failure at once (node epilogs, retried controller hooks):
`n` signed POSTs of one job over `connections` concurrent connections, while a separate connection
GETs `/healthz` every `probe_every` seconds and records each answer's latency.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections import Counter
from typing import Any

import aiohttp

from integrations.signing import sign


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def duplicate_storm(
    base_url: str,
    secret: str,
    payload: dict[str, Any],
    *,
    n: int = 1000,
    connections: int = 50,
    probe_every: float = 0.01,
) -> dict[str, Any]:
    """Returns the status counts of the storm and the healthz latencies (ms) measured during it."""
    body = json.dumps(payload).encode()
    statuses: Counter[int] = Counter()
    probes: list[float] = []
    probe_status: Counter[int] = Counter()
    done = asyncio.Event()

    async def report(session: aiohttp.ClientSession, queue: asyncio.Queue[int]) -> None:
        while not queue.empty():
            queue.get_nowait()
            headers = {"Content-Type": "application/json", **sign(secret, body, path=payload_path(payload))}
            async with session.post(base_url + payload_path(payload), data=body, headers=headers) as resp:
                await resp.read()
                statuses[resp.status] += 1

    async def probe() -> None:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
            while not done.is_set():
                t0 = time.perf_counter()
                async with session.get(base_url + "/healthz") as resp:
                    await resp.read()
                    probe_status[resp.status] += 1
                probes.append((time.perf_counter() - t0) * 1000)
                await asyncio.sleep(probe_every)

    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(n):
        queue.put_nowait(i)
    prober = asyncio.create_task(probe())
    t0 = time.perf_counter()
    connector = aiohttp.TCPConnector(limit=connections)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as session:
        await asyncio.gather(*[report(session, queue) for _ in range(connections)])
    seconds = time.perf_counter() - t0
    done.set()
    await prober
    return {
        "reports": n,
        "seconds": round(seconds, 2),
        "statuses": dict(statuses),
        "healthz": {
            "n": len(probes),
            "statuses": dict(probe_status),
            "p50_ms": round(statistics.median(probes), 1) if probes else None,
            "p95_ms": round(percentile(probes, 0.95), 1),
            "max_ms": round(max(probes, default=0), 1),
        },
    }


def payload_path(payload: dict[str, Any]) -> str:
    return "/hooks/slurm" if "node_list" in payload or "nodes" in payload else "/hooks/job"
