"""What the other ranks died of, when a message asks it beside another ask: "are you sure it's rank 0
and not the other ranks? they all died too. what did they die of and when", "and the rest, what
killed them?".

Why: the message's first ask (a doubt, a count) decides its answer, which then says the others were
collateral and when, but not their own failure line (the watchdog's timeout with its SeqNum and op);
the reader who doubts the verdict wants to see that line. The collateral answer is added when the
answer quotes none of their first failure lines.
"""

from __future__ import annotations

import re

from knowledge import answer_asks, answer_overview
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match

#: asks what the others (or "they") died of, or what killed them
DIED_OF_Q = re.compile(
    r"\bwhat (?:did|do|have) (?:they|them|those|the others|the rest|the other (?:\w+ )?ranks|all of them"
    r"|everyone else|ranks? \d[\d, and-]*) (?:all |each |actually |really )?"
    r"(?:die|died|crash\w*|fail\w*|exit\w*|end\w*|go down) (?:of|from|with)\b"
    r"|\bwhat (?:killed|took down|ended|stopped) (?:them|the others|the rest|the other (?:\w+ )?ranks)\b"
    r"|\bhow did (?:they|the others|the rest|the other (?:\w+ )?ranks) (?:all |each )?(?:die|end|go down)\b"
    # "why rank 0 and not the other ranks? what were 1-3 doing": the others' part, with their own end
    r"|\bwhat (?:were|was) (?:they|the others|the rest|the other (?:\w+ )?ranks"
    r"|(?:ranks? )?\d+ ?(?:-|to|and|through) ?\d+) (?:all |each )?doing\b"
)


def with_died_of(c: Ctx, whole: Match, got: Reply) -> Reply:
    """`got` with the collateral ranks' own failure, when asked and no line of theirs is quoted."""
    coll = c.view.with_role("collateral")
    if not DIED_OF_Q.search(whole.text) or not coll or got.intent == "others":
        return got
    refs = {r.first_line.ref for r in coll if r.first_line is not None}
    told = answer_asks.said(got)
    if any(ln.ref in refs for ln in got.lines) or any(ref.lower() in told for ref in refs):
        return got
    theirs = answer_overview.others(c, whole)
    if theirs is None:
        return got
    if got.intent == "help":
        return theirs
    return answer_asks.add(got, whole.text, theirs)


__all__ = ["DIED_OF_Q", "with_died_of"]
