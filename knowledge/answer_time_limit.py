"""What the time limit was set to, for a job the scheduler ended at its limit.

"What was my --time set to?", "what was the time limit?": the limit itself is never printed in the
job's logs, so the answer says that first, with the accounting command that shows it, then what the
logs do show (how long the job ran, the last step it reached). Why: an answer that only names the
cause ("it hit its time limit") leaves the asked number unanswered, and a guessed number would be false.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import answer_job
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import seconds_between

#: the ask also wants how much more time to request ("and how much more do I need")
_MORE = re.compile(
    r"\bhow (?:much|many) (?:more|longer|extra)\b|\bhow much (?:time )?(?:do|should|would) (?:i|we)\b"
)


def limit_value(c: Ctx, m: Match) -> Reply | None:
    """The limit is not logged (and where to read it), then the run's length; None unless the scheduler
    ended the job (no rank started it), since only then is the limit this job's story."""
    end = answer_job.scheduler_end(c) if c.view.initiating is None else None
    if end is None:
        return _not_at_limit(c)
    sacct = f"sacct -j {end.job.split('.')[0]} -o JobID,State,Elapsed,Timelimit"
    parts = [tj.LIMIT_NOT_LOGGED.format(code=sacct), answer_job.span(c)]
    if end.reason == "TIME LIMIT" and parts[1]:
        parts.append(tv.LIMIT_AT_LEAST)
    progress, shown = answer_job.last_progress(c)
    if _MORE.search(m.text) and progress:
        parts.append(f"{tv.LIMIT_MORE} {progress[0].lower()}{progress[1:]}")
    lead = " ".join(p for p in parts if p)
    return reply("time_limit", lead, [end.line, *shown])


def same_time(c: Ctx, base: Reply) -> Reply:
    """ "Safe to resubmit with the same --time?" for a job the scheduler ended at its time limit: no, the
    same limit ends it again (how long it ran), and the longer --time that fixes it; `base` (the entry's
    "it depends") otherwise. Why: "Maybe: every run that needs more time" never said no to the same limit."""
    end = answer_job.scheduler_end(c) if c.view.initiating is None else None
    if end is None or end.reason != "TIME LIMIT":
        return base
    secs = seconds_between(c.view.start, c.view.end)
    ran = secs is not None and secs > 0
    span = f"this one ran {answer_job.length(secs)}" if ran and secs else "it ran as long as the limit"
    lead = tv.LIMIT_SAME_TIME.format(ref=ref(end.line), span=span)
    lines = [end.line, *(x for x in base.lines if x != end.line)]
    return reply("restart", lead, lines, bullets=base.bullets, code=base.code)


def _not_at_limit(c: Ctx) -> Reply | None:
    """A job a rank's own failure ended: the limit is still not logged, and it is not why the job ended."""
    ini = c.view.initiating
    if ini is None:
        return None
    what = t.category_words(c.view.category)
    lead = tv.LIMIT_NOT_REACHED.format(rank=ini.rank, what=what)
    return reply("time_limit", lead, c.view.key_line())


def covers(part: str) -> bool:
    """A later ask the limit's answer already answers ("and how much more do I need")."""
    return bool(_MORE.search(part))


# ---------------------------------------------------------------- the accounting command itself

#: "sacct cmd for this one pls", "what sacct do I run": the command, not a quote of sacct's output
_SACCT_ASK = re.compile(r"\bsacct\b")
_SACCT_QUOTED = re.compile(
    r"\bsacct (?:says?|said|shows?|showed|reports?|reported|gives?|gave|output|lists?)\b(?! me\b)"
    r"|\b(?:out_of_memory|oom_kill|timeout|cancelled|failed|node_fail|preempted)\b(?=.*\bsacct\b)"
    r"|\bsacct\b.*\b(?:out_of_memory|oom_kill|cancelled|node_fail|preempted)\b"
)
_JOB_ID = re.compile(r"\bslurm-(\d+)|\bjob[_-](\d+)|\bSLURM_JOB_ID[=: ]+(\d+)|\bJOB (\d+) ON\b")
_MEMORY = frozenset(
    {"host_oom", "cpu_oom_checkpoint", "gpu_oom_checkpoint_gather", "dataloader_worker_killed"}
)


def sacct(c: Ctx, m: Match) -> Reply | None:
    """ "sacct cmd for this one pls": the accounting command with this job's id (when a log names it)
    and the fields that show how this job ended (its time limit, its memory)."""
    if not _SACCT_ASK.search(m.text) or _SACCT_QUOTED.search(m.text):
        return None
    end = answer_job.scheduler_end(c)
    job = end.job.split(".")[0] if end is not None else _job_id(c)
    if end is not None and end.reason == "TIME LIMIT":
        fields = "JobID,State,Elapsed,Timelimit"
    elif c.view.category in _MEMORY or c.view.numbers.kill is not None:
        fields = "JobID,State,ExitCode,MaxRSS,ReqMem"
    else:
        fields = "JobID,State,ExitCode,Elapsed,NodeList"
    code = f"sacct -j {job or '<jobid>'} -o {fields}"
    said = tv.SACCT_CMD.format(code=code) if job else tv.SACCT_NO_ID.format(code=code)
    return reply("command", said, [end.line] if end is not None else [])


#: "job id?", "what's the slurm job id": the id alone (not the accounting command)
_ID_ASK = re.compile(
    r"^\W*(?:and |the |what(?:'?s| is| was) (?:the |its |this |our )?)?(?:slurm |scheduler |batch )?"
    r"job ?(?:id|number|#)\W*$",
    re.IGNORECASE,
)


def job_id(c: Ctx, m: Match) -> Reply | None:
    """The job's scheduler id, from the scheduler's end line or a log's name, with the line; or that
    no line gives one and where to read it."""
    if not _ID_ASK.search(m.text):
        return None
    end = answer_job.scheduler_end(c)
    if end is not None:
        return reply("when", tv.JOB_ID.format(job=end.job.split(".")[0], ref=ref(end.line)), [end.line])
    if found := _job_id(c):
        return reply("when", tv.JOB_ID_NAMED.format(job=found), [])
    return reply("when", tv.JOB_ID_NONE, [])


def _job_id(c: Ctx) -> str:
    """The Slurm job id a log's name or line gives (`slurm-991.log`, `SLURM_JOB_ID=991`), else ""."""
    pool = [*c.view.evidence, *(ln for tl in c.d.tails for ln in tl.lines)]
    for ln in pool:
        for text in (ln.source, ln.text):
            if (found := _JOB_ID.search(text)) is not None:
                return next(g for g in found.groups() if g)
    return ""


__all__ = ["covers", "job_id", "limit_value", "sacct", "same_time"]
