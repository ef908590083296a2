"""The scheduler's own end lines, for a job the scheduler ended: "quote the slurm line that proves it",
"which file has the slurmstepd cancel lines", "exact time it cancel?", "what happened to job 991?",
"job id and step id that got cancelled".

Why: these ask about the scheduler's `slurmstepd: … CANCELLED AT … DUE TO …` lines (their text, their
file, their time, the job and step they name), and no intent's cues name a scheduler's cancel, so the
message got the help reply. For a job no rank started and the scheduler ended, the answer is the job's
end in its own lines: each of the scheduler's end lines quoted with its file and line, then who ended
it, when, and how far it got (`answer_job.story`). Nothing is added to a job the scheduler did not end.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_schedend as ts
from knowledge import answer_asks, answer_job, answer_quote
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match

#: the message is about the scheduler's end of the job: its name, its cancel, the job or step it names
_ASKS = re.compile(
    r"\bslurm\w*\b|\bscheduler\b|\bcancel\w*\b|\bsbatch\b|\bscancel\b"
    r"|\bjob ?(?:#|id\b|number\b|\d+\b)|\bstep ?id\b",
    re.IGNORECASE,
)
#: the message wants the line's own words or its place
_QUOTE = re.compile(
    r"\bquote\b|\bpaste\b|\bexact (?:line|text|words)\b|\bwhich (?:file|log)\b|\bwhat file\b"
    r"|\bwhere (?:is|are|was|were) (?:the |that |those )?(?:\w+ )?lines?\b|\bwhich line\b|\bline that\b",
    re.IGNORECASE,
)
#: Slurm's own end line (`slurmstepd: error: *** JOB 991 ON gpu-01 CANCELLED AT … ***`)
_END_LINE = re.compile(r"\*\*\* (?:JOB|STEP) [\w.]+ ON \S+ (?:CANCELLED|KILLED|TERMINATED) AT ")


def end_lines(c: Ctx) -> list[EvidenceLine]:
    """The scheduler's end lines the job kept, in file order, each once."""
    seen: dict[tuple[str, int], EvidenceLine] = {}
    for ln in answer_quote.pool(c):
        if _END_LINE.search(ln.text):
            seen.setdefault((ln.source, ln.line), ln)
    return [seen[k] for k in sorted(seen)]


def quoted(lines: list[EvidenceLine]) -> str:
    """`Slurm's own end line(s), in slurm-991.log: line 2 `…`; line 3 `…`.`"""
    files = list(dict.fromkeys(ln.source for ln in lines))
    parts = [ts.SCHED_LINE.format(line=ln.line, text=ln.text.strip()) for ln in lines]
    return ts.SCHED_LINES.format(file=", ".join(files), quoted=ts.SCHED_JOIN.join(parts))


def with_end(c: Ctx, whole: Match, got: Reply) -> Reply:
    """`got` with the scheduler's end lines and the job's end, when the message asks about them: the
    help reply is replaced; an answer that does not quote the lines gets them when their words or place
    are asked."""
    if not _ASKS.search(whole.text) or c.view.initiating is not None:
        return got
    lines = end_lines(c)
    if not lines:
        return got
    asks_quote = bool(_QUOTE.search(whole.text))
    if got.intent == "help":
        story = answer_job.story(c, whole, "summary")
        if story is None:
            return got
        lead = f"{quoted(lines)} {story.lead}" if asks_quote else story.lead
        shown = [*lines, *(ln for ln in story.lines if ln not in lines)]
        return reply(story.intent, lead, shown, bullets=story.bullets, action=story.action, code=story.code)
    if asks_quote and any(ln.text.strip().lower()[:60] not in answer_asks.said(got) for ln in lines):
        return answer_asks.with_lead(got, quoted(lines), lines)
    return got


__all__ = ["end_lines", "quoted", "with_end"]
