"""What named collateral ranks were doing when their error came ("what were ranks 0 and 2 doing when
they got 'Connection reset by peer'?").

Why: the answer said they were collateral and quoted their error, but not where each one was; the
asker wants each rank's place: the collective its traceback stops in, else its deepest frame in the
user's code (`loss.backward()`), from its own traceback.
"""

from __future__ import annotations

import re

from knowledge import answer_asks, answer_where
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import named_ranks

#: "what were ranks 0 and 2 doing", "what was rank 0 doing when …"
_ASK = re.compile(r"\bwhat (?:was|were) (?:rank|ranks)\b[^?]{0,40}?\b(?:doing|up to)\b")


def with_doing(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each named collateral rank's place, those it does not say yet."""
    if not _ASK.search(text):
        return got
    ranks = [c.view.ranks[r] for r in named_ranks(text) if r in c.view.ranks]
    if not ranks or any(r.role != "collateral" for r in ranks):
        return got
    told = answer_asks.said(got)
    said = []
    for r in ranks:
        place = answer_where.collateral_place(c, r)
        code = re.findall(r"`([^`]+)`", place)
        if place and not (code and all(x.lower() in told for x in code)):
            said.append(
                place.replace("Its ", f"Rank {r.rank}'s ", 1).replace("It was", f"Rank {r.rank} was", 1)
            )
    return answer_asks.with_lead(got, " ".join(said), []) if said else got


__all__ = ["with_doing"]
