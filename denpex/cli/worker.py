"""`denpex worker`: RQ worker processes running the failure pipeline, supervised.

The context (engine, masker, Slack client, renderer, quota gate) is built once in the supervisor and
inherited by each forked worker, which forks a work-horse per job. A worker that exits (e.g. RQ
quits after a Redis timeout) is restarted; SIGTERM/SIGINT stop them all after their current job.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import time
from pathlib import Path
from typing import Any

import typer

from denpex.core.texts import service as texts

#: a worker that exited is restarted, but not sooner than this after its previous start
RESTART_SECONDS = 2.0


def register(app: typer.Typer) -> None:
    @app.command("worker", help=texts.WORKER_HELP)
    def worker(
        processes: int = typer.Option(1, "--processes", "-n", min=1, max=64, help=texts.PROCESSES_HELP),
        burst: bool = typer.Option(False, "--burst", help=texts.BURST_HELP),
        maintenance_interval: int = typer.Option(15, min=1, help=texts.MAINTENANCE_HELP),
        monitoring_interval: int = typer.Option(5, min=1, help=texts.MONITORING_HELP),
        heartbeat_grace: int = typer.Option(10, min=1, help=texts.GRACE_HELP),
        collector: list[str] = typer.Option([], "--collector", help=texts.COLLECTOR_HELP),
        entries: Path | None = typer.Option(
            None, "--entries", envvar="DENPEX_ENTRIES", help=texts.ENTRIES_HELP
        ),
    ) -> None:
        options = {
            "maintenance_interval": maintenance_interval,
            "monitoring_interval": monitoring_interval,
            "heartbeat_grace": heartbeat_grace,
        }
        raise typer.Exit(
            run(processes=processes, burst=burst, collectors=collector, entries=entries, options=options)
        )


def _child(ctx: Any, burst: bool, options: dict[str, Any]) -> None:
    from workers.runner import die_with_parent, run_worker

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(signal.SIGTERM)  # supervisor gone: warm shutdown after the current job
    run_worker(ctx, burst=burst, logging_level=ctx.settings.log_level, **options)


def parse_collectors(specs: list[str]) -> dict[Any, str]:
    """`slurm=integrations.files:create_collector` → {Scheduler.slurm: "integrations.files:..."}."""
    from denpex.core.models import Scheduler

    out: dict[Any, str] = {}
    for spec in specs:
        name, sep, target = spec.partition("=")
        if not sep or name not in Scheduler.__members__ or ":" not in target:
            raise ValueError(texts.bad_collector(spec))
        out[Scheduler(name)] = target
    return out


def run(
    *,
    processes: int = 1,
    burst: bool = False,
    collectors: list[str] | None = None,
    entries: Path | None = None,
    options: dict[str, Any] | None = None,
) -> int:
    """Build the context once, then supervise `processes` forked workers (restarted if they exit)."""
    from denpex.cli._runtime import StartupError, build_worker_context, configure_logging
    from denpex.core.settings import MissingSetting, Settings

    settings = Settings()
    configure_logging(settings.log_level)
    try:
        ctx = build_worker_context(settings, collectors=parse_collectors(collectors or []), entries=entries)
    except (MissingSetting, StartupError, ValueError) as exc:
        print(texts.error("worker", str(exc)), file=sys.stderr)
        return 2
    if ctx.slack is None:  # said once, here, not per job
        unset = [
            n
            for n, v in (("SLACK_BOT_TOKEN", settings.slack_bot_token), ("DENPEX_CHANNEL", settings.channel))
            if not v
        ]
        print(texts.worker_prints(unset or ["Slack posting"]), file=sys.stderr, flush=True)
    ctx.collectors.preload()  # imported once here, inherited by every forked work-horse
    return _supervise(ctx, processes, burst, options or {})


def _supervise(ctx: Any, processes: int, burst: bool, options: dict[str, Any]) -> int:
    fork = multiprocessing.get_context("fork")
    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def spawn() -> Any:
        child = fork.Process(target=_child, args=(ctx, burst, options), daemon=False)
        child.start()
        child.started_at = time.monotonic()  # type: ignore[attr-defined]
        return child

    children = [spawn() for _ in range(processes)]
    while not stopping:
        alive = False
        for i, child in enumerate(children):
            if child.is_alive():
                alive = True
            elif not burst:
                alive = True
                if time.monotonic() - child.started_at >= RESTART_SECONDS:  # no tight crash loop
                    children[i] = spawn()
        if not alive:
            break
        time.sleep(0.5)
    for child in children:
        if child.is_alive() and child.pid:
            child.terminate()  # RQ: warm shutdown, finishes the current job
    for child in children:
        child.join(timeout=60)
    return 0
