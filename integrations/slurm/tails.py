"""Reading rank logs tail-first with a per-rank byte cap.

The end of a rank's log is where it died; a 40 GB log of a week-long run must not be read whole. A
per-task file is read from `size - cap` (aligned to the next line). A single file written by
`srun --label` holds every rank's lines, prefixed `0: `, `1: `…; it is read backwards, keeping up to
`cap` bytes of each rank (and of unlabelled lines such as `srun: error: …`), so a chatty rank cannot
push a quiet rank's last lines out of the window, and the kept lines stay in file order.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import BinaryIO

_LABEL = re.compile(rb"^\s*(\d{1,6}): ")
BLOCK = 1 << 20
#: a labelled file is never held in memory beyond this, whatever the per-rank cap and rank count
LABEL_CEILING = 256 << 20


def open_log(path: str, owner: int | None = None) -> BinaryIO | None:
    """Open a log for reading if it is a regular file owned by `owner` (None: anyone), else None.

    Output paths are chosen by the job's user: a FIFO would block the worker (hence O_NONBLOCK and the
    regular-file check), a symlink to another user's file must not be read and posted. The checks run
    on the open descriptor, so a file swapped after the collector looked at it is caught too.
    Raises OSError (missing, permission denied) like `open`."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or (owner is not None and st.st_uid != owner):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


#: a log as the collector hands it on: the file it opened and checked with `open_log` (read as is,
#: never reopened, left open for its next reader), or a path opened and checked now
Log = str | BinaryIO


@contextmanager
def _opened(log: Log, owner: int | None) -> Iterator[BinaryIO | None]:
    """The collector's file as is (its owner closes it), or a path opened by `open_log` for the block."""
    if not isinstance(log, str):
        yield log
        return
    fh = open_log(log, owner)
    if fh is None:
        yield None
        return
    with fh:
        yield fh


def tail_chunks(log: Log, cap: int, owner: int | None = None) -> Callable[[], Iterator[bytes]]:
    """A `LogSource.chunks` callable streaming the last `cap` bytes of `log` (from a line start).

    Given the file the collector opened, that file is what is read, however its path changes later.
    Given a path, it is opened when the engine reads it; if it vanished meanwhile, or is no longer the
    job owner's, nothing is yielded."""

    def chunks() -> Iterator[bytes]:
        try:
            with _opened(log, owner) as fh:
                if fh is None:
                    return
                size = os.fstat(fh.fileno()).st_size
                start = max(0, size - cap)
                fh.seek(start)
                left = size - start
                if start > 0:
                    left -= len(fh.readline())
                while left > 0:
                    chunk = fh.read(min(BLOCK, left))
                    if not chunk:
                        break
                    left -= len(chunk)
                    yield chunk
        except OSError:
            return

    return chunks


def is_labelled(log: Log, sample: int = 64 << 10) -> bool:
    """Whether most lines at the end of the file carry `srun --label` prefixes."""
    try:
        with _opened(log, None) as fh:
            if fh is None:
                return False
            size = os.fstat(fh.fileno()).st_size
            fh.seek(max(0, size - sample))
            lines = [x for x in fh.read(sample).splitlines() if x.strip()]
    except OSError:
        return False
    labelled = sum(1 for x in lines if _LABEL.match(x))
    return labelled > 0 and labelled * 2 >= len(lines)


def label_of(line: bytes) -> int | None:
    m = _LABEL.match(line)
    return int(m.group(1)) if m else None


def labelled_tail(
    log: Log,
    cap: int,
    ceiling: int = LABEL_CEILING,
    owner: int | None = None,
) -> tuple[bytes, bool]:
    """The last `cap` bytes of each rank's lines (and of unlabelled lines), in file order.

    Returns (data, truncated). Reading stops at the start of the file, or when `ceiling` bytes are
    kept, or after reading 4 × `ceiling` bytes."""
    kept: list[bytes] = []
    per_rank: dict[int | None, int] = {}
    total = read = 0
    truncated = False
    with _opened(log, owner) as fh:
        if fh is None:
            return b"", False
        pos = os.fstat(fh.fileno()).st_size
        rest = b""
        while pos > 0 and total < ceiling and read < 4 * ceiling:
            step = min(BLOCK, pos)
            pos -= step
            fh.seek(pos)
            block = fh.read(step) + rest
            read += step
            lines = block.split(b"\n")
            rest = lines.pop(0) if pos > 0 else b""
            for line in reversed(lines):
                size = len(line) + 1
                rank = label_of(line)
                if per_rank.get(rank, 0) + size > cap or total + size > ceiling:
                    truncated = True
                    continue
                per_rank[rank] = per_rank.get(rank, 0) + size
                total += size
                kept.append(line)
        truncated = truncated or pos > 0
    if kept and kept[0] == b"":
        kept.pop(0)  # the empty piece after the file's final newline
    return b"\n".join(reversed(kept)) + b"\n", truncated
