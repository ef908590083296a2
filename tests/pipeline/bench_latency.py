"""Pipeline numbers for the README (not a test; no assertions on time):

    .venv/bin/python -m tests.pipeline.bench_latency [--jobs 20] [--storm 1000]

Starts a private redis-server, the fake Slack, `denpex serve` and `denpex worker -n 2` as real
processes, then (1) fires `--storm` concurrent duplicate `/hooks/job` reports while an external `curl`
probes `/healthz`, and (2) sends `--jobs` webhooks for the bundled 8-rank demo job one after another,
timing webhook → thread posted. Every process it starts is stopped on exit.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp
import redis

from tests.fakes.slack import FakeSlack
from tests.pipeline.conftest import DEMO_LOGS, SECRET, VENV_BIN, signed, worker_env
from tests.support.redis_server import RedisServer, free_port


def start(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        args, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def wait_healthy(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("denpex serve did not become healthy")


async def storm(session: aiohttp.ClientSession, url: str, n: int) -> tuple[dict[int, int], list[float]]:
    probe = subprocess.Popen(
        [
            "bash",
            "-c",
            f"for i in $(seq 40); do curl -s -o /dev/null -w '%{{time_total}}\\n' {url}/healthz;"
            " sleep 0.01; done",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    await asyncio.sleep(0.05)

    async def one() -> int:
        body, headers = signed({"cluster": "ci", "job_id": "j0"})
        async with session.post(f"{url}/hooks/job", data=body, headers=headers) as resp:
            return resp.status

    statuses = await asyncio.gather(*[one() for _ in range(n)])
    out, _ = await asyncio.to_thread(probe.communicate)
    return {s: statuses.count(s) for s in set(statuses)}, [float(x) * 1000 for x in out.split()]


async def run(jobs: int, storm_size: int) -> None:
    rs = RedisServer()
    rs.start()
    root = Path(tempfile.mkdtemp(prefix="denpex-bench-"))
    for i in range(jobs + 1):
        shutil.copytree(DEMO_LOGS, root / "ci" / f"j{i}")
    slack = FakeSlack().start()
    env = worker_env(
        rs.url,
        root,
        SLACK_API_URL=slack.base_url,
        SLACK_BOT_TOKEN=slack.bot_token,
        DENPEX_CHANNEL="C0ALERTS",
        DENPEX_WEBHOOK_SECRET=SECRET,
    )
    port = free_port()
    procs = [
        start([str(VENV_BIN / "denpex"), "worker", "-n", "2"], env),
        start([str(VENV_BIN / "denpex"), "serve", "--host", "127.0.0.1", "--port", str(port)], env),
    ]
    client = redis.Redis.from_url(rs.url)
    try:
        wait_healthy(port)
        url = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=storm_size)) as session:
            counts, probes = await storm(session, url, storm_size)
            queued = sum(1 for _ in client.scan_iter("denpex:job:*"))
            print(
                f"storm: {storm_size} concurrent duplicates -> statuses {counts}, jobs queued {queued}; "
                f"/healthz (external curl, n={len(probes)}): median {statistics.median(probes):.1f} ms, "
                f"max {max(probes):.1f} ms"
            )
            latencies = []
            for i in range(1, jobs + 1):
                t0 = time.perf_counter()
                body, headers = signed({"cluster": "ci", "job_id": f"j{i}"})
                async with session.post(f"{url}/hooks/job", data=body, headers=headers) as resp:
                    assert resp.status == 202
                while client.hget(f"denpex:post:files:ci:j{i}", "status") != b"posted":
                    await asyncio.sleep(0.005)
                latencies.append(time.perf_counter() - t0)
        p50 = statistics.median(latencies)
        print(
            f"webhook -> thread posted, 8-rank demo job, warm workers: p50 {p50:.3f} s, "
            f"max {max(latencies):.3f} s (n={jobs}); load average {os.getloadavg()[0]:.1f}"
        )
    finally:
        for proc in procs:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(proc.pid, signal.SIGKILL)
        client.close()
        slack.stop()
        rs.stop()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--storm", type=int, default=1000)
    args = parser.parse_args()
    asyncio.run(run(args.jobs, args.storm))


if __name__ == "__main__":
    main()
