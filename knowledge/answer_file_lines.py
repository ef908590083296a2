"""Lines a message cites by number in a file it names once: "slurm-991.log: what does line 1 say about
the wait, and which step ID is on line 3?", "in console.log, what's on line 84?".

Why: `file:line` citations are quoted (`answer_cited_line`), but a message that names the file once and
then its lines by number ("line 1", "line 3") got the answer for its other words, without the lines.
Each numbered line of the one named file is found among the job's kept lines and quoted with its place;
a number that follows a source file (`train.py line 174`) is the code's line, not the log's, and a line
the job did not keep is left out.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_schedend as ts
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply

#: a log file the message names (`slurm-991.log`, `job_991_0.out`), not a `file:line` citation
_FILE = re.compile(r"(?<![\w./-])([\w./-]*[\w-]+\.(?:log|out|err|txt))\b(?!:\d)", re.IGNORECASE)
#: "line 1", "line 3" (not "line 174" of `train.py`)
_LINE = re.compile(r"\blines? (\d{1,6})\b", re.IGNORECASE)
_CODE_BEFORE = re.compile(r"\.(?:py|cc|cpp|c|h|cu)\b\W{0,3}(?:at |on )?$", re.IGNORECASE)
#: the message asks what the line says or holds
_SAYS = re.compile(
    r"\b(?:say|says|said|show|shows|read|reads|quote|print\w*|contain\w*|log(?:s|ged)?)\b"
    r"|\b(?:is|was|'s) (?:on|at|in) line\b|\bon line \d",
    re.IGNORECASE,
)
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def with_file_lines(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each numbered line of the one file the message names, quoted when not yet shown."""
    files = {m.group(1) for m in _FILE.finditer(text)}
    if len(files) != 1 or not _SAYS.search(text):
        return got
    name = files.pop()
    numbers = [int(m.group(1)) for m in _LINE.finditer(text) if not _CODE_BEFORE.search(text[: m.start()])]
    kept = answer_grounds.all_lines(c)
    for number in dict.fromkeys(numbers):
        ln = next(
            (x for x in kept if x.line == number and (x.source == name or x.source.endswith("/" + name))),
            None,
        )
        if ln is None:
            continue
        quote = _PREFIX.sub("", ln.text).strip()
        quote = quote if len(quote) <= 200 else quote[:200] + "…"
        if quote.lower()[:60] in answer_asks.said(got):
            continue
        got = answer_asks.with_lead(
            got, ts.FILE_LINE.format(name=name, line=number, ref=ln.ref, text=quote), [ln]
        )
    return got


__all__ = ["with_file_lines"]
