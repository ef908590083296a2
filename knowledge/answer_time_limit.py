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
from denpex.core.texts import slack as t
from knowledge import answer_job
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match

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


__all__ = ["covers", "limit_value"]
