"""Audit asks about this job's own lines: "which line did the time come from, is it native?", "the
highest-precision timestamp of rank 3's crash, from which line?", "SIGTERMs before the SIGSEGV record:
does that ordering undermine rank 3?", "which DataLoader worker died?", "easiest way to get a real
backtrace next time?", "compare rank 5's error with rank 4's, what did each log?", "any faulthandler
output, which file did you check?".

Why: the answers name the initiating time and the failure line but not where the time came from (a
failure line without a stamp borrows the nearest earlier timed line), nor the launcher's millisecond
stamps, nor the worker pid, nor each named rank's own error; an auditor asks for exactly these lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_lineaudit as ta
from knowledge import answer_where
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import named_ranks
from knowledge.lines import parse_timestamp

_TIME_Q = re.compile(
    r"\b(?:timestamp|time|stamp)\b[^?]{0,80}\b(?:native|its own|borrowed|come from|came from|taken from)\b"
    r"|\bwhich line did the time\b|\bhighest[- ]precision\b|\bmillisecond\b|\bms precision\b"
    r"|\bsigterms?\b[^?]{0,80}\b(?:before|after|order\w*)\b",
    re.IGNORECASE,
)
_ORDER_Q = re.compile(r"\border(?:ing)?\b|\bbefore the\b|\bundermine\b", re.IGNORECASE)
_WORKER_Q = re.compile(
    r"\bwhich (?:dataloader |data loader )?worker\b|\bworker(?:'s)? (?:pid|process)\b"
    r"|\bwhat (?:actually |exactly )?died\b",
    re.IGNORECASE,
)
_WORKER = re.compile(r"DataLoader worker \(pid:? (\d+)\) is killed by signal: (\w+)")
_TRACE_Q = re.compile(
    r"\b(?:real |native |full |proper )?(?:back ?trace|stack ?trace|stack)\b[^?]{0,40}\bnext time\b"
    r"|\bnext time\b[^?]{0,60}\b(?:back ?trace|stack ?trace)\b"
    r"|\b(?:how|way) (?:do i |can i |to )?(?:get|capture|collect) (?:a |the )?(?:real |native |full )?"
    r"(?:back ?trace|stack ?trace)\b",
    re.IGNORECASE,
)
_CHECKED_Q = re.compile(r"\bwhich (?:file|files|log|logs) did (?:you|u) (?:check|look)", re.IGNORECASE)
_EACH_Q = re.compile(
    r"\bwhat did (?:each|both|they each)\b[^?]{0,20}\b(?:log|say|print)\b"
    r"|\bcompare rank ?\d+'?s? (?:error|log|line)\b"
    r"|\b(?:also|too) (?:threw|throw|show\w*|had|got|logged|printed) (?:\w+ )?errors?\b",
    re.IGNORECASE,
)
_STEP_Q = re.compile(r"\bstep (\d+)\b", re.IGNORECASE)
_WHEN_Q = re.compile(
    r"\bwhen\b|\brelative to\b|\bcompare\b|\baround \d\d:\d\d\b|\bmid-?(?:run|training)\b", re.IGNORECASE
)
#: sub-asks a message makes beside its first ask, answered by the ask they stand for
_SUBS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"\b(?:what|which) (?:evidence |logs? |data )?(?:is |are |'s )?(?:still )?missing\b"
            r"|\bwhat'?s missing\b|\bmissing (?:to|for) (?:confirm|a confident)",
            re.IGNORECASE,
        ),
        "what evidence is missing?",
    ),
    (
        re.compile(
            r"\b(?:list|the|other) (?:the )?alternatives\b(?! to\b)"
            r"|\balternatives? (?:with|and) (?:their )?conf|\brunner[- ]up\b",
            re.IGNORECASE,
        ),
        "what were the alternatives?",
    ),
    (
        re.compile(
            r"\b(?:collective )?seq(?:num)?\b[^?]{0,40}\b(?:hung|hang|stuck|waited|sat)\b", re.IGNORECASE
        ),
        "what SeqNum did the others wait in?",
    ),
    (
        re.compile(
            r"\bhow much (?:ram |memory )?(?:was|did|is) (?:the )?(?:killed |dead |oom.?killed )?"
            r"(?:proc|process|rank|python)\w* (?:using|use|hold|holding|take|taking)\b",
            re.IGNORECASE,
        ),
        "how much memory was the killed process using?",
    ),
    (
        re.compile(r"\b(?:get|got|make|made) (?:it )?past step \d+\b|\bhow many steps\b", re.IGNORECASE),
        "how far did it get?",
    ),
]
_MS = re.compile(r"^[EWI]\d{4} (\d\d:\d\d:\d\d\.\d{3})")
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def _all_lines(c: Ctx) -> list[tuple[int | None, EvidenceLine]]:
    """Every saved line with the rank whose tail holds it (None for node logs)."""
    out = [(t.rank, ln) for t in c.d.tails for ln in t.lines]
    return out + [(None, ln) for lines in c.d.nodes.values() for ln in lines]


def _said(got: Reply) -> str:
    return " ".join([got.lead, *got.bullets]).lower()


def _add(got: Reply, said: str, shown: list[EvidenceLine], intent: str) -> Reply:
    if got.intent == "help" or not got.known:
        return reply(intent, said, shown)
    lines = shown + [ln for ln in got.lines if ln not in shown]
    return replace(got, lead=f"{said} {got.lead}", lines=lines, material=[said, *got.material])


def _time_source(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """Where the initiating time comes from: the failure line's own stamp, or the nearest earlier line."""
    r = c.view.initiating
    if r is None or r.first_line is None or not r.first_time:
        return "", []
    fl = r.first_line
    own = parse_timestamp(_PREFIX.sub("", fl.text))
    clock = r.first_time[11:23]
    if own is not None and not own.relative:
        return ta.TIME_OWN.format(rank=r.rank, ref=ref(fl), time=clock), [fl]
    hits = []
    for rank, ln in _all_lines(c):
        stamp = parse_timestamp(_PREFIX.sub("", ln.text))
        iso = stamp.iso() if stamp is not None else None
        if iso and iso[:23] == r.first_time[:23]:
            hits.append((rank != r.rank, rank, ln))
    if not hits:
        return "", []
    _, rank, src = sorted(hits, key=lambda h: (h[0], h[2].source, h[2].line))[0]
    whose = f"rank {rank}" if rank is not None else "a launcher or node line"
    how = (
        ta.OWN_EARLIER.format(rank=r.rank)
        if rank == r.rank
        else ta.BORROWED
        if rank is not None
        else ta.SHARED
    )
    none = ta.TIME_NONE.format(rank=r.rank, ref=ref(fl))
    text = _PREFIX.sub("", src.text).strip()[:160]
    said = ta.TIME_FROM.format(none=none, time=clock, src=ref(src), whose=whose, text=text, borrowed=how)
    return said, [src, fl]


def _launcher(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The launcher's millisecond-stamped lines about the failure: the failed record, the SIGTERMs."""
    picked: list[tuple[str, EvidenceLine]] = []
    seen: set[tuple[str, int]] = set()
    for _, ln in _all_lines(c):
        m = _MS.match(ln.text)
        key = (ln.source, ln.line)
        if m and key not in seen and re.search(r"failed \(exitcode|closing signal", ln.text):
            seen.add(key)
            picked.append((m.group(1), ln))
    if not picked:
        return "", []
    picked.sort(key=lambda p: (p[0], p[1].line))
    items = "; ".join(
        ta.LAUNCHER_ITEM.format(time=t, ref=ref(ln), text=re.sub(r"^\S+ \S+ \d+ \S+\] ", "", ln.text)[:120])
        for t, ln in picked[:6]
    )
    said = ta.LAUNCHER.format(items=items)
    r = c.view.initiating
    if r is not None and _ORDER_Q.search(text):
        said = f"{said} {ta.ORDER.format(rank=r.rank)}"
    return said, [ln for _, ln in picked[:6]]


def with_time_source(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with where the failure's time comes from and the launcher's precise stamps, when asked."""
    if not _TIME_Q.search(text):
        return got
    said, shown = _time_source(c)
    more, lines = _launcher(c, text)
    parts = [p for p in (said, more) if p and p[:60].lower() not in _said(got)]
    if not parts:
        return got
    return _add(got, " ".join(parts), shown + lines, "when")


def with_worker(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the killed DataLoader worker's pid and signal, when the message asks which one."""
    if not _WORKER_Q.search(text):
        return got
    for rank, ln in _all_lines(c):
        m = _WORKER.search(ln.text)
        if m and m.group(1) not in _said(got):
            who = rank if rank is not None else "?"
            line = _PREFIX.sub("", ln.text).strip()
            said = ta.WORKER.format(rank=who, pid=m.group(1), sig=m.group(2), ref=ref(ln), text=line)
            return _add(got, said, [ln], "pid")
    return got


def with_backtrace(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with how to get a Python and native backtrace next time, when asked."""
    if not _TRACE_Q.search(text) or "faulthandler" in _said(got):
        return got
    return _add(got, ta.BACKTRACE, [], "debug")


def with_checked(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` naming the files holding the rank's lines, when the message asks which file was checked."""
    r = c.view.initiating
    if not _CHECKED_Q.search(text) or r is None:
        return got
    named = [n for n in named_ranks(text) if n in c.view.ranks] or [r.rank]
    files = sorted({ln.source for t in c.d.tails if t.rank == named[0] for ln in t.lines})
    if not files:
        return got
    said = ta.NO_TRACE_FILES.format(rank=named[0], files=", ".join(f"`{f}`" for f in files))
    quiet = [f[: -len("stdout.log")] + "stderr.log" for f in files if f.endswith("/stdout.log")]
    quiet = [f for f in quiet if f not in files]
    if quiet:
        said = f"{said} {ta.QUIET_STDERR.format(files=', '.join(f'`{f}`' for f in quiet))}"
    return _add(got, said, [], got.intent)


def with_each(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each named rank's own error line, when the message compares what each logged."""
    if not _EACH_Q.search(text):
        return got
    parts: list[str] = []
    shown: list[EvidenceLine] = []
    for n in named_ranks(text)[:4]:
        r = c.view.ranks.get(n)
        if r is None:
            continue
        own = answer_where.own_error(c, r)
        if own is None:
            continue
        line = _PREFIX.sub("", own.text).strip()[:200]
        if line[:50].lower() in _said(got):
            continue
        parts.append(ta.EACH.format(rank=n, ref=ref(own), text=line))
        shown.append(own)
    if not parts:
        return got
    return _add(got, " ".join(parts), shown, "show_lines")


def with_step_lines(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each asked rank's own `step N` line and its time, when the message names step N."""
    m = _STEP_Q.search(text)
    ini = c.view.initiating
    if m is None or ini is None or not _WHEN_Q.search(text):
        return got
    ranks = [n for n in named_ranks(text) if n in c.view.ranks] or [ini.rank]
    pat = re.compile(rf"\bstep {m.group(1)}\b", re.IGNORECASE)
    parts: list[str] = []
    shown: list[EvidenceLine] = []
    for n in ranks[:4]:
        for rank, ln in _all_lines(c):
            stamp = parse_timestamp(_PREFIX.sub("", ln.text))
            iso = stamp.iso() if stamp is not None else None
            if rank == n and iso and pat.search(ln.text) and not iso.startswith("+"):
                line = _PREFIX.sub("", ln.text).strip()[:160]
                parts.append(
                    ta.STEP_LINE.format(rank=n, step=m.group(1), ref=ref(ln), time=iso[11:19], text=line)
                )
                shown.append(ln)
                break
    parts = [p for p in parts if p[:40].lower() not in _said(got)]
    if not parts:
        return got
    return _add(got, " ".join(parts), shown, "when")


def with_sub_asks(text: str, got: Reply, asked: Callable[[str], Reply]) -> Reply:
    """`got` with the answers of the sub-asks the message makes ("what's missing", "alternatives")."""
    for ask, sub in _SUBS:
        if not ask.search(text):
            continue
        more = asked(sub)
        if more.intent == "help" or not more.known or not more.lead:
            continue
        lead = " ".join(re.split(r"(?<=[.!?])\s+", more.lead)[:2])
        if lead[:50].lower() in _said(got):
            continue
        got = _add(got, lead, more.lines[:2], more.intent)
    return got


def complete(c: Ctx, text: str, got: Reply, asked: Callable[[str], Reply]) -> Reply:
    """The audit steps in turn."""
    for step in (with_time_source, with_worker, with_backtrace, with_checked, with_each, with_step_lines):
        got = step(c, text, got)
    return with_sub_asks(text, got, asked)


__all__ = ["complete"]
