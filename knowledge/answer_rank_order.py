"""Which rank logged a named line first or last, and when: "which rank was slowest to log 'Starting
training', and at what time", "which rank was the last to print its 'Initializing distributed' line",
"which rank logged its step 40 line last"; and which rank had the lowest (highest) figure of one key
on a named step's line: "which rank had the lowest tokens/s at step 2000"; and whose log holds a line
the message quotes: "who printed `Connection closed by peer [127.0.0.1]:41668`?".

Why: these asks compare the ranks by the stamp of one line each of them printed; the answer about who
failed first names the rank that started the failure, not the order of that line. Each rank's own first
line that holds the named words (or step) is found in its own log, with its printed clock time
(milliseconds kept); the earliest or latest is named with file:line, then the others' times; a figure
is compared the same way across each rank's own line of that step. Nothing when fewer than two ranks
logged that line (with a time, or with that key).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_rankorder as tx
from knowledge import answer_grounds
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.lines import parse_timestamp

_FIRST = r"first|earliest|fastest|quickest"
_LAST = r"last|latest|slowest"
#: "which rank was (the) last to print …", "which rank logged its step 40 line last"
_ASK = re.compile(
    rf"\b(?:which|what) rank\b[^?]{{0,40}}?\b(?:(?P<a>{_FIRST}|{_LAST})(?: one)? to "
    rf"(?:print|log|write|emit|reach|hit|show)\b|(?:printed|logged|wrote|emitted|reached|hit)\b"
    rf"[^?]{{0,50}}?\b(?P<b>{_FIRST}|{_LAST})\b)",
    re.IGNORECASE,
)
#: the named line: a quoted phrase, the words after "to print|log" (the message comes without its
#: quotes), or a step number
_QUOTED = re.compile(r"(?:^|(?<=[\s(]))[\"“]([^\"”]{4,60})[\"”]")
_AFTER = re.compile(
    r"\bto (?:print|log|write|emit|show)(?: out)? (?:its |their |the |a )?(?:own )?"
    r"([a-z][\w:./-]*(?: [a-z][\w:./-]*){1,5}?)(?: lines?| messages?)?(?:,| and\b| at\b| when\b|\?|\.|$)",
    re.IGNORECASE,
)
#: words that name a failure, not one line every rank prints on its way (that ask is who failed first)
_FAILURE = re.compile(
    r"\b(?:error|errors|exception|traceback|fail\w*|timeout|timed|nan|oom|crash\w*)\b", re.I
)
_STEP = re.compile(r"\bstep (\d+)\b", re.IGNORECASE)
_CLOCK = re.compile(r"\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b")


def _named(text: str) -> tuple[str, re.Pattern[str]] | None:
    """The words (and a pattern for them) of the line the message names; None when it names none."""
    words = _QUOTED.search(text) or _AFTER.search(text)
    if words and not _FAILURE.search(words.group(1)) and not _STEP.search(words.group(1)):
        what = words.group(1).strip()
        return what, re.compile(re.escape(what), re.IGNORECASE)
    step = _STEP.search(text)
    if step:
        return f"step {step.group(1)}", re.compile(rf"\bstep {step.group(1)}\b(?!\.\d)", re.IGNORECASE)
    return None


def _rows(c: Ctx, hit: re.Pattern[str]) -> list[tuple[float, int, str, EvidenceLine]]:
    """(epoch seconds, rank, printed clock, line) of each rank's first timed line that `hit` finds."""
    rows: dict[int, tuple[float, int, str, EvidenceLine]] = {}
    for tail in c.d.tails:
        if tail.rank is None:
            continue
        for ln in tail.lines:
            if ln.record or not hit.search(ln.text):
                continue
            stamp, clock = parse_timestamp(ln.text), _CLOCK.search(ln.text)
            if stamp is None or stamp.relative or clock is None:
                continue
            if tail.rank not in rows or stamp.value < rows[tail.rank][0]:
                rows[tail.rank] = (stamp.value, tail.rank, clock.group(0), ln)
            break
    return sorted(rows.values())


def ordered(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The rank that logged the named line first (or last) with its time, then the others'."""
    ask, named = _ASK.search(text), _named(text)
    if ask is None or named is None:
        return "", []
    which = (ask.group("a") or ask.group("b")).lower()
    last = re.fullmatch(_LAST, which) is not None
    rows = _rows(c, named[1])
    if len({r[1] for r in rows}) < 2:
        return "", []
    edge = rows[-1][0] if last else rows[0][0]
    top = [r for r in rows if r[0] == edge]
    rest = [r for r in rows if r[0] != edge]
    ranks = " and ".join(f"rank {r[1]}" for r in top)
    others = ", ".join(tx.other(r[1], r[2]) for r in rest) or "none"
    shown = named[1].search(top[0][3].text)
    what = shown.group(0) if shown else named[0]  # as the line prints it
    said = tx.order(
        ranks[0].upper() + ranks[1:], "last" if last else "first", what, top[0][2], top[0][3].ref, others
    )
    return said, [r[3] for r in top]


#: "which rank had the lowest tokens/s at step 2000"
_FIG_ASK = re.compile(
    r"\b(?:which|what) rank\b[^?]{0,30}?\b(?P<m>lowest|highest|smallest|largest|biggest|least|most|"
    r"min(?:imum)?|max(?:imum)?) (?P<key>[a-z][\w/]*)\b[^?]{0,30}?\bstep (?P<step>\d+)\b"
    r"|\bcompare (?:the |their |each ranks? )?(?P<key2>[a-z][\w/]*) (?:at|on|for|of) step (?P<step2>\d+)\b",
    re.IGNORECASE,
)
_WHICH = re.compile(r"\b(?:which|what) rank\b", re.IGNORECASE)
_LOW = re.compile(r"lowest|smallest|least|min(?:imum)?", re.IGNORECASE)
_PAIR = re.compile(r"\b([a-z][\w/]*)=(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)([a-z%]*)", re.IGNORECASE)


def _figures(c: Ctx, key: str, step: str) -> list[tuple[float, int, str, EvidenceLine]]:
    """(value, rank, value as printed, line) of each rank's own line of `step` that prints `key`."""
    at = re.compile(rf"\bstep {step}\b(?!\.\d)", re.IGNORECASE)
    rows: dict[int, tuple[float, int, str, EvidenceLine]] = {}
    for tail in c.d.tails:
        if tail.rank is None or tail.rank in rows:
            continue
        for ln in tail.lines:
            pairs = {k.lower(): (v, u) for k, v, u in _PAIR.findall(ln.text)} if at.search(ln.text) else {}
            if key in pairs:
                value, unit = pairs[key]
                rows[tail.rank] = (float(value), tail.rank, value + unit, ln)
                break
    units = {re.sub(r"^[-+.\de]+", "", r[2]) for r in rows.values()}
    return sorted(rows.values()) if len(units) <= 1 else []  # GiB against MiB: not compared


def figure(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The rank with the lowest (highest) value of the named key at the named step, then the others'."""
    ask = _FIG_ASK.search(text)
    if ask is None:
        return "", []
    key = (ask.group("key") or ask.group("key2")).lower()
    step, low = ask.group("step") or ask.group("step2"), _LOW.fullmatch(ask.group("m") or "") is not None
    rows = _figures(c, key, step)
    if len(rows) < 2:
        return "", []
    edge = rows[0][0] if low else rows[-1][0]
    top = [r for r in rows if r[0] == edge]
    if len(top) == len(rows):
        return tx.same(len(rows), key, step, f"{key}={top[0][2]}", top[0][3].ref), [top[0][3]]
    ranks = " and ".join(f"rank {r[1]}" for r in top)
    others = ", ".join(tx.other_value(r[1], r[2]) for r in rows if r[0] != edge) or "none"
    what = f"{key}={top[0][2]}"
    said = tx.figure(
        ranks[0].upper() + ranks[1:], "lowest" if low else "highest", key, step, what, top[0][3].ref, others
    )
    return said, [r[3] for r in top]


#: "who printed `…`", "`…` who's that from", "which rank logged `…`"
_WHO = re.compile(
    r"\bwho(?:s| is| was)? (?:printed|logged|wrote|emitted)\b|\bwho(?:s| is| was)? (?:that|this|it) from\b"
    r"|\bwhich rank (?:printed|logged|wrote|emitted)\b|\bwho(?:s| is| was)? (?:that|this) line from\b",
    re.IGNORECASE,
)
_MIN_SPAN = 20


def _span(text: str, line: str) -> str:
    """The longest stretch of `line` the message quotes (as the line prints it)."""
    low = line.lower()
    m = SequenceMatcher(None, text, low, autojunk=False).find_longest_match(0, len(text), 0, len(low))
    return line[m.b : m.b + m.size].strip()


def quoted_by(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The rank(s) whose own log holds the line the message quotes; nothing when no rank's does."""
    if _WHO.search(text) is None:
        return "", []
    best: list[tuple[int, EvidenceLine, str]] = []
    low = text.lower()
    for tail in c.d.tails:
        rank = tail.rank
        if rank is None:
            continue
        for ln in tail.lines:
            span = _span(low, ln.text)
            if len(span) < _MIN_SPAN or not re.search(r"\d|\w+ \w+ \w+", span):
                continue
            if best and len(span) < len(best[0][2]):
                continue
            best = [b for b in best if len(b[2]) == len(span)] + [(rank, ln, span)]
    ranks = sorted({r for r, _, _ in best})
    if not ranks:
        return "", []
    first = best[0]
    who = " and ".join(f"rank {r}" for r in ranks)
    return tx.printed_by(first[2], who, first[1].ref, first[1].text.strip()[:200]), [first[1]]


def with_order(c: Ctx, text: str, got: Reply) -> Reply:
    """The ranks' order for the named line in place of `got` when the message asks for it."""
    said, shown = ordered(c, text)
    if not said:
        said, shown = figure(c, text)
    if not said:
        said, shown = quoted_by(c, text)
        return answer_grounds.add(got, said, shown)
    if not said:
        return got
    if _WHICH.search(text) is None:  # "compare mem_alloc at step 2000": added to the answer
        return answer_grounds.add(got, said, shown)
    return reply(got.intent, said, shown)


__all__ = ["figure", "ordered", "quoted_by", "with_order"]
