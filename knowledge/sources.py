"""Turning files and folders into `LogSource`s, with rank, node and kind inferred from names.

Sites name their logs every way a launcher allows (`rank3.log`, `job_123_3.out` from Slurm's
`--output=%j_%t`, `train-worker-3.log`, `node-gpu12.dmesg`, `combined.log`), so the name is only a
hint: the engine still reads rank prefixes inside every file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from denpex.core.models import LogSource, SourceKind


class UnreadableInput(Exception):
    """A path given to the engine cannot be read. `str()` is a one-line message naming the path."""


_KERNEL_NAME = re.compile(r"(?:^|[._-])(?:dmesg|kern(?:el)?(?:\.log)?|syslog|journal)(?:[._-]|$)", re.I)
#: `slurm*.log`, `*.sacct`, `scheduler*`: scheduler facts (`slurm-<job>.out` is the job's own output)
_SCHED_NAME = re.compile(
    r"(?:^slurm.*\.log$|\.sacct$|^sacct|^scheduler|^scontrol|kube.?events|pod.?status)", re.I
)
_RANK_PATTERNS = (
    re.compile(r"(?:^|[^a-z])rank[_-]?(\d{1,6})(?:\D|$)", re.I),
    re.compile(r"(?:^|[^a-z])(?:worker|proc|task|process|gpu)[_-]?(\d{1,6})(?:\D|$)", re.I),
    re.compile(r"^[a-z]*[_-]?\d+_(\d{1,6})\.(?:out|err|log|txt)$", re.I),
    re.compile(r"[a-z][a-z0-9]*-(\d{1,6})\.(?:out|err|log|txt)$", re.I),
)
_NODE_FROM_KERNEL = (
    re.compile(r"^(?:node|host)[_-](.+?)(?:\.(?:dmesg|kern(?:\.log)?|log|txt|journal))+$", re.I),
    re.compile(r"^(?:dmesg|kern(?:el)?|syslog|journal)[_.-](.+?)(?:\.(?:log|txt|dmesg))*$", re.I),
    re.compile(r"^(.+?)[_.-](?:dmesg|kern(?:el)?|syslog|journal)(?:\.(?:log|txt))*$", re.I),
)
#: torchrun `--log-dir`: `<dir>/<run id>/attempt_<N>/<local rank>/{stdout,stderr}.log` (and `error.json`)
_TORCHRUN_FILE = re.compile(r"(?:^|/)attempt_[0-9]+/([0-9]{1,6})/(?:stdout\.log|stderr\.log|error\.json)$")
_NODE_GENERIC = re.compile(r"(?:^|[_.-])(?:node|host)[_-]([a-z0-9][a-z0-9.-]*?)(?:[_.]|$)", re.I)


def infer_kind(name: str) -> SourceKind:
    if torchrun_local_rank(name) is not None:
        return "rank" if torchrun_node(name) is None else "combined"
    base = os.path.basename(name)
    if _KERNEL_NAME.search(base) or base.lower().endswith(".dmesg"):
        return "kernel"
    if _SCHED_NAME.search(base):
        return "scheduler"
    return "rank" if infer_rank(base) is not None else "combined"


def torchrun_local_rank(name: str) -> int | None:
    """The local rank of a file in torchrun's `--log-dir` layout (`…/attempt_0/3/stderr.log`), else None."""
    m = _TORCHRUN_FILE.search(name.replace(os.sep, "/"))
    return int(m.group(1)) if m else None


def torchrun_node(name: str) -> str | None:
    """The host folder above a torchrun log folder (`gpu-07/<run id>/attempt_0/3/stderr.log`), if any.

    torchrun numbers its folders by LOCAL rank: on one node that is the global rank, but log folders
    gathered from several nodes repeat 0..N-1, so there the files are per-node streams, not ranks.
    """
    parts = name.replace(os.sep, "/").split("/")
    if torchrun_local_rank(name) is None or len(parts) < 5:
        return None
    host = parts[-5]
    return host if _HOST_DIR.match(host) else None


def infer_rank(name: str) -> int | None:
    """The rank a file name encodes, or None (`rank3.log`, `job_123_3.out`, `train-worker-3.log`,
    torchrun's `attempt_0/3/stderr.log` when the logs come from one node)."""
    if (local := torchrun_local_rank(name)) is not None:
        return local if torchrun_node(name) is None else None
    base = os.path.basename(name)
    if base.lower().startswith("slurm-"):  # Slurm's default `slurm-%j.out` / `slurm-%A_%a.out`: job ids
        return None
    for pattern in _RANK_PATTERNS:
        m = pattern.search(base)
        if m:
            return int(m.group(1))
    return None


def infer_node(name: str, kind: SourceKind) -> str | None:
    if (host := torchrun_node(name)) is not None:
        return host
    base = os.path.basename(name)
    if kind == "kernel":
        for pattern in _NODE_FROM_KERNEL:
            m = pattern.match(base)
            if m and m.group(1).lower() not in {"log", "dmesg"}:
                return m.group(1)
        return None
    m = _NODE_GENERIC.search(base)
    return m.group(1) if m else None


_HOST_DIR = re.compile(
    r"^(?!(?:rank|worker|task|proc|logs?|job|run|out|attempt)[_-]?\d*$)[a-z][\w.-]*\d[\w.-]*$", re.I
)


def node_from_folder(name: str) -> str | None:
    """`gpu-07/rank3.log`: a per-node folder (a name with a digit that is not a rank/job folder)."""
    parent = os.path.dirname(name)
    base = os.path.basename(parent) if parent else ""
    return base if base and _HOST_DIR.match(base) else None


def complete(source: LogSource) -> LogSource:
    """Fill in `kind`, `rank` and `node` a collector left `None`, from the source's name."""
    kind = source.kind or infer_kind(source.name)
    rank = source.rank
    if rank is None and kind == "rank":
        rank = infer_rank(source.name)
    node = (
        source.node
        if source.node is not None
        else infer_node(source.name, kind) or node_from_folder(source.name)
    )
    if (kind, rank, node) == (source.kind, source.rank, source.node):
        return source
    return source.model_copy(update={"kind": kind, "rank": rank, "node": node})


class RawReader(Protocol):
    """What the scanner reads a file through: `readinto` its buffer (no copies), then `close`."""

    def readinto(self, buffer: memoryview, /) -> int | None: ...

    def close(self) -> None: ...


class _ByOffset:
    """Reads a collector's open file from its start with `preadv`, and leaves it open.

    The descriptor is the one the collector checked, so it is read where it stands: its own offset is
    never moved (another reader, a Flight Recorder sniff, a second scan all start at 0), and it is
    not closed here (the source owns it).
    """

    def __init__(self, fd: int) -> None:
        self._fd, self._pos = fd, 0

    def readinto(self, buffer: memoryview, /) -> int:
        n = os.preadv(self._fd, [buffer], self._pos)
        self._pos += n
        return n

    def close(self) -> None:
        pass


def open_reader(source: LogSource) -> RawReader | None:
    """The raw file the scanner reads `source` from: the file a collector opened and handed on (never
    reopened by path), else `path` opened now; None for in-memory and streamed sources."""
    if source.data is not None or source.chunks is not None:
        return None
    if source.file is not None:
        return _ByOffset(source.file.fileno())
    if source.path is not None:
        return source.path.open("rb", buffering=0)
    return None


def _check_readable(path: Path) -> None:
    try:
        with path.open("rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise UnreadableInput(f"cannot read {path}: {exc.strerror or exc}") from exc


def discover(
    paths: Sequence[Path], on_unreadable: Callable[[Path, str], None] | None = None
) -> list[LogSource]:
    """Files and folders to sources (folders recursively, hidden files skipped, stable order).

    Raises `UnreadableInput` with a one-line message for a path that does not exist or cannot be read;
    with `on_unreadable`, a file that exists but cannot be read is reported there and skipped instead.
    """
    files: list[tuple[Path, str]] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise UnreadableInput(f"no such file or directory: {path}")
        if path.is_dir():
            try:
                found = sorted(p for p in path.rglob("*") if p.is_file() and not _hidden(p, path))
            except OSError as exc:
                raise UnreadableInput(f"cannot list {path}: {exc.strerror or exc}") from exc
            files.extend((p, str(p.relative_to(path))) for p in found)
        else:
            files.append((path, path.name))
    sources = []
    for path, name in files:
        try:
            _check_readable(path)
        except UnreadableInput as exc:
            if on_unreadable is None:
                raise
            on_unreadable(path, str(exc))
            continue
        sources.append(complete(LogSource(name=name, path=path, kind=_kind_by_content(path))))
    return sources


def _kind_by_content(path: Path) -> SourceKind | None:
    """`flight_recorder` for a PyTorch Flight Recorder dump, whatever its name; else None (by name)."""
    from knowledge.flightrec.reader import sniff_path

    return "flight_recorder" if sniff_path(path) else None


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)
