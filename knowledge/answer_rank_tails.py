"""What the ranks' own last lines show, asked of their tails: "what was rank 5 doing right before the
OOM, step and batch?", "what did the ranks print at the very end?", "do the four per-rank files differ,
e.g. per-rank losses?", "how often were steps being logged?".

Why: the failure answers quote a rank's failure line and its last step number, not the lines around
it: the batch a rank logged just before its OOM (`step 2001: batch of 4 x 16384 tokens`), the line every
rank printed last (`Received 15 death signal`), whether the per-rank files say the same thing, or the
step lines' spacing. These are facts of the kept tails, so each is read from them, with file:line.
"""

from __future__ import annotations

import itertools
import re
import statistics

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_rankfigs as tx
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply, rank_lines, when
from knowledge.answer_types import rank_list as rl
from knowledge.intents import named_ranks
from knowledge.lines import parse_step, parse_timestamp

_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")
#: "right before the oom", "b4 it crashed", "leading up to the failure"
_BEFORE = re.compile(
    r"\b(?:before|prior to|leading up to|ahead of|just pre)\b[^?.]{0,25}"
    r"\b(?:oom|crash\w*|fail\w*|death|died|dying|error|kill\w*|blew up|blow ?up|exception|die)\b",
    re.IGNORECASE,
)
_DOING = re.compile(r"\b(?:doing|doin|step|batch|samples?|input|working on|processing|data)\b", re.IGNORECASE)
#: a line of the rank's progress: a step, a batch, its samples
_PROGRESS = re.compile(r"\b(?:step|batch|samples?|seq\w*|tokens?|epoch|iter\w*)\b", re.IGNORECASE)
#: a step line with its figures, where the look back stops
_METRIC_STEP = re.compile(r"\b(?:loss|mem_alloc|grad_norm|lr)\b", re.IGNORECASE)
#: a failure report or a traceback line, not the rank's own progress
_ERRORISH = re.compile(r"\bERROR\b|\bfailed\b|Traceback|\w(?:Error|Exception)\b|^\s+|^File ")
#: "what did the ranks print at the very end", "last thing each rank printed", "final lines"
_END = re.compile(r"\b(?:very end|at the end|in the end|final(?:ly)?|last)\b", re.IGNORECASE)
_PRINT = re.compile(
    r"\b(?:print\w*|say|said|says|wrote|write|output\w*|emit\w*|log(?:ged)?)\b", re.IGNORECASE
)
#: the per-rank files compared
_FILES = re.compile(r"\b(?:files?|logs?|outputs?|\.out|stdouts?)\b", re.IGNORECASE)
_DIFFER = re.compile(
    r"\b(?:differ\w*|identical|the same|same|diverg\w*|match\w*|any different)\b", re.IGNORECASE
)
#: the files compared are the ranks' own ("the four per-rank files", "the rank logs", "each rank's .out")
_PER_RANK = re.compile(
    r"\bper[- ]rank\b|\branks?'?s?\b|\beach\b|\bevery\b"
    r"|\b(?:two|three|four|eight|\d+) (?:\w+ )?(?:files|logs|outputs)\b",
    re.IGNORECASE,
)
#: "how often were steps logged", "logging interval", "cadence"
_CADENCE = re.compile(
    r"\bhow (?:often|frequently)\b[^?]{0,40}\b(?:log\w*|steps?|print\w*)\b"
    r"|\b(?:log\w*|steps?)\b[^?]{0,30}\bhow (?:often|frequently)\b"
    r"|\b(?:logging|log) (?:interval|frequency|freq|rate|cadence|every)\b|\blogged every\b"
    r"|\bevery how many (?:steps|seconds|s)\b",
    re.IGNORECASE,
)
#: asks what else the last lines show ("anything weird in the last lines", "anything unusual before it")
_ANYTHING = re.compile(
    r"\b(?:anything|something|any(?:thing)? else)\b[^?]{0,30}"
    r"\b(?:weird|odd|unusual|strange|suspicious|off|else)\b"
    r"|\blast (?:few )?lines\b|\bwhat else\b",
    re.IGNORECASE,
)
#: a line the rank logged itself at INFO or WARNING level (its own doing, not a library's noise)
_OWN_INFO = re.compile(r"\[(?:INFO|WARNING|WARN)\]|\b(?:INFO|WARNING)\b")
_STAMP_HEAD = re.compile(r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?\]?\s*")
_RANK_MARK = re.compile(r"\[?\brank ?\d+\]?", re.IGNORECASE)


def _quote(ln: EvidenceLine) -> str:
    text = _PREFIX.sub("", ln.text).strip()
    return text if len(text) <= 200 else text[:200] + "…"


def _at(ln: EvidenceLine) -> str:
    stamp = parse_timestamp(_PREFIX.sub("", ln.text))
    return f", {when(stamp.iso())}" if stamp is not None and not stamp.relative else ""


def _tails(c: Ctx) -> dict[int, list[EvidenceLine]]:
    """Each rank's own tail (the file it wrote), rank by rank."""
    out: dict[int, list[EvidenceLine]] = {}
    for t in c.d.tails:
        if t.rank is not None and t.lines and t.rank not in out:
            out[t.rank] = list(t.lines)
    return dict(sorted(out.items()))


def before_failure(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The rank's progress lines right before its failure line: back to its last step line with figures."""
    if not _BEFORE.search(text) or not _DOING.search(text):
        return "", []
    named = [r for r in named_ranks(text) if r in c.view.ranks]
    r = c.view.ranks[named[0]] if named else c.view.initiating
    if r is None or r.first_line is None:
        return "", []
    fail = r.first_line
    lines = [x for x in rank_lines(c, r.rank).get(fail.source, []) if x.line < fail.line]
    if not lines:  # failed in another file (the kernel's kill record): its own tail ends at the kill
        lines = _tails(c).get(r.rank, [])
    picked: list[EvidenceLine] = []
    for ln in reversed(lines):
        if _ERRORISH.search(_PREFIX.sub("", ln.text)):
            continue
        if not _PROGRESS.search(ln.text) and not (_ANYTHING.search(text) and _OWN_INFO.search(ln.text)):
            continue  # a line of another kind only when the message asks what else the last lines show
        picked.insert(0, ln)
        if (parse_step(ln.text) is not None and _METRIC_STEP.search(ln.text)) or len(picked) == 3:
            break
    if not picked:
        return "", []
    rows = "; then ".join(tx.BEFORE_ROW.format(text=_quote(ln), ref=ln.ref, at=_at(ln)) for ln in picked)
    return tx.BEFORE_FAIL.format(rank=r.rank, rows=rows), picked


def _groups(lasts: dict[int, EvidenceLine]) -> list[tuple[list[int], EvidenceLine]]:
    """Ranks whose last lines say the same (times and rank names aside), each group's first line."""
    groups: dict[str, tuple[list[int], EvidenceLine]] = {}
    for rank, ln in lasts.items():
        key = _RANK_MARK.sub("", _STAMP_HEAD.sub("", _PREFIX.sub("", ln.text))).strip()
        groups.setdefault(key, ([], ln))[0].append(rank)
    return list(groups.values())


def very_end(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The last line each asked rank printed (all ranks unless some are named), grouped."""
    if not (_END.search(text) and _PRINT.search(text)) or _BEFORE.search(text):
        return "", []
    tails = _tails(c)
    named = [r for r in named_ranks(text) if r in tails]
    asked = {r: tails[r][-1] for r in (named or tails)}
    if not asked or (not named and not re.search(r"\branks\b|\beach\b|\bevery\b|\bthey\b|\ball\b", text)):
        return "", []
    groups = _groups(asked)
    rows = "; ".join(
        tx.LAST_GROUP.format(ranks=rl(rs), text=_quote(ln), ref=ln.ref, at=_at(ln)) for rs, ln in groups[:4]
    )
    return tx.LAST_PRINTED.format(rows=rows), [ln for _, ln in groups[:4]]


def files_differ(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """Whether the per-rank files' kept lines say the same thing, line for line."""
    if not (_FILES.search(text) and _DIFFER.search(text) and _PER_RANK.search(text)):
        return "", []
    tails = _tails(c)
    if len(tails) < 2:
        return "", []
    bodies = {r: [_PREFIX.sub("", ln.text) for ln in lines] for r, lines in tails.items()}
    k = min(len(b) for b in bodies.values())
    first = next(iter(bodies.values()))
    if all(b[-k:] == first[-k:] for b in bodies.values()):
        files = ", ".join(lines[0].source for lines in tails.values())
        return tx.FILES_SAME.format(n=len(tails), files=files, k=k), [tails[r][-1] for r in list(tails)[:1]]
    groups = _groups({r: lines[-1] for r, lines in tails.items()})
    rows = "; ".join(tx.FILES_ROW.format(rank=rl(rs), text=_quote(ln), ref=ln.ref) for rs, ln in groups[:4])
    return tx.FILES_DIFFER.format(rows=rows), [ln for _, ln in groups[:4]]


def _step_times(lines: list[EvidenceLine]) -> list[tuple[int, float, str, EvidenceLine]]:
    """(step, epoch seconds, clock time, line) of each timed step line with figures."""
    out = []
    for ln in lines:
        step, stamp = parse_step(ln.text), parse_timestamp(_PREFIX.sub("", ln.text))
        iso = stamp.iso() if stamp is not None and not stamp.relative else None
        if step is not None and stamp is not None and iso and _METRIC_STEP.search(ln.text):
            out.append((step, stamp.value, when(iso), ln))
    return out


def _secs(s: float) -> str:
    return f"{s:.0f} s" if abs(s - round(s)) < 0.05 or s >= 10 else f"{s:.1f} s"


def cadence(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """How many steps apart and how many seconds apart the step lines were, from one rank's tail."""
    if not _CADENCE.search(text):
        return "", []
    tails = _tails(c)
    ini = c.view.initiating
    order = ([ini.rank] if ini is not None and ini.rank in tails else []) + list(tails)
    rows = next((s for r in order if len(s := _step_times(tails[r])) >= 3), None)
    if rows is None:
        return "", []
    last = rows[-3:]
    every = statistics.median(b[0] - a[0] for a, b in itertools.pairwise(last))
    gap = statistics.median(b[1] - a[1] for a, b in itertools.pairwise(last))
    if every <= 0 or gap <= 0:
        return "", []
    n = int(every)
    said = tx.CADENCE.format(
        every=tx.CADENCE_ONE if n == 1 else tx.CADENCE_MANY.format(n=n),
        ref=f"{last[0][3].ref}-{last[-1][3].line}",
        first=f"step {last[0][0]}",
        t0=last[0][2],
        last=f"step {last[-1][0]}",
        t1=last[-1][2],
        gap=_secs(gap),
        per=tx.CADENCE_PER.format(per=_secs(gap / n)) if n > 1 else "",
    )
    return said, [last[0][3], last[-1][3]]


def with_tails(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with what the ranks' tails show when the message asks it and the answer does not say it."""
    for ask in (before_failure, very_end, files_differ, cadence):
        said, shown = ask(c, text)
        if said and not all(_quote(ln).lower()[:80] in answer_asks.said(got) for ln in shown):
            got = answer_grounds.add(got, said, shown)
    return got


__all__ = ["before_failure", "cadence", "files_differ", "very_end", "with_tails"]
