"""When the job fell over, asked beside another ask: "time it fell over + how long was the timeout",
"what time did it die, and why".

Why: the message's other ask (the timeout) took the answer, and the time the job went down was never
said. The job fell over when the launcher reported its failed worker (`failed (exitcode: 1)
local_rank: 0`), the end of the run; the first rank's own failure is said beside it, since the two
differ by the collective timeout in a hang. A job whose launcher line was not kept gets its last line.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_events as te
from knowledge import answer_asks, answer_quote, answer_story, answer_timeline
from knowledge.answer_types import Ctx, Reply, at_rank, reply, when
from knowledge.jobfacts_answers import launcher_exits

#: asks the time the job went down ("time it fell over", "when did it die", "what time did it crash")
FELL_Q = re.compile(
    r"\b(?:time|when|what time)\b[^?.]{0,25}\b(?:fell|fall|falls|falling) over\b"
    r"|\b(?:time|when)\b[^?.]{0,12}\b(?:it|the job|the run|job|run)"
    r" (?:died|crashed|went down|blew up|broke)\b"
    r"|\b(?:when|what time) did (?:it|the job|the run|everything) (?:die|crash|go down|blow up|break)\b",
    re.IGNORECASE,
)


def _report(c: Ctx, year: str) -> tuple[str, str] | None:
    """The launcher's line reporting the failed worker (its time and ref), else its failure summary's
    time for the first worker it lists (whole seconds)."""
    for ln in [*answer_quote.pool(c), *(x for t in c.d.tails for x in t.lines)]:
        if answer_story.REPORT.search(ln.text) and (iso := answer_timeline.iso_of(ln, year)):
            return iso, ln.ref
    timed = sorted((e.time, e.line.ref) for e in launcher_exits(c.d) if e.time)
    return (timed[0][0].replace("_", "T") + ".000Z", timed[0][1]) if timed else None


def with_fell_over(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the time the job fell over, when asked and the answer gives no such time yet."""
    ini = c.view.initiating
    if not FELL_Q.search(text) or ini is None or not ini.first_time:
        return got
    year = ini.first_time[:4]
    found = _report(c, year)
    first = at_rank(ini).strip() or when(ini.first_time)
    if found is not None:
        said = te.FELL_OVER.format(at=when(found[0]), ref=found[1], rank=ini.rank, first=first)
        end = found[0]
    elif c.view.end:
        said = te.FELL_OVER_NO_REPORT.format(at=when(c.view.end), rank=ini.rank, first=first)
        end = c.view.end
    else:
        return got
    if end[11:19] in answer_asks.said(got):
        return got
    if got.intent == "help":
        return reply("when", said, [])
    return answer_asks.with_lead(got, said, [])


__all__ = ["FELL_Q", "with_fell_over"]
