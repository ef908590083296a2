"""Figures and twins read off the job's own lines, when the message asks for them: "the 'unexpected pos'
numbers in the zip writer error, what were they exactly", "unexpected pos what vs what? numbers only",
"your evidence is console.log:37 — which line in the per-rank stderr.log carries the same error?",
"what first time do you give for the collateral ranks?".

Why: the answer for the message's first ask explains the error or names the rank, but not the numbers
the line prints, the other file that repeats it, or the collateral group's own time to the millisecond;
the reader checks them against the logs. Each is read from this job's kept lines (or the diagnosis's
collateral group) and quoted with its file:line; nothing is added when the job has no such line.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.ranks import ranges
from denpex.core.texts import followups_linefigs as tl
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply
from knowledge.answer_where import strip_prefix
from knowledge.lines import parse_rank, parse_timestamp

#: the figures a line prints asked for ("what pos numbers", "what vs what", "numbers only")
_NUMBERS_ASK = re.compile(r"\bnumbers?\b|\bwhat (?:vs\.?|versus) what\b|\bfigures\b", re.IGNORECASE)
#: message words never taken for the name a figure follows in a line
_NOT_NAMES = frozenset(
    {"the", "and", "what", "were", "was", "did", "does", "its", "their", "this", "that", "with", "about"}
    | {"from", "exact", "exactly", "numbers", "number", "figures", "only", "error", "errors", "line"}
    | {"lines", "say", "says", "said", "text"}
)
#: a figure, or two compared ("1088 vs 982", "3 of 10", "7/10")
_FIG = r"-?\d+(?:\.\d+)?"
_PAIR = rf"({_FIG})(?:\s*(?:vs\.?|versus|of|out of|/)\s*({_FIG}))?"
#: a named line's file:line ("console.log:37"), and a file another copy is asked in ("stderr.log")
_REF = re.compile(r"([\w./-]+\.(?:log|txt|out|err)):(\d+)\b")
_FILE = re.compile(r"\b([\w-]+\.(?:log|txt|out|err))\b")
#: asks which other line or file carries the same line
_SAME_ASK = re.compile(
    r"\b(?:which|what) (?:line|one|file)\b[^?]{0,80}\b(?:carr(?:y|ies)|has|have|holds?|shows?|repeats?"
    r"|contains?|with)\b[^?]{0,25}\bsame\b|\bsame (?:error|line|message|exception)\b[^?]{0,40}\bin\b"
    r"|\bwhere else\b[^?]{0,30}\b(?:logged|printed|appear\w*|show\w*)\b",
    re.IGNORECASE,
)
#: asks the time given for the collateral ranks
_COLL_TIME_ASK = re.compile(
    r"\b(?:first |failure |start )?time\b[^?]{0,40}\b(?:collateral|victim\w*)\b"
    r"|\b(?:collateral|victim\w*)\b[^?]{0,40}\b(?:first |failure )?(?:time|timestamp|stamp)\b",
    re.IGNORECASE,
)


def with_figures(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each asked figure, twin line or collateral time it does not say yet."""
    if _NUMBERS_ASK.search(text):
        got = _add_new(got, *_figures(c, text))
    if _SAME_ASK.search(text):
        got = answer_grounds.add(got, *_same_line(c, text))
    if _COLL_TIME_ASK.search(text):
        got = answer_grounds.add(got, *_collateral_time(c))
    return got


def _add_new(got: Reply, said: str, shown: list[EvidenceLine], numbers: list[str]) -> Reply:
    """`got` with `said`, unless the answer already gives every one of its figures."""
    told = answer_asks.said(got)
    if numbers and all(re.search(rf"(?<![\d.]){re.escape(n)}(?![\d])", told) for n in numbers):
        return got
    return answer_grounds.add(got, said, shown)


def _names(text: str) -> list[str]:
    words = re.findall(r"[a-z][a-z_]{2,}", text.lower())
    return [w for w in dict.fromkeys(words) if w not in _NOT_NAMES]


def _figures(c: Ctx, text: str) -> tuple[str, list[EvidenceLine], list[str]]:
    """The first kept line (evidence first) where a word of the message is followed by figures."""
    names = _names(text)
    if not names:
        return "", [], []
    pattern = re.compile(rf"(?:(\S+) )?\b({'|'.join(map(re.escape, names))})\b[ :=]+{_PAIR}", re.IGNORECASE)
    for ln in [*c.view.evidence, *answer_grounds.all_lines(c)]:
        m = pattern.search(strip_prefix(ln.text))
        if m is None:
            continue
        numbers = [g for g in (m.group(3), m.group(4)) if g]
        phrase = m.group(0) if m.group(1) and m.group(1).isalpha() else m.group(0)[m.start(2) - m.start(0) :]
        return tl.figures(phrase, ln.ref, numbers), [ln], numbers
    return "", [], []


def _same_line(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The line the message names by file:line, and the other kept lines with the same text."""
    named = _REF.search(text)
    if named is None:
        return "", []
    lines = answer_grounds.all_lines(c)
    src, num = named.group(1), int(named.group(2))
    line = next((ln for ln in lines if ln.line == num and ln.source.endswith(src)), None)
    if line is None:
        return "", []
    body = strip_prefix(line.text)
    twins = [ln for ln in lines if ln.source != line.source and strip_prefix(ln.text) == body]
    files = {f for f in _FILE.findall(text) if not src.endswith(f)}
    wanted = [ln for ln in twins if any(ln.source.endswith(f) for f in files)]
    twins = wanted or twins
    if not twins:
        return "", []
    quoted = body if len(body) <= 200 else body[:200] + "…"
    return tl.same_line(line.ref, quoted, [ln.ref for ln in twins[:3]]), [line, *twins[:3]]


def _collateral_time(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """Each collateral group's first time as the diagnosis gives it, to the millisecond, with the line
    among those ranks' own that carries that stamp."""
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for group in c.d.collateral:
        if not group.first_time or group.first_time.startswith("+"):
            continue
        time = group.first_time.replace("T", " ").rstrip("Z") + " UTC"
        line = _stamped(c, group.ranks, group.first_time)
        source = tl.time_source(line.ref, strip_prefix(line.text)) if line is not None else ""
        said.append(
            tl.collateral_time(ranges(group.ranks), time, group.what, group.first_time_borrowed, source)
        )
        shown += [line] if line is not None else []
    return " ".join(said), shown


def _stamped(c: Ctx, ranks: list[int], iso: str) -> EvidenceLine | None:
    """A kept line of one of `ranks` whose own stamp is `iso`."""
    for ln in answer_grounds.all_lines(c):
        stamp = parse_timestamp(strip_prefix(ln.text)) or parse_timestamp(ln.text)
        if stamp is None or stamp.relative or stamp.iso() != iso:
            continue
        rank = parse_rank(ln.text).rank
        if rank is None:
            rank = _path_rank(ln.source)
        if rank in ranks:
            return ln
    return None


def _path_rank(source: str) -> int | None:
    """The rank a per-rank file's path names (`attempt_0/2/stdout.log`, `rank2.log`)."""
    m = re.search(r"/(\d+)/std(?:out|err)\.log$|\brank_?(\d+)\.log$", source)
    return int(m.group(1) or m.group(2)) if m else None


__all__ = ["with_figures"]
