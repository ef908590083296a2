"""How the ranks compare at the end: which died last, why the others took so long, whose memory
stood apart ("which rank was last to die", "why did the other 7 sit there for ages").

Why: these asks come with a "which rank" or "why" question, whose base answer names the first rank;
the comparison they ask for is read from every rank's own failure time, watchdog line and progress
lines, so the answer adds it instead of repeating the first rank's story.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_job as tj
from knowledge import answer_more, answer_waitout, answer_where
from knowledge.answer_types import Ctx, at_rank, duration
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import rank_numbers, seconds_between

#: asks which rank ended last ("which rank was last to die", "who was the last one to go down")
LAST_Q = re.compile(
    r"\blast (?:one |rank |process |worker )?(?:to )?(?:die|died|fail|failed|exit|exited|go|crash"
    r"|be killed)\b"
    r"|\b(?:died|failed|exited|crashed) last\b"
)
#: asks why the other ranks took so long to fail ("why did the other 7 sit there for ages")
WAITED_Q = re.compile(
    r"\b(?:other|others|rest)\b[^?]{0,40}\b(?:sit|sat|sitting|wait\w*|hang|hung|ages|so long|forever|a while"
    r"|long time|take so long|took so long)\b"
    # "why do all the other 7 ranks have watchdog errors at 03:24?": the timeout they waited out
    r"|\bwhy (?:do|did|does|are|were) (?:all )?(?:the )?(?:other|others|rest)\b[^?]{0,40}"
    r"\b(?:watchdog|time ?outs?|timed out|timing out)\b"
)
#: asks whether one rank's memory stood apart from the others'
MEMORY_Q = re.compile(
    r"\bmore (?:gpu )?(?:memory|ram|vram) than\b|\b(?:memory|ram|vram) (?:than|vs\.?|versus|compared)\b"
    # "why only rank 5? what's different about it vs the other 7": its own figures against theirs
    r"|\bwhy (?:only|just) (?:rank \d+|that rank|this rank|one rank|it)\b"
    r"|\b(?:different|special|unusual|odd) about (?:it|rank \d+|that rank|this rank|him|her)\b"
)


def last_to_die(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """The rank whose own failure came last, and when (ties: the latest line's rank, by time text)."""
    if not LAST_Q.search(m.text):
        return "", []
    timed = [r for r in c.view.ranks.values() if r.first_time and r.role in ("initiating", "collateral")]
    if len(timed) < 2:
        return "", []
    last = max(timed, key=lambda r: (r.first_time or "", r.rank))
    same = [r for r in timed if (r.first_time or "")[:19] == (last.first_time or "")[:19] and r is not last]
    lead = tj.LAST_TO_DIE.format(rank=last.rank, at=at_rank(last).strip())
    if same:
        lead += " " + tj.LAST_SAME_SECOND.format(ranks=rl(same))
    return lead, [last.first_line] if last.first_line is not None else []


def others_waited(c: Ctx, m: Match) -> str:
    """Why the collateral ranks failed so long after the first: the watchdog timeout they waited out,
    else the collective their tracebacks stop in."""
    ini = c.view.initiating
    coll = c.view.with_role("collateral")
    if not WAITED_Q.search(m.text) or ini is None or not coll:
        return ""
    first = min(coll, key=lambda r: r.first_time or "")
    gap = seconds_between(ini.first_time, first.first_time)
    wd = next((w[0] for r in coll if (w := rank_numbers(c.view, r).watchdog)), None)
    if wd is None or wd.timeout_s is None:  # no watchdog line: where they sat, from their tracebacks
        return answer_where.places(c)
    return answer_waitout.waited_template(coll).format(
        n=len(coll),
        ranks=rl(coll),
        ini=ini.rank,
        op=wd.op or "a collective",
        ms=f"{wd.timeout_s * 1000:.0f}",
        timeout=duration(wd.timeout_s),
        at=at_rank(first).strip(),
        gap=f", {duration(gap)} after rank {ini.rank} failed" if gap is not None and gap > 0 else "",
    )


def memory_compare(c: Ctx, m: Match) -> str:
    """Each rank's memory from its progress lines, when asked whether one used more than the rest."""
    return answer_more.memory_by_rank(c) if MEMORY_Q.search(m.text) else ""
