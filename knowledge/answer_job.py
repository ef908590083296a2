"""Answers about a job no single rank started: the scheduler ended it (every rank got SIGTERM at once,
at its time limit, a preemption, a node failure), or the launcher failed before any worker ran.

"Which rank?", "when?", "crashed or killed?", "how long did it run?", "any training lost?" have no
rank to point at in such a job, and "no single rank could be singled out" answers none of them. The
job itself has the answer: who ended it (the scheduler's own line, with its node and time), that no
rank failed on its own (they were all signalled together), how long it ran from its first line to
its last, and the last step and loss it reached; or, for a launcher failure, that no training ran.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_review as tr
from denpex.core.texts import thread as t
from knowledge.answer_types import Ctx, Reply, at, at_rank, ref, reply, when
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, seconds_between
from knowledge.lines import parse_step, parse_timestamp

#: Slurm's `slurmstepd: error: *** JOB 991 ON gpu-01 CANCELLED AT 2026-11-20T03:11:40 DUE TO TIME LIMIT ***`
_SLURM_END = re.compile(
    r"\*\*\* (?:JOB|STEP) ([\w.]+) ON (\S+) (?:CANCELLED|KILLED|TERMINATED) AT (\S+)"
    r"(?: DUE TO ([A-Z ]+?))?(?: BY \S+)? \*\*\*"
)
#: a rank's line saying it was signalled, not that it failed
_SIGNALLED = re.compile(r"Received (\d+) death signal|\bSIGTERM\b|\bSignal 15\b|exitcode ?: ?-15\b")
#: a loss a progress line prints
_LOSS = re.compile(r"\bloss\b[\"']?\s*[=:]?\s*([-+]?(?:[0-9]+\.?[0-9]*(?:e[-+]?[0-9]+)?|nan|inf))\b", re.I)
#: questions about how long the job ran or what limit it had
_LIMIT_Q = re.compile(r"\blimit\b|\b--time\b|\bwall ?time\b|\bwall-?clock\b|\bsacct\b")


@dataclass(frozen=True, slots=True)
class SchedulerEnd:
    """The scheduler's line that ended the job: its job id, node, time and reason as printed."""

    job: str
    node: str
    at: str
    reason: str
    line: EvidenceLine


def scheduler_end(c: Ctx) -> SchedulerEnd | None:
    """The scheduler's `CANCELLED AT … DUE TO …` line of the job (the JOB line before a STEP's)."""
    pool = [*c.view.evidence, *(ln for tl in c.d.tails for ln in tl.lines)]
    found = [(m, ln) for ln in pool if (m := _SLURM_END.search(ln.text)) is not None]
    if not found:
        return None
    m, ln = min(found, key=lambda x: ("STEP" in x[1].text, x[1].source, x[1].line))
    return SchedulerEnd(m.group(1), m.group(2), m.group(3), (m.group(4) or "").strip(), ln)


def no_single_rank(c: Ctx) -> bool:
    """A job no rank started: no initiating rank, and the scheduler's or the launcher's line ended it."""
    return c.view.initiating is None and (scheduler_end(c) is not None or no_worker_started(c))


def no_worker_started(c: Ctx) -> bool:
    """The launcher failed before any worker ran (a rendezvous or startup failure, no rank logged)."""
    return (
        c.view.initiating is None and c.d.initiating.phase in ("rendezvous", "startup") and not c.view.ranks
    )


def _signalled(c: Ctx) -> list[RankView]:
    """The ranks whose first line is a signal received (the scheduler's SIGTERM), not an error."""
    return [
        r
        for r in c.view.ranks.values()
        if r.first_line is not None and _SIGNALLED.search(r.first_line.text) is not None
    ]


def length(seconds: float) -> str:
    """`11 min 36 s`, `2 h 5 min`, `40 s`: a run's length as people say it."""
    s = round(abs(seconds))
    if s < 120:
        return f"{s} s"
    if s < 7200:
        return f"{s // 60} min {s % 60} s" if s % 60 else f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60} min"


def end_sentence(end: SchedulerEnd) -> str:
    """`Slurm ended job 991 on gpu-01 at …: it hit its time limit (slurm-991.log:2).`"""
    reason = tj.REASON_WORDS.get(end.reason, end.reason.lower() or "cancelled")
    stamp = f" at {end.at.replace('T', ' ')}" if end.at else ""
    return tj.scheduler_end("Slurm", end.job, end.node, stamp, reason, ref(end.line))


def _together(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """ "All 4 ranks got SIGTERM together at …": the ranks signalled at the same time, with one line."""
    got = _signalled(c)
    if not got:
        return "", []
    first = min(got, key=lambda r: (r.first_time or "", r.rank))
    line = first.first_line
    assert line is not None
    m = _SIGNALLED.search(line.text)
    signal = "SIGTERM (signal 15)" if m is not None and m.group(1) in (None, "15") else "a signal"
    return tj.no_rank_failed(len(got), rl(got), at_rank(first), ref(line), signal), [line]


def last_progress(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The last step any rank logged, its loss and time, and how long before the job's end."""
    logged = [r for r in c.view.ranks.values() if r.last_step is not None and r.last_step_line is not None]
    if not logged:
        return "", []
    best = max(logged, key=lambda r: (r.last_step or 0, -r.rank))
    line, step = best.last_step_line, best.last_step
    assert line is not None and step is not None
    if _SAVE_STEP.search(line.text) and (ran := _step_ran(c)) is not None:
        line, step = ran  # "saving checkpoint at step 50" names the save, not the step that ran
    loss = _LOSS.search(line.text)
    stamp = parse_timestamp(line.text)
    iso = stamp.iso() if stamp is not None and not stamp.relative else None
    gap = seconds_between(iso, c.view.end)
    before = length(gap) if gap is not None and gap > 0 else ""
    said = tj.last_progress(step, loss.group(1) if loss else "", at(iso), before, ref(line))
    return said, [line]


#: a save line that names its step ("saving checkpoint at step 50"): no step that ran
_SAVE_STEP = re.compile(r"\bsav(?:e|ing)\b|\bcheckpoint\b", re.IGNORECASE)
#: a completed step's figures (`step 50 loss 2.48 lr 3e-4`)
_FIGURES = re.compile(r"\b(?:loss|lr|grad_norm|mem_alloc|tokens/s)\b", re.IGNORECASE)


def _step_ran(c: Ctx) -> tuple[EvidenceLine, int] | None:
    """The kept step line with figures and the highest step, no save line: the last step that ran."""
    found = [
        (n, ln)
        for t in c.d.tails
        for ln in t.lines
        if _FIGURES.search(ln.text)
        and not _SAVE_STEP.search(ln.text)
        and (n := parse_step(ln.text)) is not None
    ]
    if not found:
        return None
    n, ln = max(found, key=lambda p: p[0])
    return ln, n


def span(c: Ctx) -> str:
    """How long the job ran, first line to last."""
    v = c.view
    secs = seconds_between(v.start, v.end)
    if secs is None or not v.start or not v.end:
        return ""
    return tj.ran_for(when(v.start), when(v.end), length(secs))


def story(c: Ctx, m: Match | None = None, intent: str = "which_rank") -> Reply | None:
    """The whole job's end when no rank started it: who ended it, that no rank failed on its own, how
    long it ran, how far it got; asked about the limit, the command that shows it."""
    if no_worker_started(c):
        return _no_worker(c, intent)
    end = scheduler_end(c) if c.view.initiating is None else None
    if end is None:
        return None
    together, lines = _together(c)
    progress, shown = last_progress(c)
    parts = [end_sentence(end), together, span(c), progress]
    sacct = f"sacct -j {end.job.split('.')[0]} -o JobID,State,Elapsed,Timelimit"
    if (m is not None and _LIMIT_Q.search(m.text)) or end.reason == "TIME LIMIT":
        parts.append(tj.LIMIT_NOT_LOGGED.format(code=sacct))  # the logs never print the limit itself
    lead = " ".join(p for p in parts if p)
    return reply(intent, lead, [end.line, *lines, *shown])


def limit_check(c: Ctx, m: Match) -> Reply | None:
    """ "How do I check what limit it had?": the scheduler's accounting command for this job's id (the
    limit is not in the logs); None unless the scheduler ended the job and the limit is asked about."""
    end = scheduler_end(c) if c.view.initiating is None else None
    if end is None or not _LIMIT_Q.search(m.text):
        return None
    code = f"sacct -j {end.job.split('.')[0]} -o JobID,State,Elapsed,Timelimit"
    return reply("command", f"{tj.LIMIT_UNKNOWN} `{code}`. {end_sentence(end)}", [end.line])


#: asks about Slurm's STEP line, or the JOB line against it ("JOB 991 vs STEP 991.0", "what's a job step")
_STEP_Q = re.compile(
    r"\bstep \d+\.\d+\b|\bjob ?steps?\b|\bjob (?:line )?(?:vs|versus|and) step\b"
    r"|(?<!last )(?<!final )(?<!training )\bstep (?:line|vs|versus)\b"  # not "the last step line"
)


#: asks whether it still made progress up to the scheduler's kill ("still making progress when slurm
#: killed it? last step line and the cancel time")
PROGRESS_Q = re.compile(
    r"\b(?:still |making |any )?progress\w*\b[^?]{0,40}\b(?:when|before|until|up to)\b"
    # "was it still training right up until the kill?", "still stepping up to the moment it got cancelled"
    r"|\bstill (?:training|stepping|running|going|logging steps|learning)\b[^?]{0,20}"
    r"\b(?:until|till|up to|up until|right up|to the (?:end|kill|moment|last))\b"
)


def progress_at_end(c: Ctx, m: Match) -> Reply | None:
    """The scheduler's end and the last step any rank logged before it, with both times: whether it
    was still training when it was killed. None unless the scheduler ended the job and a step was
    logged."""
    if not PROGRESS_Q.search(m.text) or (end := scheduler_end(c)) is None:
        return None
    progress, shown = last_progress(c)
    if not progress:
        return None
    return reply("when", f"{progress} {end_sentence(end)}", [*shown, end.line])


def job_and_step(c: Ctx, m: Match) -> Reply | None:
    """ "What's the difference between the JOB 991 and STEP 991.0 lines?": the job against its step,
    the one event both print; None unless the scheduler's lines include a STEP's."""
    if not _STEP_Q.search(m.text):
        return None
    pool = [*c.view.evidence, *(ln for tl in c.d.tails for ln in tl.lines)]
    ends = [(e, ln) for ln in pool if (e := _SLURM_END.search(ln.text)) is not None]
    job = next(((e, ln) for e, ln in ends if "*** JOB " in ln.text), None)
    step = next(((e, ln) for e, ln in ends if "*** STEP " in ln.text), None)
    if job is None or step is None:
        return None
    reason = (job[0].group(4) or "").strip().lower()
    what = f"CANCELLED, due to {reason}" if reason else "CANCELLED"
    refs = f"{ref(job[1])}, {ref(step[1])}"
    lead = tr.JOB_AND_STEP.format(
        job=job[0].group(1),
        step=step[0].group(1),
        what=what,
        node=job[0].group(2),
        at=job[0].group(3),
        refs=refs,
    )
    return reply("which_rank", lead, [job[1], step[1]])


def _no_worker(c: Ctx, intent: str) -> Reply:
    what = t.category_words(c.view.category)
    line = c.view.evidence[0] if c.view.evidence else None
    lead = tj.NO_WORKER.format(what=what, ref=ref(line) if line is not None else "its log")
    return reply(intent, lead, [line] if line is not None else [])


def rank_signalled(c: Ctx, r: RankView) -> Reply | None:
    """ "Why did rank 2 die?" in a job the scheduler ended: it got the same signal as every rank."""
    end = scheduler_end(c)
    if end is None or r.first_line is None or _SIGNALLED.search(r.first_line.text) is None:
        return None
    lead = tj.RANK_SIGNALLED.format(rank=r.rank, at=at_rank(r), ref=ref(r.first_line), end=end_sentence(end))
    return reply("rank_why", lead, [r.first_line, end.line])


def signal_source(c: Ctx) -> str:
    """ "Who sent the 15, an OOM?": the scheduler's end, said as the sender of the SIGTERM."""
    end = scheduler_end(c)
    if end is None or c.view.initiating is not None:
        return ""
    why = end_sentence(end)
    return f"{tj.NOT_OOM} {tj.SIGTERM_FROM.format(who='Slurm (slurmstepd)', why=why)}"


__all__ = [
    "SchedulerEnd",
    "end_sentence",
    "job_and_step",
    "last_progress",
    "length",
    "limit_check",
    "no_single_rank",
    "no_worker_started",
    "progress_at_end",
    "rank_signalled",
    "scheduler_end",
    "signal_source",
    "span",
    "story",
]
