"""Why the other ranks went on for the whole timeout after the first one failed ("rank 5 errored at
03:14 but the job kept going til 03:24, why 10 min of nothing?", "how long till the others timed
out?").

The answer is the wait itself, from the collateral ranks' watchdog line: the collective they sat in,
the timeout (Timeout(ms)=…) and when they failed; asked about async error handling, also what it
does and does not do. Why: the ask was read as "why did rank 5 fail" and answered with rank 5's
fault, never saying the others only learn a peer is gone when their own collective times out.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_verdicts as tv
from knowledge.answer_types import Ctx, Reply, at_rank, duration, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, rank_numbers, seconds_between

_OTHERS = r"(?:the )?(?:other(?: ranks?)?|others|rest|remaining ranks?|survivors)"
#: asks how long the others went on, or why the gap between the first failure and theirs
ASKED = re.compile(
    r"\bhow long (?:till|until|before|did it take(?: for)?|were|did) " + _OTHERS + r"\b[^?]{0,30}"
    r"\b(?:time[sd]? ?out|timed out|timing out|gave up|give up|fail\w*|died|die|exit\w*|noticed)\b"
    r"|\bwhy (?:\d+|ten|a few|several) ?(?:min\w*|m|s|sec\w*)\b[^?]{0,12}"
    r"\b(?:of nothing|of silence|gap|wait\w*|delay|later|before)\b"
    r"|\b(?:kept going|kept running|stayed up|stayed alive|hung around) (?:til|till|until)\b"
    r"|\bwhy (?:the|a|that) (?:\d+ ?\w+ )?(?:gap|delay|lag)\b"
)
_ASYNC = re.compile(r"\basync(?:hronous)?\b|\berror[_ ]handling\b")


def waited_template(coll: list[RankView]) -> str:
    """The sentence for the others' wait: gloo's own timeout when their lines are gloo's (no watchdog
    line, so never a quoted `Timeout(ms)=`), else the NCCL watchdog's."""
    texts = [r.first_line.text for r in coll if r.first_line is not None]
    if any("Timed out waiting" in t for t in texts) and not any("Timeout(ms)=" in t for t in texts):
        return tj.OTHERS_WAITED_GLOO
    return tj.OTHERS_WAITED


def waited_out(c: Ctx, m: Match) -> Reply | None:
    """The collateral ranks' wait: the collective, the timeout and when it ran out."""
    ini = c.view.initiating
    coll = c.view.with_role("collateral")
    if not ASKED.search(m.text) or ini is None or not coll:
        return None
    first = min(coll, key=lambda r: r.first_time or "")
    found = next(((r, w[0]) for r in coll if (w := rank_numbers(c.view, r).watchdog)), None)
    limit = found[1].timeout_s if found is not None else None
    if found is None or limit is None:
        return None
    rank, wd = found
    gap = seconds_between(ini.first_time, first.first_time)
    lead = waited_template(coll).format(
        n=len(coll),
        ranks=rl(coll),
        ini=ini.rank,
        op=wd.op or "a collective",
        ms=f"{limit * 1000:.0f}",
        timeout=duration(limit),
        at=at_rank(first).strip(),
        gap=f", {duration(gap)} after rank {ini.rank} failed" if gap is not None and gap > 0 else "",
    )
    lead += " " + tv.WAIT_WHY.format(ini=ini.rank)
    if _ASYNC.search(m.text):
        lead += " " + tv.WAIT_ASYNC.format(ini=ini.rank, timeout=duration(limit))
    lines = [x for x in (ini.first_line, rank.first_line) if x is not None]
    return reply("hang", lead, lines)


__all__ = ["waited_out", "waited_template"]
