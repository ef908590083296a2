"""`denpex diagnose PATH… [--format text|json]`: the engine on local files.

JSON on stdout is the public contract (ARCHITECTURE.md). The text form is for a person at a
terminal. Exit 0 whenever a diagnosis was produced, even an inconclusive one; exit 2 with one line
on stderr for unreadable input or an invalid knowledge entry. A progress bar appears on stderr only
for scans big enough to take a moment.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from denpex.core.texts import cli as texts

if TYPE_CHECKING:
    import typer

PROGRESS_MIN_BYTES = 256 << 20


class BadArguments(Exception):
    """The command line does not parse; `str()` is argparse's one-line reason."""


def register(app: typer.Typer) -> None:
    import typer

    @app.command("diagnose", help=texts.DIAGNOSE_HELP)
    def diagnose(
        paths: list[Path] = typer.Argument(..., help=texts.PATHS_HELP),
        fmt: str = typer.Option("text", "--format", "-f", help=texts.FORMAT_HELP),
        entries: Path | None = typer.Option(
            None, "--entries", envvar="DENPEX_ENTRIES", help=texts.ENTRIES_HELP
        ),
        jobs: int = typer.Option(0, "--jobs", "-j", min=0, help=texts.JOBS_HELP),
    ) -> None:
        raise typer.Exit(run(paths, fmt, entries, jobs))


def fast_path(argv: list[str]) -> int | None:
    """`denpex diagnose …` without Typer (its import and parsing cost ~0.15 s, most of a short run).

    Only the plain forms are handled here: paths, `--format/-f`, `--entries` (and `DENPEX_ENTRIES`).
    Anything else (`--help`, an unknown option, no path) returns None and goes through Typer, so its
    help and error messages stay the one source of truth.
    """
    import argparse
    import os

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # one line of ours, not argparse's usage block
            raise BadArguments(message)

    parser = Parser(add_help=False, allow_abbrev=False, exit_on_error=False)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--format", "-f", dest="fmt", default="text")
    parser.add_argument("--entries", type=Path, default=None)
    parser.add_argument("--jobs", "-j", type=_jobs, default=0)  # a bad value: Typer says why
    if any(a in ("--help", "-h", "--") for a in argv):
        return None
    try:
        ns, rest = parser.parse_known_args(argv)
    except (argparse.ArgumentError, BadArguments) as exc:
        if _typer_only(argv):
            return None
        print(texts.bad_arguments(str(exc)), file=sys.stderr)
        return 2
    if rest:
        if _typer_only(rest):
            return None  # an option of the command that this fast parser does not know
        print(texts.bad_arguments(f"unknown option {rest[0]!r}"), file=sys.stderr)
        return 2
    entries = ns.entries
    if entries is None and os.environ.get("DENPEX_ENTRIES"):
        entries = Path(os.environ["DENPEX_ENTRIES"])
    return run(list(ns.paths), ns.fmt, entries, ns.jobs)


def _jobs(value: str) -> int:
    """`--jobs N`: N ≥ 0 (0, the default, is one process per CPU)."""
    n = int(value)
    if n < 0:
        raise ValueError(value)
    return n


def _typer_only(args: list[str]) -> bool:
    """True when `args` hold an option Typer's `diagnose` has and the fast parser lacks (Typer parses
    them); every other bad command line is one line from the fast path, never a usage block."""
    import typer

    from denpex.cli import create_cli

    group = typer.main.get_command(create_cli())
    command = group.commands["diagnose"]  # type: ignore[attr-defined]
    known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    fast = {"--format", "-f", "--entries"}
    return any(a.split("=", 1)[0] in known - fast for a in args if a.startswith("-"))


def run(paths: list[Path], fmt: str, entries: Path | None = None, jobs: int = 0) -> int:
    """The command body, separate from Typer so tests and other commands can call it. `jobs`: processes
    that scan sources (0: one per CPU; small jobs are scanned in this process whatever it says)."""
    from knowledge.engine import Engine
    from knowledge.parallel import resolve_jobs
    from knowledge.schema import EntryError
    from knowledge.sources import UnreadableInput, discover

    if fmt not in ("text", "json"):
        print(texts.bad_format(fmt), file=sys.stderr)
        return 2
    from denpex.core.models import MissingEvidence
    from knowledge.wording import unreadable_file

    skipped: list[MissingEvidence] = []  # one unreadable file is named, the rest is still diagnosed

    def skip(path: Path, message: str) -> None:
        what, action = unreadable_file(message)
        skipped.append(MissingEvidence(what=what, next_action=action))

    try:
        srcs = discover(paths, on_unreadable=skip)
    except UnreadableInput as exc:
        print(texts.unreadable(str(exc)), file=sys.stderr)
        return 2
    if not srcs:
        print(texts.unreadable(skipped[0].what) if skipped else texts.no_sources(), file=sys.stderr)
        return 2
    try:
        engine = Engine.load(entries, cache_dir=_cache_dir())
    except EntryError as exc:
        print(texts.bad_knowledge(str(exc)), file=sys.stderr)
        return 2
    total = sum(_size(s.path) for s in srcs)
    try:
        if total >= PROGRESS_MIN_BYTES and sys.stderr.isatty():
            diag = _with_progress(engine, srcs, total, skipped, resolve_jobs(jobs))
        else:
            diag = engine.diagnose(srcs, missing=skipped, jobs=resolve_jobs(jobs))
    except OSError as exc:  # a file vanished or became unreadable mid-scan
        print(texts.unreadable(f"{exc.filename or ''}: {exc.strerror or exc}".strip(": ")), file=sys.stderr)
        return 2
    except Exception as exc:  # a bug must still be one line for a person; DENPEX_DEBUG=1 shows the trace
        import os

        if os.environ.get("DENPEX_DEBUG"):
            raise
        print(texts.internal_error(f"{type(exc).__name__}: {exc}"), file=sys.stderr)
        return 3
    if fmt == "json":
        sys.stdout.write(diag.model_dump_json(indent=2) + "\n")
    else:
        render(diag)
    return 0


def _cache_dir() -> Path | None:
    """Where the compiled pattern database is kept: `$DENPEX_CACHE_DIR`, else the XDG cache."""
    import os

    if os.environ.get("DENPEX_CACHE_DIR"):
        return Path(os.environ["DENPEX_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "denpex"


def _size(path: Path | None) -> int:
    try:
        return path.stat().st_size if path is not None else 0
    except OSError:
        return 0


def _with_progress(engine, srcs, total, missing=(), jobs=1):
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

    with Progress(
        TextColumn(texts.SCANNING),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("scan", total=total)
        return engine.diagnose(
            srcs, missing=missing, progress=lambda n: bar.update(task, completed=n), jobs=jobs
        )


def render(diag) -> None:
    """The text form: what a person needs first (who, why, fix, verify), then the evidence."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from denpex.core.texts import collateral as collateral_texts
    from knowledge.wording import ranges

    out = Console(highlight=False)
    title = f" — {escape(diag.entry.title)}" if diag.entry else ""
    out.rule(f"[bold]{texts.HEADING}[/]{title}")
    out.print(f"[bold]{texts.confidence_line(diag.category, diag.confidence)}[/]")
    ini = diag.initiating
    seen = texts.ranks_seen(diag.stats.files, diag.stats.ranks)
    line = texts.initiating_line(
        ini.rank, ini.node, ini.time, ini.time_borrowed, category=diag.category, ranks_seen=seen
    )
    out.print(f"[bold]{texts.INITIATING}:[/] {escape(line)}")
    if diag.suspect_ranks:  # every rank the Flight Recorder dumps implicate, with why (a few)
        from denpex.core.texts import flightrec as fr_texts

        out.print(f"[bold]{escape(fr_texts.suspects_line(diag.suspect_ranks))}[/]")
        for s in diag.collectives.suspects[:8]:
            out.print(f"  {escape(fr_texts.suspect_detail(s.rank, s.why[:200]))}")
    for head, body in ((texts.ROOT_CAUSE, diag.root_cause), (texts.FIX, diag.fix)):
        if body:
            out.print(f"\n[bold]{head}[/]\n{escape(body)}")
    if diag.fix_snippet:  # code and commands are never wrapped: a wrapped command breaks when copied
        out.print(f"\n{escape(diag.fix_snippet)}", soft_wrap=True)
    if diag.verify:
        out.print(f"\n[bold]{texts.VERIFY}[/]\n  [cyan]{escape(diag.verify)}[/]", soft_wrap=True)
    if ini.evidence:
        out.print(f"\n[bold]{texts.EVIDENCE}[/]")
        for ev in ini.evidence:
            out.print(f"  [dim]{escape(ev.ref)}[/]  {escape(ev.text[:300])}")
    if diag.collateral:
        table = Table(title=texts.COLLATERAL, title_justify="left", show_edge=False)
        for col in texts.COLLATERAL_COLUMNS:
            table.add_column(col)
        for g in diag.collateral:  # what happened to the ranks in their own terms, not the category
            table.add_row(
                ranges(g.ranks),
                escape(collateral_texts.row(g.what, g.category)),
                texts.group_time(g.first_time, g.first_time_borrowed),
                escape(g.why),
            )
        out.print()
        out.print(table)
    if diag.missing_evidence:
        out.print(f"\n[bold]{texts.MISSING}[/]")
        for m in diag.missing_evidence:
            out.print(f"  - {escape(m.what)}: {escape(m.next_action)}")
    if diag.alternatives:
        out.print(f"\n[bold]{texts.ALTERNATIVES}:[/] " + ", ".join(escape(a.id) for a in diag.alternatives))
    st = diag.stats
    out.print(f"\n[dim]{texts.stats_line(st.files, st.ranks, st.bytes, st.seconds)}[/]")
