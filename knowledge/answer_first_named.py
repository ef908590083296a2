"""Which rank failed first, asked in a message that names another rank as what the reader sees: "which
rank is die first? i see rank0 also have error, I am confuse".

Why: the message names rank 0 only as context, so the answer described rank 0 (collateral) and never
said which rank went first. When the message asks which rank failed first and names ranks that did not,
the first failing rank's own answer leads, with why the named rank is not it; nothing changes when the
answer already names the first rank or the job has no first failing rank.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex.core.texts import followups_schedend as ts
from knowledge import answer_asks, answer_join
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import named_ranks

#: "which rank died first", "who failed first", "which one started it"
_FIRST = re.compile(
    r"\b(?:which|what|who)(?: rank| one| gpu| worker| process)?\b[^?.!]{0,25}"
    r"\b(?:first|started it|start(?:ed)? (?:it|this|the (?:failure|crash)))\b",
    re.IGNORECASE,
)


def with_first(c: Ctx, text: str, got: Reply, asked: Callable[[str], Reply]) -> Reply:
    """`got` led by the first failing rank's answer, when the message asks which rank went first but
    names only other ranks, and the answer does not say the first rank yet."""
    ini = c.view.initiating
    m = _FIRST.search(text)
    if ini is None or m is None:
        return got
    named = [r for r in named_ranks(text) if r != ini.rank]
    if not named or ini.rank in named_ranks(text) or f"rank {ini.rank} " in answer_asks.said(got):
        return got
    clause = re.split(r"[?.!]", text[m.start() :])[0]
    if named_ranks(clause):
        return got  # "which of rank 0 and rank 2 went first": the ranks it names are the ask's own
    own = asked(clause)
    if own.intent == "help" or f"rank {ini.rank} " not in answer_asks.said(own):
        return got
    lead = f"{own.lead} {ts.FIRST_NAMED.format(rank=ini.rank, named=named[0])}"
    return answer_join.first(got, lead, own.lines[:1])


__all__ = ["with_first"]
