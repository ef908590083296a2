"""The grace period a scheduler gave before its SIGKILL: "how long was the grace period before the step
was killed?".

Why: the scheduler-end answer says who sent SIGTERM and when, never how long the step had before the
kill; srun prints it (`Job step aborted: Waiting up to 32 seconds for job step to finish.`). The answer
is the scheduler's story with that figure from its own line, or, when no such line was kept, that the
logs do not show it and where Slurm keeps it (`KillWait`).
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_figures as tx
from knowledge import answer_job
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: asks the time between the stop signal and the kill ("grace period", "how long before it was killed")
GRACE_Q = re.compile(
    r"\bgrace\b|\bkill ?wait\b"
    r"|\bhow (?:long|many seconds|much time)\b[^?]{0,50}\bbefore\b[^?]{0,30}\b(?:kill\w*|sigkill|-9)\b"
    r"|\b(?:between|from) (?:the )?(?:sigterm|signal|term)\b[^?]{0,30}\b(?:and|to|until|till) (?:the )?"
    r"(?:kill|sigkill|-9)\b"
    r"|\bhow (?:long|much time)\b[^?]{0,40}\bto (?:shut down|exit|finish|clean up|wind down)\b"
)
#: srun's line that names the grace (`Waiting up to 32 seconds for job step to finish`)
_WAITING = re.compile(r"\bWaiting up to (\d+) seconds? for job step\b")


def grace(c: Ctx, m: Match) -> Reply | None:
    """The scheduler's end with the grace it gave; None unless the scheduler ended the job."""
    if not GRACE_Q.search(m.text) or answer_job.scheduler_end(c) is None:
        return None
    pool = [*c.view.evidence, *(ln for tl in c.d.tails for ln in tl.lines)]
    found = next(((w, ln) for ln in pool if (w := _WAITING.search(ln.text)) is not None), None)
    said = tx.GRACE_UNLOGGED
    shown = []
    if found is not None:
        said = tx.GRACE_LOGGED.format(secs=found[0].group(1), ref=ref(found[1]))
        shown = [found[1]]
    base = answer_job.story(c, m, "rank_why")
    if base is None:
        return reply("rank_why", said, shown)
    return reply("rank_why", f"{base.lead} {said}", [*base.lines, *shown])


__all__ = ["GRACE_Q", "grace"]
