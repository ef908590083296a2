"""Scanning a job's sources on several cores (`denpex diagnose --jobs N`, `DENPEX_SCAN_JOBS`).

Each source is scanned exactly as on one core, by a forked copy of the engine's `Scanner`: the fork
gives every process its own chunk buffer and Hyperscan scratch space without loading or compiling
anything again, and the scans come back over a pipe and are put in source order, so the diagnosis
is the one `--jobs 1` gives. Processes, not threads: the scanner's Python bookkeeping holds the GIL.

A pool costs a few milliseconds of forking, so small jobs (one source, or less than
`PARALLEL_MIN_BYTES` in all) and sources streamed from a remote API (a forked copy must not share
the parent's connection) are scanned in the calling process. A process that dies leaves its sources
unanswered; the caller scans those itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from denpex.core.models import LogSource

if TYPE_CHECKING:
    from knowledge.scanner import Scanner, SourceScan

#: below this many bytes in all, forking costs more than the scan saves
PARALLEL_MIN_BYTES = 16 << 20

Progress = Callable[[int], None] | None


def resolve_jobs(jobs: int | None) -> int:
    """`jobs` processes; 0 or None mean one per CPU this process may run on."""
    if jobs:
        return max(1, jobs)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def scan_all(
    scanner: Scanner, sources: Sequence[LogSource], year: int, jobs: int, progress: Progress = None
) -> list[SourceScan]:
    """Every source scanned, in order; on up to `jobs` processes when the job is big enough."""
    sizes = [_size(s) for s in sources]
    able = [i for i, s in enumerate(sources) if s.chunks is None and sizes[i] is not None]
    total = sum(sizes[i] or 0 for i in able)
    if jobs <= 1 or len(able) < 2 or total < PARALLEL_MIN_BYTES or _daemonic():
        return _serial(scanner, sources, year, progress)
    order = sorted(able, key=lambda i: -(sizes[i] or 0))  # largest first: the last to finish is small
    found = _forked(scanner, sources, year, min(jobs, len(order)), order, progress)
    out: list[SourceScan] = []
    for i, src in enumerate(sources):
        got = found.get(i)
        if isinstance(got, BaseException):
            raise got  # as on one core: the first source that cannot be read stops the scan
        out.append(got if got is not None else scanner.scan(src, year))
    return out


def _serial(
    scanner: Scanner, sources: Sequence[LogSource], year: int, progress: Progress
) -> list[SourceScan]:
    out = []
    done = 0
    for src in sources:
        base = done

        def tick(n: int, base: int = base) -> None:
            if progress is not None:
                progress(base + n)

        scan = scanner.scan(src, year, tick)
        done += scan.bytes
        out.append(scan)
    return out


def _forked(
    scanner: Scanner,
    sources: Sequence[LogSource],
    year: int,
    procs: int,
    order: list[int],
    progress: Progress,
) -> dict[int, Any]:
    """Source index -> its scan (or the exception it raised), for the sources the processes finished."""
    import multiprocessing
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context("fork")  # the children inherit the compiled engine as it is
    cursor = ctx.Value("i", 0)
    readers, workers = [], []
    for _ in range(procs):
        r, w = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_work, args=(scanner, sources, order, year, cursor, w), daemon=True)
        p.start()
        w.close()
        readers.append(r)
        workers.append(p)
    found: dict[int, Any] = {}
    done = 0
    try:
        while readers:
            for ready in wait(readers):
                conn = readers[readers.index(ready)]  # type: ignore[arg-type]  # one of `readers`
                try:
                    i, got = conn.recv()
                except EOFError:
                    readers.remove(conn)
                    continue
                if not isinstance(got, BaseException):
                    got.source = sources[i]
                    done += got.bytes
                    if progress is not None:
                        progress(done)
                found[i] = got
    finally:
        for p in workers:
            p.join(timeout=5)
            if p.is_alive():  # pragma: no cover - only a stuck child
                p.kill()
    return found


def _work(
    scanner: Scanner, sources: Sequence[LogSource], order: list[int], year: int, cursor: Any, out: Any
) -> None:
    """A child: take the next source index, scan it, send the scan (without its unpicklable source)."""
    blank = LogSource(name="")
    try:
        while True:
            with cursor.get_lock():
                k = cursor.value
                cursor.value = k + 1
            if k >= len(order):
                return
            i = order[k]
            try:
                got: Any = replace(scanner.scan(sources[i], year), source=blank)
            except Exception as exc:  # sent back and raised by the parent, as one core would
                got = exc
            try:
                out.send((i, got))
            except Exception as exc:  # an exception that cannot be pickled: its text still arrives
                out.send((i, RuntimeError(f"{type(exc).__name__}: {exc}")))
    finally:
        out.close()


def _daemonic() -> bool:
    """A daemonic multiprocessing child may not start processes of its own: it scans alone."""
    import multiprocessing

    return bool(multiprocessing.current_process().daemon)


def _size(src: LogSource) -> int | None:
    """Bytes of a source, None when unknown (streamed)."""
    try:
        if src.data is not None:
            return len(src.data)
        if src.file is not None:
            return os.fstat(src.file.fileno()).st_size
        if src.path is not None:
            return src.path.stat().st_size
    except OSError:
        return 0  # scanned (and reported) like any other source
    return None
