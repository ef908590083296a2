"""The checkpoint save's start and the training step before it, each with its time and line: "exact save
start ts, filename, step", "when was the last train step logged before the ckpt save started", "rank
2's last training step + ts", "which rank logged the checkpoint-6 save and when".

Why: the phase answer quotes the save line ("saving checkpoint at step 50", the phase's last line) and
its time, so a reader asking for the last *training* step got the save's time for it, or the help reply
when the message was terse ("last train step + ts before the save"). The step line is the last line
with a step and its figures (loss, lr) that is no save line; the save's start is the first save line
after it; the rank that logged a save line is the rank whose own log holds it.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.ranks import ranges
from denpex.core.texts import followups_events as te
from knowledge import answer_asks, answer_quote, answer_story, answer_timeline
from knowledge.answer_types import Ctx, Reply, duration, quote_line, rank_lines, reply, when
from knowledge.intents import named_ranks
from knowledge.jobfacts_answers import seconds_between
from knowledge.lines import parse_step

#: a line that starts a save ("saving checkpoint at step 50", "Saving model checkpoint to out/")
SAVE_LINE = re.compile(
    r"\b[Ss]av(?:e|ing) (?:the )?(?:model |sharded |full )?(?:checkpoint|ckpt|state[ _]dict|model|weights)\b"
)
_NOT_SAVE = re.compile(r'File "|Traceback|\bERROR\b|\w(?:Error|Exception)\b|\bfail(?:ed|ure)\b')
#: a completed step's progress figures, not a step named by a save or a failure
_PROGRESS = re.compile(r"\b(?:loss|lr|grad_norm|mem_alloc|tokens/s|it/s|samples/s)\b", re.IGNORECASE)
_FILE_STEP = re.compile(r"(?:checkpoint|ckpt|step|global_step)[-_](\d+)", re.IGNORECASE)
_SAVE = r"(?:save|saving|ckpt|checkpoint)"
#: asks when the save started (with its file or step): "exact save start ts", "when did the save begin"
START_Q = re.compile(
    rf"\b{_SAVE} (?:start\w*|began|begin\w*|kick\w* off)\b"
    rf"|\bstart(?:ed|ing)? (?:of )?(?:the |its )?(?:checkpoint |ckpt )?{_SAVE}\b",
    re.IGNORECASE,
)
#: asks the last training step ("last train step + ts before the save", "rank 2's last training step")
STEP_Q = re.compile(
    r"\b(?:last|final|latest) (?:normal |healthy |clean |full )?"
    r"(?:train(?:ing)? |good |completed |logged |successful )?"
    r"(?:step|iteration|iter)\b"
    r"(?![- ](?:line|time|rate|duration))"
    # "which was the last one that completed", "last one to finish"
    r"|\blast (?:one|step) (?:that |to )?(?:completed|finished|succeeded|went through)\b",
    re.IGNORECASE,
)
_BEFORE_SAVE = re.compile(rf"\b(?:before|b4|prior to|ahead of|until|then)\b[^?]{{0,20}}\b{_SAVE}", re.I)
_TIME_Q = re.compile(r"\b(?:when|time|ts|timestamps?|what time|at what)\b", re.IGNORECASE)
#: asks which rank logged a save line ("which rank logged the checkpoint-6 save", "who printed the save")
WHO_Q = re.compile(
    rf"\b(?:which|what|whose) (?:rank|process|worker)\b[^?]{{0,30}}\b(?:logged|printed|wrote|issued|log)\b"
    rf"[^?]{{0,40}}{_SAVE}|\bwho (?:logged|printed|wrote)\b[^?]{{0,40}}{_SAVE}",
    re.IGNORECASE,
)


def _year(c: Ctx) -> str:
    ini = c.view.initiating
    return ((ini.first_time if ini is not None else None) or c.view.start or "")[:4]


def _lines(c: Ctx) -> list[EvidenceLine]:
    """Every kept line (the evidence, then each rank's tail), each once."""
    seen: dict[tuple[str, int], EvidenceLine] = {}
    for ln in [*answer_quote.pool(c), *(x for t in c.d.tails for x in t.lines)]:
        seen.setdefault((ln.source, ln.line), ln)
    return list(seen.values())


def _timed(c: Ctx, lines: list[EvidenceLine]) -> list[tuple[str, EvidenceLine]]:
    year = _year(c)
    out = [(at, ln) for ln in lines if (at := answer_timeline.iso_of(ln, year))]
    return sorted(out, key=lambda p: (p[0], p[1].source, p[1].line))


def step_line(c: Ctx, rank: int | None) -> tuple[str, int, EvidenceLine] | None:
    """The last completed-step line of the rank (its own lines, up to its failure), else of the job."""
    if rank is None:
        return answer_story.last_step(c, _year(c))
    r = c.view.ranks.get(rank)
    first = r.first_line if r is not None else None
    own = [ln for ls in rank_lines(c, rank).values() for ln in ls]
    own = [ln for ln in own if first is None or ln.source != first.source or ln.line < first.line]
    steps = [
        (at, ln)
        for at, ln in _timed(c, own)
        if _PROGRESS.search(ln.text) and not SAVE_LINE.search(ln.text) and not _NOT_SAVE.search(ln.text)
    ]
    found = [(at, s, ln) for at, ln in steps if (s := parse_step(ln.text)) is not None]
    return found[-1] if found else None


def save_start(c: Ctx) -> tuple[str, EvidenceLine] | None:
    """The first line of the job's last save: the earliest save line after the last step line."""
    saves = [(at, ln) for at, ln in _timed(c, _lines(c)) if SAVE_LINE.search(ln.text)]
    saves = [(at, ln) for at, ln in saves if not _NOT_SAVE.search(ln.text)]
    if not saves:
        return None
    step = step_line(c, None)
    after = [p for p in saves if step is None or p[0] >= step[0]]
    return (after or saves[-1:])[0]


def _step_of(c: Ctx, ln: EvidenceLine) -> str:
    """ ", the save of step 50" from the line or its file, else ", after step 4/10 (ref)"."""
    own = parse_step(ln.text)
    found = _FILE_STEP.search(ln.text)
    if own is not None or found is not None:
        return te.SAVE_STEP.format(step=own if own is not None else int(found.group(1)) if found else "")
    step = step_line(c, None)
    if step is None:
        return ""
    m = re.search(r"\bstep \d+(?:/\d+)?", step[2].text)
    return te.SAVE_STEP_AFTER.format(step=m.group(0)[5:] if m else step[1], ref=step[2].ref)


def _told(got: Reply, *marks: str) -> bool:
    told = answer_asks.said(got)
    return all(m.lower() in told for m in marks)


def _with(got: Reply, said: str, shown: list[EvidenceLine]) -> Reply:
    if got.intent == "help":  # the fallback's "I can answer…" is no answer: the fact asked replaces it
        return reply("when", said, shown)
    return answer_asks.with_lead(got, said, shown)


def with_start(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the save's start (time, line, step) when asked and not yet said with its time."""
    if not START_Q.search(text) or (found := save_start(c)) is None:
        return got
    if STEP_Q.search(text) and _BEFORE_SAVE.search(text):
        return got  # "last step before the save started": the step's answer tells the save's start too
    at, ln = found
    step = _step_of(c, ln)
    if _told(got, at[11:19], quote_line(ln)[-40:], step.split(" (")[0].lstrip(", ")):
        return got
    said = te.SAVE_START.format(at=when(at), ref=ln.ref, text=quote_line(ln), step=step)
    return _with(got, said, [ln])


def with_step(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the last training step (the named rank's, else the job's) and its time; asked with
    the save, how long before the save started."""
    if not STEP_Q.search(text):
        return got
    ranks = [r for r in named_ranks(text) if r in c.view.ranks][:1]
    if (step := step_line(c, ranks[0] if ranks else None)) is None:
        return got
    at, n, ln = step
    quoted = quote_line(ln)
    if ranks:
        said = te.LAST_STEP_RANK.format(rank=ranks[0], step=n, at=when(at), ref=ln.ref, text=quoted)
    else:
        said = te.LAST_STEP_JOB.format(step=n, at=when(at), ref=ln.ref, text=quoted)
    shown, marks = [ln], [at[11:19], ln.ref]
    start = save_start(c) if _BEFORE_SAVE.search(text) else None
    if start is not None and (gap := seconds_between(at, start[0])) is not None and gap >= 0:
        s_at, s_ln = start
        said += te.THEN_SAVE.format(gap=duration(gap), at=when(s_at), ref=s_ln.ref, text=quote_line(s_ln))
        shown.append(s_ln)
        marks.append(s_at[11:19])
    if _told(got, *marks):
        return got
    return _with(got, said, shown)


def _rank_of(c: Ctx, ln: EvidenceLine) -> int | None:
    for rank in sorted(c.view.ranks):
        if any(
            x.source == ln.source and x.line == ln.line for ls in rank_lines(c, rank).values() for x in ls
        ):
            return rank
    return None


def with_logger(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the rank(s) whose own log holds the save line the message asks about, and its time."""
    if not WHO_Q.search(text):
        return got
    named = _FILE_STEP.search(text)
    saves = [(at, ln) for at, ln in _timed(c, _lines(c)) if SAVE_LINE.search(ln.text)]
    saves = [p for p in saves if not _NOT_SAVE.search(p[1].text)]
    if named is not None:
        saves = [p for p in saves if named.group(0).lower() in p[1].text.lower()] or saves
    by_rank = {r: p for p in reversed(saves) if (r := _rank_of(c, p[1])) is not None}
    if not by_rank:
        return got
    at, ln = min(by_rank.values(), key=lambda p: p[0])
    ranks = sorted(by_rank)
    fmt = te.LOGGED_SAVE if len(ranks) == 1 else te.LOGGED_SAVE_MANY
    said = fmt.format(ranks=ranges(ranks), at=when(at), ref=ln.ref, text=quote_line(ln))
    if _told(got, f"rank {ranges(ranks)} logged"):
        return got
    return _with(got, said, [ln])


__all__ = [
    "SAVE_LINE",
    "START_Q",
    "STEP_Q",
    "WHO_Q",
    "save_start",
    "step_line",
    "with_logger",
    "with_start",
    "with_step",
]
