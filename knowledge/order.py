"""A log copied newest line first is put back in the order it was written.

Grafana's and Kibana's log views, CloudWatch and most log search UIs list the newest line first, and
a log copied from them arrives upside down: each Python traceback ends with its `Traceback (most
recent call last):` header, the exception line stands above its frames, and the first failure in time
is the last in the file. Read as it is, the exception no longer ends a traceback and the ranks' order
is inverted. This recognises that order from the tracebacks' shape (a header whose neighbour above is
a frame and below is not) or, without tracebacks, from timestamps that fall line after line, and
reverses the lines of such a source before the scan. Only sources small enough to hold in memory
(`unwrap.MAX_BYTES`, what a copy from a UI is) are looked at.
"""

from __future__ import annotations

import re

from denpex.core.models import LogSource
from knowledge import unwrap
from knowledge.lines import Stamp, parse_timestamp

_HEADER = re.compile(r"Traceback \(most recent call last\):")
_FRAME = re.compile(r'File "[^"\n]+", line [0-9]+, in ')
#: without tracebacks: how often the clock must fall when it never rises, or how often and by what
#: margin over its rises when it does
MIN_FALLS = 2
MIN_STEPS = 5
MARGIN = 3


def restore(source: LogSource) -> LogSource:
    """The source in the order it was written (as in-memory data) when it was copied newest first."""
    data = unwrap.small_data(source)
    if data is None:
        return source
    lines = data.decode("utf-8", errors="replace").replace("\r\n", "\n").rstrip("\n").split("\n")
    if not newest_first(lines):
        return source
    text = "\n".join(reversed(lines)) + "\n"
    return source.model_copy(update={"data": text.encode("utf-8"), "path": None})


def newest_first(lines: list[str]) -> bool:
    """Whether `lines` read newest first: the tracebacks decide when there are any, else the clocks."""
    upside_down = right_way = 0
    for i, line in enumerate(lines):
        if not _HEADER.search(line):
            continue
        above = i > 0 and _FRAME.search(lines[i - 1]) is not None
        below = i + 1 < len(lines) and _FRAME.search(lines[i + 1]) is not None
        upside_down += above and not below
        right_way += below and not above
    if upside_down or right_way:
        return upside_down > right_way
    return _clocks_fall(lines)


def _clocks_fall(lines: list[str]) -> bool:
    """Timestamps that fall line after line (only like with like: a stamp without a year is not
    compared with one that has it), and never rise, or fall far more often than they rise."""
    falls = rises = 0
    last: Stamp | None = None
    for line in lines:
        stamp = parse_timestamp(line)
        if stamp is None or stamp.relative:
            continue
        if last is not None and last.has_year == stamp.has_year:
            falls += stamp.value < last.value
            rises += stamp.value > last.value
        last = stamp
    if rises == 0:
        return falls >= MIN_FALLS
    return falls >= MIN_STEPS and falls > MARGIN * rises
