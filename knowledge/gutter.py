"""A log pasted with its line numbers (`grep -n`, `cat -n`, `less -N`, a CI page's gutter) is read
without them.

`grep -n error train.log` prints `1834:RuntimeError: ...` and its context lines as `1833-  File ...`;
`cat -n` prints `  1834\tRuntimeError: ...`; a log viewer's gutter copies as `1834  RuntimeError`. Read
as it is, a number and a colon at the start of a line is what srun `--label` writes for a rank, so the
line number became the initiating rank, and no line-anchored signature matched behind the gutter (the
corpus rewritten as `grep -n` output changed 122 of 575 diagnoses, as `cat -n` 74). A rank label repeats
(every line of rank 3 says `3:`); a gutter counts up line after line. Only a small source (a copy,
`unwrap.MAX_BYTES`) whose every line has a number that rises on every line is taken for one; a line
or two only with a separator no launcher writes.
"""

from __future__ import annotations

import re

from denpex.core.models import LogSource
from knowledge import unwrap

#: a line number and its separator: grep's `:` (a match) or `-` (context), cat -n's tab, a gutter's
#: spaces
_GUTTER = re.compile(r"^ *([0-9]{1,9})(?::|-|\t| {2,})")
#: the first non-empty line of a gutter's source, in bytes
_FIRST = re.compile(rb"\s*(?: *[0-9]{1,9}(?::|-|\t| {2,}))")
#: fewer numbered lines than this are not told from a few rank-labelled ones by their rise alone ...
MIN_LINES = 3
#: ... but by a separator no launcher writes: cat -n's tab, or grep's colon with no space after it
#: (srun `--label` writes `3: `)
_TIGHT = re.compile(r"^ *[0-9]{1,9}(?:\t|:[^ \t]|:$)")


def strip(source: LogSource) -> LogSource:
    """The source without its line-number gutter (as in-memory data), else the source itself."""
    data = unwrap.small_data(source)
    if data is None or _FIRST.match(data) is None:  # the first line decides most sources unread
        return source
    lines = data.decode("utf-8", errors="replace").replace("\r\n", "\n").rstrip("\n").split("\n")
    cut = gutter_widths(lines)
    if cut is None:
        return source
    text = "\n".join(line[w:] for line, w in zip(lines, cut, strict=True)) + "\n"
    return source.model_copy(update={"data": text.encode("utf-8"), "path": None})


def gutter_widths(lines: list[str]) -> list[int] | None:
    """How many characters of each line are its gutter, when every non-empty line has one and the
    numbers rise line after line (grep's `--` between groups of context is allowed), over at least
    `MIN_LINES` lines or with a tight separator on one; else None."""
    widths: list[int] = []
    last = -1
    numbered = tight = 0
    for line in lines:
        if not line.strip() or line == "--":
            widths.append(len(line))
            continue
        m = _GUTTER.match(line)
        if m is None or int(m.group(1)) <= last:
            return None
        last = int(m.group(1))
        numbered += 1
        tight += _TIGHT.match(line) is not None
        widths.append(m.end())
    if numbered >= MIN_LINES or tight:
        return widths
    return None
