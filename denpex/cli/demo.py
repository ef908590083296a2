"""`denpex demo`: the whole pipeline on this machine with embedded defaults (README's first command).

A private redis-server (unless REDIS_URL is set), the webhook server on a free 127.0.0.1 port, one
`denpex worker`, and a SIGNED `/hooks/job` webhook for the bundled failed 8-rank job; then it waits
for the diagnosis and prints the Slack thread Denpex would post — or posts it when SLACK_BOT_TOKEN and
DENPEX_CHANNEL are set. Everything it started is stopped and removed on the way out.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from denpex.core.texts import service as texts

if TYPE_CHECKING:
    from pydantic import SecretStr

    from denpex.cli._demo_support import Proc
    from denpex.core.models import Diagnosis
    from denpex.core.settings import Settings
    from workers.store import Store


def register(app: typer.Typer) -> None:
    @app.command("demo", help=texts.DEMO_HELP)
    def demo(
        timeout: float = typer.Option(60.0, "--timeout", help="Seconds to wait for the diagnosis."),
        keep: bool = typer.Option(False, "--keep", help=texts.KEEP_HELP),
    ) -> None:
        raise typer.Exit(run(timeout=timeout, keep=keep))


def run(*, timeout: float = 60.0, keep: bool = False) -> int:
    from denpex.cli import _demo_support as support
    from denpex.cli._runtime import configure_logging
    from denpex.core.settings import Settings

    configure_logging("WARNING")
    workdir = support.make_workdir()
    started: list[Proc] = []
    try:
        settings = Settings()
        redis_url = settings.redis_url or ""
        if not redis_url and not settings.sentinels:  # Sentinel configured: the demo uses it
            proc, redis_url = support.start_redis(workdir)
            started.append(proc)
        return asyncio.run(_pipeline(settings, redis_url, workdir, started, timeout, keep))
    except RuntimeError as exc:
        print(texts.error("demo", str(exc)), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        for proc in reversed(started):
            proc.stop()
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)


async def _pipeline(
    settings: Settings, redis_url: str, workdir: Path, started: list[Proc], wait_seconds: float, keep: bool
) -> int:
    from aiohttp import web

    from bot.server import build_deps, create_app
    from denpex.cli import _demo_support as support
    from denpex.demo import LOGS
    from knowledge.masking import Masker

    secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else secrets.token_hex(16)
    job_id = f"llama-ft-{int(time.time())}-{secrets.token_hex(2)}"
    log_root = workdir / "logs"
    support.stage_logs(LOGS, log_root, "demo", job_id)
    settings = settings.model_copy(
        update={"redis_url": redis_url or None, "log_root": log_root, "webhook_secret": _secret_str(secret)}
    )
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "DENPEX_LOG_ROOT": str(log_root),
        "DENPEX_WEBHOOK_SECRET": secret,
        "DENPEX_LOG_LEVEL": "WARNING",
    }
    worker_log = (workdir / "worker.log").open("wb")
    worker = support.start_worker(env, worker_log)
    started.append(worker)
    runner = web.AppRunner(create_app(settings, build_deps(settings, Masker.default())), access_log=None)
    await runner.setup()
    port = support.free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    url = f"http://127.0.0.1:{port}"
    print(
        texts.demo_banner(url, redis_url or f"DENPEX_REDIS_SENTINELS={settings.redis_sentinels}"),
        file=sys.stderr,
    )
    from denpex.core.texts import web as web_texts  # on stdout: stderr names only the two listeners

    print(web_texts.demo_urls(url, bool(settings.web_token or settings.web_trusted_header)))
    try:
        return await _send_and_show(settings, url, secret, job_id, wait_seconds, workdir, keep, worker)
    finally:
        await runner.cleanup()
        worker_log.close()


def _secret_str(value: str) -> SecretStr:
    from pydantic import SecretStr

    return SecretStr(value)


async def _post_webhook(url: str, secret: str, job_id: str) -> dict[str, Any]:
    import json

    import aiohttp

    from integrations.signing import sign

    body = json.dumps(
        {
            "cluster": "demo",
            "job_id": job_id,
            "state": "FAILED",
            "exit_code": "1:0",
            "user": "alice",
            "name": "llama-ft",
        }
    ).encode()
    async with aiohttp.ClientSession() as session:
        headers = {"Content-Type": "application/json", **sign(secret, body, path="/hooks/job")}
        async with session.post(f"{url}/hooks/job", data=body, headers=headers) as resp:
            return dict(await resp.json())


async def _wait(
    store: Store, job_key: str, posting: bool, wait_seconds: float, worker: Proc
) -> Diagnosis | None:
    """The diagnosis (and, when posting, the finished post), or None on timeout or a dead worker."""
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline and worker.popen.poll() is None:
        diagnosis = store.load_diagnosis(job_key)
        if diagnosis is not None and (not posting or store.post_journal(job_key).posted):
            return diagnosis
        await asyncio.sleep(0.05)
    return None


async def _send_and_show(
    settings: Settings,
    url: str,
    secret: str,
    job_id: str,
    wait_seconds: float,
    workdir: Path,
    keep: bool,
    worker: Proc,
) -> int:
    from denpex.cli import _demo_support as support
    from denpex.cli._runtime import make_renderer, redis_client
    from knowledge.schema import ENTRIES_DIR, load_entries
    from workers.store import Store

    t0 = time.monotonic()
    answer = await _post_webhook(url, secret, job_id)
    job_key = answer.get("job_key", f"files:demo:{job_id}")
    print(texts.demo_sent(job_key, answer.get("status", answer.get("error", "?"))), file=sys.stderr)
    entries = {e.id: e for e in await asyncio.to_thread(load_entries, ENTRIES_DIR)}
    redis_url = settings.redis_url or ""  # set by _pipeline (the demo's own server when unset)
    store = Store(redis_client(settings), result_ttl=settings.result_ttl_seconds)
    posting = bool(settings.slack_bot_token and settings.channel)
    diagnosis = await _wait(store, job_key, posting, wait_seconds, worker)
    if diagnosis is None:
        record = store.load_job(job_key)
        problem = texts.demo_timeout(time.monotonic() - t0, record.state if record else "missing")
        print(texts.error("demo", problem), file=sys.stderr)
        print((workdir / "worker.log").read_text(errors="replace")[-4000:], file=sys.stderr)
        return 1
    elapsed = time.monotonic() - t0
    record = store.load_job(job_key)
    assert record is not None
    if posting:
        journal = store.post_journal(job_key)
        print(texts.demo_posted(journal.channel or "?", journal.ts or "?"))
    else:
        renderer = make_renderer(entries)
        support.print_thread(
            renderer.root_message(record.job, diagnosis, quota_note=None),
            renderer.thread_messages(record.job, diagnosis),
            renderer.evidence_file(record.job, diagnosis),
            texts.DEMO_HEADING,
        )
    print(texts.demo_timing(elapsed), file=sys.stderr)
    if keep:
        print(texts.demo_keep(url, redis_url), file=sys.stderr)
        await asyncio.Event().wait()
    return 0
