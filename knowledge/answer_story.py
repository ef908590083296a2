"""A timeline asked for as one ("timeline: when did the save start, when did the OOM killer fire, how
long after the last train step"): every event the job's facts have, in order, each with its time.

The events are the last good step, the start of the phase the rank failed in (a save), the first
failure, the kernel's kill or fault line, the first collateral failure, the launcher's teardown and the
last line. Why: a timeline that gives the first failure and the span alone leaves out exactly the
events people write into a post-incident review.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tff
from knowledge import answer_ending, answer_more, answer_quote, answer_timeline, answer_where
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import seconds_between
from knowledge.lines import parse_step

#: a question that asks for the sequence, not one time
ASKS_TIMELINE = re.compile(
    r"\btime ?line\b|\bsequence of events\b|\bchronolog\w*"
    r"|\bwhen did (?:the )?\w+(?: \w+)? (?:start|begin|fire|kick)\w*\b"
    r"|\bhow long after (?:its |the )?(?:last|final) (?:good |train\w* )?step\b"
)
#: the kernel's or the driver's own line about the failure (the OOM killer, an Xid)
_KERNEL = re.compile(r"invoked oom-killer|Out of memory: Killed process|NVRM: Xid|segfault at")


def timeline(c: Ctx, m: Match) -> Reply | None:
    """Every timed event of the job in order; None when the question asks one time or none is known."""
    ini = c.view.initiating
    if not ASKS_TIMELINE.search(m.text) or ini is None or not ini.first_time:
        return None
    year = ini.first_time[:4]
    events = _collect(c, year)
    if len(events) < 2:
        return None
    events.sort(key=lambda e: e[0])
    parts = [f"{at[11:19]} {name} ({ref(ln)})" for at, name, ln in events]
    if c.view.start and c.view.start[:19] < events[0][0][:19]:  # where the run began, then its events
        parts.insert(0, f"{c.view.start[11:19]} {tff.EV_START}")
    lead = tff.TIMELINE.format(events="; ".join(parts))
    step = last_step(c, year)
    if step is not None and ini.borrowed:  # no time of its own: how long after the step is not known
        lead += " " + tff.TIMELINE_AFTER_STEP_BORROWED.format(rank=ini.rank, step=step[1])
    elif step is not None and (gap := seconds_between(step[0], ini.first_time)) is not None:
        lead += " " + tff.TIMELINE_AFTER_STEP.format(rank=ini.rank, gap=duration(gap), step=step[1])
    if c.view.end:
        lead += " " + tff.TIMELINE_END.format(at=c.view.end[11:19])
    return reply("when", lead, [ln for _, _, ln in events][:4])


#: a message that opens by asking for the timeline ("timeline for the postmortem: the kill, the -9, …")
OPENS_TIMELINE = re.compile(r"^(?:\S+ ){0,3}?(?:time ?line|sequence of events)\b")


def timeline_first(c: Ctx, m: Match) -> Reply | None:
    """The timeline, when the message opens by asking for it: the events it lists after are its
    entries, whatever other intent their words would match."""
    return timeline(c, m) if OPENS_TIMELINE.search(m.text) else None


def _collect(c: Ctx, year: str) -> list[tuple[str, str, EvidenceLine]]:
    ini = c.view.initiating
    assert ini is not None and ini.first_time
    out: list[tuple[str, str, EvidenceLine]] = []
    step = last_step(c, year)
    if step is not None:
        out.append((step[0], tff.EV_STEP.format(step=step[1]), step[2]))
    saving = answer_quote.saving_line(c)
    doing = answer_more.doing_line(c, ini)
    for ln in [saving[1] if saving else None, doing]:
        at = answer_timeline.iso_of(ln, year) if ln is not None else None
        if ln is not None and at and ini.phase and ini.phase != "train" and all(ln != x[2] for x in out):
            out.append((at, tff.EV_PHASE.format(words=answer_more.activity_words(ln.text)[:80]), ln))
    if ini.first_line is not None:
        name = tf.EVENT_FAILURE.format(rank=ini.rank) + (tff.EV_BORROWED if ini.borrowed else "")
        out.append((ini.first_time, name, ini.first_line))
    own = answer_ending.own_error_line(c, ini)  # the rank's own error, when a kernel line named it
    at = answer_timeline.iso_of(own, year) if own is not None else None
    if own is not None and at and ini.first_line is not None and own.source != ini.first_line.source:
        words = answer_where.strip_prefix(own.text)[:120]
        out.append((at, tff.EV_OWN_ERROR.format(rank=ini.rank, text=words), own))
    kernel = [ln for ln in c.view.evidence if _KERNEL.search(ln.text)]
    for ln in kernel[:2]:
        at = answer_timeline.iso_of(ln, year)
        if at and all(ln != x[2] for x in out):
            out.append((at, tff.EV_KERNEL, ln))
    coll = c.view.with_role("collateral")
    first = c.view.first_collateral_time()
    firsts = [x for x in coll if x.first_time == first and x.first_line is not None]
    if first and firsts and firsts[0].first_line is not None:
        name = tff.EV_COLLATERAL.format(n=len(coll)) + (tff.EV_BORROWED if firsts[0].borrowed else "")
        out.append((first, name, firsts[0].first_line))
    down = answer_timeline.teardown(c, year)
    if down is not None and all(down.line != x[2] for x in out):
        out.append((down.at, down.name, down.line))
    report = next((ln for ln in answer_quote.pool(c) if REPORT.search(ln.text)), None)
    if (
        report is not None
        and (at := answer_timeline.iso_of(report, year))
        and all(report != x[2] for x in out)
    ):
        out.append((at, _reported(report), report))
    return out


#: the launcher's own report of a failed worker (`failed (exitcode: -9) local_rank: 2 (pid: 3312)`)
REPORT = re.compile(r"\bfailed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)")
_SIGNALS = {-9: "SIGKILL", -15: "SIGTERM", -11: "SIGSEGV", -6: "SIGABRT", -7: "SIGBUS"}


def _reported(ln: EvidenceLine) -> str:
    """ "the launcher reported local_rank 2 (pid 3312) failed, exitcode -9 (SIGKILL)"."""
    m = REPORT.search(ln.text)
    assert m is not None
    code = int(m.group(1))
    signal = f" ({_SIGNALS[code]})" if code in _SIGNALS else ""
    return tff.EV_REPORT.format(local=m.group(2), pid=m.group(3), code=code, signal=signal)


def last_step(c: Ctx, year: str) -> tuple[str, int, EvidenceLine] | None:
    """The last training-step line any rank logged before the first failure, with its time and step;
    a "saving checkpoint at step 50" line names a step but is the save, not a step that ran."""
    ini = c.view.initiating
    end = ini.first_time if ini is not None and ini.first_time else ""
    pool = [r.last_step_line for r in c.view.ranks.values() if r.last_step_line is not None]
    pool += [ln for tl in c.d.tails for ln in tl.lines]
    pool = [ln for ln in pool if not _SAVE_WORDS.search(ln.text) and not _FAILED_WORDS.search(ln.text)]
    progress = [ln for ln in pool if _PROGRESS.search(ln.text)]  # a step that ran, not its batch line
    best: tuple[str, int, EvidenceLine] | None = None
    for ln in progress or pool:
        step = parse_step(ln.text)
        if step is None:
            continue
        at = answer_timeline.iso_of(ln, year)
        if at and (not end or _not_after(at, end)) and (best is None or at > best[0]):
            best = (at, step, ln)
    return best


def _not_after(at: str, end: str) -> bool:
    """`at` is not after `end`; an end given to the whole second (`21:39:04.000`) covers that second."""
    whole = not re.search(r"\.\d*[1-9]", end)
    return at[:19] <= end[:19] if whole else at <= end


_SAVE_WORDS = re.compile(r"\bsav(?:e|ing)\b|checkpoint", re.IGNORECASE)
#: a step's failure report ("training step 2001 failed"): the step that did not complete
_FAILED_WORDS = re.compile(r"\bfail(?:ed|ure)\b|\bERROR\b|Traceback|\w(?:Error|Exception)\b")
#: a completed step's progress figures (`step 2000/6000 loss=1.49 lr=…`)
_PROGRESS = re.compile(r"\b(?:loss|lr|grad_norm|mem_alloc|tokens/s|it/s|samples/s)\b", re.IGNORECASE)


def when(c: Ctx, m: Match) -> Reply | None:
    """A timeline asked for as one gets every event; any other time question, its own answer. Asked
    also where the ranks were ("where were r1-r3 sitting when it happened"), where each one was."""
    got = timeline(c, m) or answer_timeline.when(c, m)
    if got is None or not answer_where.WHERE_Q.search(m.text) or not (where := answer_where.places(c)):
        return got
    return reply("when", f"{got.lead} {where}", got.lines)
