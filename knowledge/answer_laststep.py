"""The last step the job logged and when: "last training step logged before the crash, and when?".

Why: the show-lines and phase answers describe the failing rank's own last line, which is often no step
line at all (a data loader's message, an upload) and then neither the step nor its time is said. The
answer is the furthest `step N/M` line any rank logged, its loss and time, and when the first rank
failed after it; a job that logged no step falls through to the usual answers.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_figures as tx
from knowledge import answer_ending, answer_pace
from knowledge.answer_job import last_progress, length
from knowledge.answer_types import Ctx, Reply, at, first_sentence, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import seconds_between
from knowledge.lines import parse_timestamp

#: the last step asked with its time ("last training step logged before the crash, and when?",
#: "when was the final step logged", "latest iteration + timestamp")
LAST_STEP_WHEN_Q = re.compile(
    r"\b(?:last|final|latest) (?:training |logged |completed |good )?(?:step|iteration|iter)s?\b[^?]{0,60}"
    r"\b(?:when|what time|timestamp|time)\b"
    r"|\b(?:when|what time)\b[^?]{0,30}\b(?:last|final|latest) (?:training |logged |completed )?"
    r"(?:step|iteration|iter)\b"
)

#: other events asked beside the step (a timeline, a status update, the kill or the timeout's time)
_OTHER_EVENTS = re.compile(
    r"\b(?:timeline|update|timing|status|timed? ?out|cancel\w*|kill\w*|sigterm|first log|job ?id|node)\b"
)


def last_step_when(c: Ctx, m: Match) -> Reply | None:
    """The furthest step line, its time, and the first failure after it; None for "each rank's last
    step" (the ending answer lists them) or when no step was logged."""
    if not LAST_STEP_WHEN_Q.search(m.text) or answer_ending.EACH_STEP_Q.search(m.text):
        return None
    if m.ranks or _OTHER_EVENTS.search(m.text):
        return None  # "rank 2's last step + timestamp", "timeline: last step and when it timed out": theirs
    said, shown = last_progress(c)
    if not said:
        return None
    ini = c.view.initiating
    stamp = parse_timestamp(shown[0].text)
    step_at = stamp.iso() if stamp is not None and not stamp.relative else None
    gap = seconds_between(step_at, ini.first_time) if ini is not None else None
    if ini is not None and gap is not None and gap >= 1 and not ini.borrowed:  # not the step line itself
        said += " " + tx.FIRST_FAIL_AFTER.format(rank=ini.rank, at=at(ini.first_time), gap=length(gap))
    if answer_pace.RATE_Q.search(m.text) and (rate := answer_pace.pace(c, m)) is not None:
        said += f" {first_sentence(rate.lead)}."  # "last step and the step time?": the rate too
    lines = [*shown, *([ini.first_line] if ini is not None and ini.first_line is not None else [])]
    return reply("when", said, lines)


__all__ = ["LAST_STEP_WHEN_Q", "last_step_when"]
