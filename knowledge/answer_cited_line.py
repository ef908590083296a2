"""The line a message cites by file:line, and a named rank's own error line: "What does rank5.log:207 say
at 03:14:03,518?", "rank 5: what error + exit code", "what line ties the xid to rank 5? dmesg only gives
pid 45121".

Why: the answer for the message's first ask quotes the line its conclusion rests on (the kernel's Xid
line, the launcher's exit code); a message that cites one line of the job by file and number, or asks for
the error a rank printed itself, wants that line. Each step finds it among the job's kept lines and quotes
it with where it is and when; nothing is added when the job has no such line.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_cited as tc
from knowledge import answer_asks, answer_grounds, answer_where
from knowledge.answer_types import Ctx, Reply, line_time, quote_line
from knowledge.intents import named_ranks

#: `rank5.log:207`, `console.log:44`, `nccl_trace_rank_2:3` (one line; a range is not one line); the
#: message comes with "rank5" spelt "rank 5", so a name may hold one space before its number
_CITED = re.compile(
    r"(?<![\w./-])((?:[\w./-]*?[a-z_] (?=\d))?[\w./-]*?[\w-]+\.(?:log|out|err|txt|dmesg)"
    r"|nccl_trace_rank[_ ]?\d+)"
    r":(\d+)\b(?!\s*[-–]\s*\d)",
    re.IGNORECASE,
)
#: the message asks what the cited line says
_SAYS = re.compile(
    r"\b(?:say|says|said|show|shows|showed|read|reads|quote|print\w*|contain\w*|log(?:s|ged)?)\b"
    r"|\bwhat(?:'s| is| was) (?:on|at|in)\b",
    re.IGNORECASE,
)
#: the message asks for the error a rank printed, or for what ties a kernel line to the rank
_ERROR_ASK = re.compile(
    r"\bwhat (?:error|exception|err)\b|\b(?:error|exception) (?:\+|and|&) (?:the )?exit\b"
    r"|\b(?:ties?|links?|connects?|maps?|pins?) (?:\w+ ){0,4}to rank \d+\b",
    re.IGNORECASE,
)
#: "which ProcessGroupNCCL.cpp line logged it": a source file the message names by its own name
_SOURCE_ASK = re.compile(r"\b(\w+\.(?:cpp|cc|cu|c|h|hpp))\b", re.IGNORECASE)
#: "which trace dump file shows rank 2 …": the dump a record of the named rank came from
_DUMP_ASK = re.compile(
    r"\b(?:which|what) (?:\w+ ){0,2}(?:dump|trace)s?(?: file)?\b|\b(?:dump|trace) files?\b", re.IGNORECASE
)


def _told(got: Reply, ln: EvidenceLine) -> bool:
    """The answer quotes this line already (in its text or its lines)."""
    return ln in got.lines or quote_line(ln).lower()[:60] in answer_asks.said(got)


def _find(c: Ctx, name: str, number: int) -> EvidenceLine | None:
    """The kept line `name`:`number` (a bare file name matches the file in any folder)."""
    for ln in answer_grounds.all_lines(c):
        if ln.line == number and (ln.source == name or ln.source.endswith("/" + name)):
            return ln
    return None


def cited(c: Ctx, text: str, got: Reply) -> tuple[str, list[EvidenceLine]]:
    """Each line the message cites by file:line and the answer does not quote yet."""
    if not _SAYS.search(text):
        return "", []
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for m in _CITED.finditer(text):
        ln = _find(c, m.group(1).replace(" ", ""), int(m.group(2)))
        if ln is None or ln in shown or _told(got, ln):
            continue
        said.append(tc.cited(ln.ref, line_time(ln), quote_line(ln)))
        shown.append(ln)
    return " ".join(said), shown


def own_error(c: Ctx, text: str, got: Reply) -> tuple[str, list[EvidenceLine]]:
    """The named rank's own error line, when the message asks for its error and the answer lacks it."""
    if not _ERROR_ASK.search(text):
        return "", []
    named = [r for r in named_ranks(text) if r in c.view.ranks]
    if not named:
        return "", []
    ln = answer_where.own_error(c, c.view.ranks[named[0]])
    if ln is None or _told(got, ln):
        return "", []
    return tc.own_error(named[0], ln.ref, line_time(ln), quote_line(ln)), [ln]


def source_line(c: Ctx, text: str, got: Reply) -> tuple[str, list[EvidenceLine]]:
    """The first kept line that names the source file the message names with its line number
    (`[E ProcessGroupNCCL.cpp:616] …`), when the answer does not quote one."""
    m = _SOURCE_ASK.search(text)
    if m is None:
        return "", []
    at = re.compile(rf"\b{re.escape(m.group(1))}:(\d+)\b", re.IGNORECASE)
    for ln in answer_grounds.all_lines(c):
        if (hit := at.search(ln.text)) is not None:
            if _told(got, ln) or hit.group(0).lower() in answer_asks.said(got):
                return "", []
            return tc.source_line(hit.group(0), ln.ref, line_time(ln), quote_line(ln)), [ln]
    return "", []


def dump_file(c: Ctx, text: str, got: Reply) -> tuple[str, list[EvidenceLine]]:
    """The Flight Recorder dump whose record names the rank the message names."""
    named = named_ranks(text)
    if not _DUMP_ASK.search(text) or not named:
        return "", []
    rank = re.compile(rf"\brank {named[0]}\b")
    for ln in answer_grounds.all_lines(c):
        if ln.record and rank.search(ln.text):
            if ln.source.lower() in answer_asks.said(got):
                return "", []
            return tc.dump_file(ln.source, ln.ref, ln.text), [ln]
    return "", []


def with_cited(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the lines the message cites and the named rank's own error line, each quoted."""
    got = answer_grounds.add(got, *cited(c, text, got))
    got = answer_grounds.add(got, *own_error(c, text, got))
    got = answer_grounds.add(got, *source_line(c, text, got))
    return answer_grounds.add(got, *dump_file(c, text, got))


__all__ = ["cited", "dump_file", "own_error", "source_line", "with_cited"]
