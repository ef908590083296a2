"""A Slurm job's PyTorch Flight Recorder dumps, found under its working and output directories.

torch writes a rank's dump to `<prefix><rank>`: the prefix is `TORCH_FR_DUMP_TEMP_FILE` (older:
`TORCH_NCCL_DEBUG_INFO_TEMP_FILE`), by default `~/.cache/torch/nccl_trace_rank_` in torch 2.13 (the
user's home is usually the job's working directory's ancestor or the working directory itself). The
collector looks for files matching `DENPEX_FR_GLOB` (comma-separated globs, relative to the job's
working directory and to each folder its logs went to, or absolute; `**` spans folders; Slurm's
`%j`/`%u`/`%x`/`%A`/`%a` and `$SLURM_JOB_ID`-style variables are expanded) and for the prefixes the
batch script exports. It also takes a file of any name whose first bytes are a dump's (the engine
confirms by content), when it was written while the job ran.

Each dump is read like a log: opened once with the job owner's check on the descriptor
(`tails.open_log`), never a file of another user, and at most `byte_cap` bytes. Dumps older than the
job are an earlier run's, so files are taken only when they were modified between the job's start
and shortly after its end. Walks are bounded (depth, entries visited, files taken), links to folders
are never followed, and bulky tool folders (`.git`, virtualenvs) are skipped.
"""

from __future__ import annotations

import os
import re
import stat
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import BinaryIO

from denpex.core.models import LogSource
from integrations.slurm import outputs, tails

DEFAULT_GLOB = "**/nccl_trace_rank_*"
#: folders below a base the walk descends into (`~/.cache/torch/` is two)
MAX_DEPTH = 4
#: directory entries one collect looks at, over all bases
MAX_VISITED = 20_000
#: dumps taken for one job (a 1,000-rank job writes 1,000)
MAX_DUMPS = 4096
#: files whose first bytes are read to find dumps under other names
MAX_SNIFFED = 512
SNIFF_BYTES = 4096
#: seconds a dump's mtime may lie before the job's start (clock skew of a shared file system) or after
#: its end (a slow last write, the epilog)
SLACK_SECONDS = 300.0
PRUNED = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", "site-packages"})
_PREFIX_VAR = re.compile(
    r"\b(?:TORCH_FR_DUMP_TEMP_FILE|TORCH_NCCL_DEBUG_INFO_TEMP_FILE)=(\"[^\"]*\"|'[^']*'|[^\s;&|]+)"
)
_PICKLE_KEYS = (b"pg_config", b"entries", b"pg_status", b"comm_lib_version")
_JSON_KEYS = (b'"comm_lib_version"', b'"pg_config"', b'"pg_status"')


def looks_like_dump(head: bytes) -> bool:
    """The first bytes of a Flight Recorder dump (pickle protocol 2-5, or JSON with its keys).

    Only a hint, mirroring `knowledge.flightrec.reader.sniff` (which this layer cannot import): the
    engine reads every source this module hands on by content and names a non-dump as such.
    """
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return b"version" in head and any(k in head for k in _PICKLE_KEYS)
    text = head.lstrip()
    return text.startswith(b"{") and (
        any(k in text for k in _JSON_KEYS) or (b'"entries"' in text and b'"profiling_name"' in text)
    )


@dataclass(frozen=True)
class DumpOptions:
    """What the collector looks for (`DENPEX_FR_GLOB`) and how much of one dump it reads."""

    globs: tuple[str, ...] = (DEFAULT_GLOB,)
    byte_cap: int = 256 << 20

    @classmethod
    def parse(cls, spec: str | None, byte_cap: int) -> DumpOptions:
        globs = tuple(g.strip() for g in (spec or DEFAULT_GLOB).split(",") if g.strip())
        return cls(globs=globs or (DEFAULT_GLOB,), byte_cap=byte_cap)


@dataclass(frozen=True)
class Refusal:
    """A file that looked like a dump by name but was not read, and why (for missing evidence)."""

    path: str
    problem: str
    size: int | None = None  # set when it was refused for its size


@dataclass
class Found:
    """The dumps of one job, and the named files refused."""

    sources: list[LogSource] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """An absolute glob as a regex over whole paths: `**/` any folders, `*`/`?` within a name."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
            continue
        c = pattern[i]
        if c == "*":
            out.append(".*" if pattern.startswith("**", i) else "[^/]*")
            i += 2 if pattern.startswith("**", i) else 1
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[" and (end := pattern.find("]", i + 2)) > 0:
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = end + 1
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


def _root_of(pattern: str) -> str:
    """The longest folder of an absolute glob without wildcards: where its walk starts."""
    parts = pattern.split("/")
    fixed = []
    for part in parts[:-1]:
        if any(ch in part for ch in "*?["):
            break
        fixed.append(part)
    return "/".join(fixed) or "/"


def script_prefixes(script: str | None, values: outputs.Values) -> list[str]:
    """The dump prefixes a batch script exports, expanded (`$SLURM_SUBMIT_DIR/fr-$SLURM_JOB_ID/r_`)."""
    out = []
    for m in _PREFIX_VAR.finditer(script or ""):
        value = m.group(1).strip("\"'")
        if value:
            out.append(outputs.expand_single(value, values))
    return list(dict.fromkeys(out))


def patterns(
    options: DumpOptions, bases: Sequence[str], prefixes: Sequence[str], values: outputs.Values
) -> list[str]:
    """Every absolute glob to match: `DENPEX_FR_GLOB` under each base, and `<prefix>*` per prefix."""
    out = []
    for g in options.globs:
        if os.path.isabs(g):
            out.append(outputs.expand_single(g, values))
            continue
        out += [outputs.expand_single(os.path.join(b, g), values) for b in bases]
    out += [p + "*" for p in prefixes]
    return list(dict.fromkeys(out))


@dataclass
class _Walk:
    """Budgets shared by every base of one collect."""

    visited: int = 0
    sniffed: int = 0


def _entries(root: str, walk: _Walk) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Files under `root`, breadth first, to MAX_DEPTH, within the shared MAX_VISITED budget."""
    queue: deque[tuple[str, int]] = deque([(root, 0)])
    while queue and walk.visited < MAX_VISITED:
        folder, depth = queue.popleft()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            walk.visited += 1
            if walk.visited > MAX_VISITED:
                return
            try:
                if e.is_dir(follow_symlinks=False):
                    if depth < MAX_DEPTH and e.name not in PRUNED:
                        queue.append((e.path, depth + 1))
                elif e.is_file():  # a link to a file is checked on the open descriptor, as logs are
                    yield e.path, e
            except OSError:
                continue


def _window(start: datetime | None, end: datetime | None) -> tuple[float | None, float | None]:
    lo = start.timestamp() - SLACK_SECONDS if start else None
    hi = end.timestamp() + SLACK_SECONDS if end else None
    return lo, hi


def find(
    options: DumpOptions,
    *,
    bases: Sequence[str],
    prefixes: Sequence[str],
    values: outputs.Values,
    owner: int | None,
    start: datetime | None,
    end: datetime | None,
    skip: set[str],
) -> Found:
    """The job's dumps as `flight_recorder` sources (named relative to the working directory)."""
    globs = patterns(options, bases, prefixes, values)
    regexes = [glob_regex(g) for g in globs]
    roots = _roots([*bases, *(_root_of(g) for g in globs)])  # the bases for dumps found by content
    lo, hi = _window(start, end)
    found, walk, seen = Found(), _Walk(), set(skip)
    for root in roots:
        for path, entry in _entries(root, walk):
            if path in seen or len(found.sources) >= MAX_DUMPS:
                continue
            seen.add(path)
            named = any(rx.fullmatch(path) for rx in regexes)
            src = _take(path, entry, named, options, owner, (lo, hi), walk, found)
            if src is not None:
                base = values.work_dir or ""
                name = os.path.relpath(path, base) if base and path.startswith(base + "/") else path
                src.name = name
                found.sources.append(src)
    return found


def _roots(roots: list[str]) -> list[str]:
    """Distinct walk roots, a root inside another dropped (its files come with the outer walk)."""
    out: list[str] = []
    for r in sorted(set(roots), key=len):
        if not any(r == o or r.startswith(o.rstrip("/") + "/") for o in out):
            out.append(r)
    return out


def _take(
    path: str,
    entry: os.DirEntry[str],
    named: bool,
    options: DumpOptions,
    owner: int | None,
    window: tuple[float | None, float | None],
    walk: _Walk,
    found: Found,
) -> LogSource | None:
    """A dump source for `path`, or None (refusals of named files are recorded in `found`)."""
    lo, hi = window
    try:
        st = entry.stat()
    except OSError:
        return None
    if (lo is not None and st.st_mtime < lo) or (hi is not None and st.st_mtime > hi):
        return None  # an earlier (or later) job's dump
    if not named:
        if (
            lo is None
            or st.st_size < 16
            or walk.sniffed >= MAX_SNIFFED
            or (owner is not None and st.st_uid != owner)
        ):
            return None  # by content only while the job's start is known; never peek at others' files
        walk.sniffed += 1
    try:
        fh = tails.open_log(path, owner)
    except OSError as exc:
        if named:
            found.refused.append(Refusal(path, exc.strerror or str(exc)))
        return None
    if fh is None:
        if named:
            found.refused.append(Refusal(path, "not a regular file owned by the job's user, not read"))
        return None
    size = os.fstat(fh.fileno()).st_size
    if not named and not looks_like_dump(os.pread(fh.fileno(), SNIFF_BYTES, 0)):
        fh.close()
        return None
    if size > options.byte_cap:
        fh.close()
        found.refused.append(Refusal(path, "too large", size))
        return None
    return LogSource(name=path, kind="flight_recorder", chunks=capped(fh, options.byte_cap))


def capped(fh: BinaryIO, cap: int) -> Callable[[], Iterator[bytes]]:
    """A `LogSource.chunks` callable: the opened file by offset, at most `cap` bytes (never reopened)."""

    def chunks() -> Iterator[bytes]:
        offset = 0
        try:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return
            while offset < cap:
                chunk = os.pread(fh.fileno(), min(1 << 20, cap - offset), offset)
                if not chunk:
                    return
                offset += len(chunk)
                yield chunk
        except (OSError, ValueError):  # closed meanwhile
            return

    return chunks
