"""Slack app latency: how fast `/denpex` is acknowledged and a thread question answered.

    .venv/bin/python benchmarks/slack_latency.py [--n 200]

Starts a private redis-server, the fake Slack server (tests/fakes/slack) and `denpex serve`'s aiohttp
application with the Slack routes on 127.0.0.1, then sends signed requests exactly as Slack does:
  * `/denpex diagnose <id>` form posts (resolve job, check quota, queue through the pipeline) and
    `/denpex help`: time until the HTTP acknowledgement (Slack's limit: 3 s);
  * thread questions (Events API JSON): time until the answer is posted to the fake Slack.
Prints a Markdown table of p50 / p95 / max in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
    os.environ.pop(_var, None)


def _row(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {p95:.1f} | {ms[-1]:.1f} |"


async def main(n: int) -> None:
    import aiohttp
    import redis
    from aiohttp import web

    from bot.server import build_deps, create_app
    from denpex.cli._runtime import slack_route_installers
    from denpex.core.settings import Settings
    from knowledge.masking import Masker
    from tests.fakes.slack import FakeSlack, payloads
    from tests.slack import helpers
    from tests.slack.test_followups_http import post_diagnosis, question
    from tests.support.redis_server import RedisServer
    from workers.quota import Quota

    server, slack, tmp = RedisServer(), FakeSlack().start(), Path(tempfile.mkdtemp())
    server.start()
    for i in range(n):
        (tmp / "ci" / str(1000 + i)).mkdir(parents=True)
    settings = Settings(
        REDIS_URL=server.url,
        SLACK_BOT_TOKEN=slack.bot_token,
        SLACK_SIGNING_SECRET=helpers.SECRET,
        SLACK_API_URL=slack.base_url,
        DENPEX_CHANNEL="C0ALERTS",
        DENPEX_LOG_ROOT=tmp,
        DENPEX_CLUSTER="ci",
    )
    rc = redis.Redis.from_url(server.url)
    quota = Quota(rc, free_daily=10**6)
    quota.redeem("T0DENPEX", quota.create_codes(daily_limit=10**6)[0])
    deps = build_deps(settings, Masker.default())
    deps.extra_routes.extend(slack_route_installers(settings, deps))
    runner = web.AppRunner(create_app(settings, deps))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/slack/events"  # type: ignore[union-attr]
    results: dict[str, list[float]] = {
        "ack `/denpex diagnose <id>`": [],
        "ack `/denpex help`": [],
        "thread question → answer posted": [],
    }
    thread = await asyncio.to_thread(post_diagnosis, slack, rc)
    async with aiohttp.ClientSession(trust_env=False) as session:

        async def send(body: str, ctype: str) -> float:
            headers = {**payloads.sign(body, helpers.SECRET), "Content-Type": ctype}
            start = time.perf_counter()
            async with session.post(url, data=body.encode(), headers=headers) as resp:
                await resp.read()
                assert resp.status == 200, resp.status
            return start

        form = "application/x-www-form-urlencoded"
        for i in range(n):
            start = await send(payloads.form_body(slack.slash_command(f"diagnose {1000 + i}")), form)
            results["ack `/denpex diagnose <id>`"].append(time.perf_counter() - start)
            start = await send(payloads.form_body(slack.slash_command("help")), form)
            results["ack `/denpex help`"].append(time.perf_counter() - start)
        questions = [
            "which rank failed first?",
            "show rank 12's last lines",
            "what else could it be?",
            "how do I verify the fix?",
            "is this hardware or software?",
        ]
        for i in range(n):
            before = len(slack.thread(thread))
            body = payloads.json_body(slack.event_callback(question(questions[i % 5], thread)))
            start = await send(body, "application/json")
            await slack.wait_for_async(lambda b=before: len(slack.thread(thread)) > b, timeout=10)
            results["thread question → answer posted"].append(time.perf_counter() - start)
    await runner.cleanup()
    slack.stop()
    server.stop()
    print("| what | n | p50 ms | p95 ms | max ms |\n|---|---|---|---|---|")
    for name, samples in results.items():
        print(_row(name, samples))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    asyncio.run(main(parser.parse_args().n))
