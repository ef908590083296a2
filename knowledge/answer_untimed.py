"""A time asked of a job whose lines carry none: "what time did it fail? need a timestamp".

A launcher that failed before any worker started (a port already in use) often prints only a Python
traceback, with no time on any line. The answer says so outright, and where the time can be had (the
scheduler's record, the log file's modification time), instead of a time borrowed from nowhere.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_facts as tf
from knowledge import answer_job
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: "what time did it fail", "at what time", "timestamp", "wat time", "when did it die", "ts pls"
ASKS_TIME = re.compile(
    r"\b(?:what|wat|which) time\b|\btime ?stamps?\b|\bwhen (?:did|was|exactly)\b|\bwhat hour\b"
    r"|\bts\b|\bat what point in time\b"
)


def untimed(c: Ctx, m: Match) -> Reply | None:
    """ "No timestamp: no line of this job carries a time …" when none does; None otherwise."""
    v = c.view
    ini = v.initiating
    if not ASKS_TIME.search(m.text.lower()) or v.start or v.end or (ini is not None and ini.first_time):
        return None
    if any(r.first_time or r.last_step_line for r in v.ranks.values()):
        return None
    line = v.evidence[0] if v.evidence else None
    lead = tf.NO_TIME.format(ref=ref(line) if line is not None else "its log")
    if answer_job.no_worker_started(c):
        lead += " " + tf.NO_TIME_NO_WORKER
    log = line.source if line is not None else "<log>"
    return reply("when", lead, [line] if line is not None else [], action=tf.NO_TIME_WHERE.format(log=log))


__all__ = ["ASKS_TIME", "untimed"]
