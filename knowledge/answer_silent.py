"""A rank that went silent: no error of its own, the others timed out waiting for it.

"rank2.log just ends at step 40, no error. did it crash?", "when did r3 go quiet?", "bump the timeout
or is something wrong with r3?": the answer is when it last wrote (its last line and step), that it
logged no error, and what tells stuck from dead next (its stack if alive, the node's kernel log, the
scheduler's record), since a restart as is only hangs again.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_job as tj
from knowledge import answer_more
from knowledge.answer_types import Ctx, at, ref
from knowledge.jobfacts_answers import RankView, launcher_exits

#: a rank's only line is the launcher's stop (SIGTERM), not an error of its own
_STOPPED = re.compile(r"SIGTERM|Signal 15|exitcode ?: ?-15")


def silent(r: RankView | None) -> bool:
    """The rank that started it, named from the others' behaviour or stopped while still running."""
    if r is None or r.role != "initiating":
        return False
    return r.inferred or (r.first_line is not None and _STOPPED.search(r.first_line.text) is not None)


def quiet(c: Ctx, r: RankView) -> str:
    """When it last wrote, its last step (or the last any rank logged), and that it logged no error."""
    parts = [tj.SILENT_NO_ERROR.format(rank=r.rank), answer_more.went_quiet(c, r)]
    if r.first_line is not None and r.first_time and _STOPPED.search(r.first_line.text):  # when it ended
        parts.append(tj.SILENT_STOPPED.format(at=at(r.first_time), ref=ref(r.first_line)))
    if r.last_step is None:
        logged = [x for x in c.view.ranks.values() if x.last_step is not None and x.last_step_line]
        if logged:
            best = max(logged, key=lambda x: (x.last_step or 0, -x.rank))
            parts.append(
                tj.SILENT_STEP.format(
                    rank=r.rank, step=best.last_step, other=best.rank, ref=ref(best.last_step_line)
                )
            )
    return " ".join(p for p in parts if p)


def next_steps(c: Ctx, r: RankView) -> str:
    """What to run to tell stuck from dead: its stack, the node's kernel log, the scheduler's record."""
    pid = next((str(e.pid) for e in launcher_exits(c.d) if e.rank == r.rank and e.pid is not None), "<pid>")
    node = f"`{r.node}`" if r.node else "its node"
    return tj.SILENT_NEXT.format(pid=pid, node=node)


__all__ = ["next_steps", "quiet", "silent"]
