"""A span whose two events sit in two asks of one message: "at what times did torchrun SIGTERM the
others and record rank 3's exit?", "gloo timeout value? + how long from last step to launcher giving
up".

Why: a message is answered ask by ask, and each ask alone names one event, so no ask's answer times
both ends; the message as a whole names both. The span answer (`knowledge.answer_spans`) is added
when the whole message names two timed events and the answer does not give their times yet.
"""

from __future__ import annotations

import re

from knowledge import answer_asks, answer_spans
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match

_CLOCK = re.compile(r"\b\d{2}:\d{2}:\d{2}(?:\.\d{3})?\b")


def with_spans(c: Ctx, whole: Match, got: Reply) -> Reply:
    """`got` with the times of the events the whole message names and the span between them."""
    spanned = answer_spans.spans(c, whole)
    if spanned is None:
        return got
    told = answer_asks.said(got)
    clocks = _CLOCK.findall(spanned.lead)
    if not clocks or all(t in told for t in clocks):
        return got
    if got.intent == "help":
        return reply(spanned.intent, spanned.lead, spanned.lines)
    return answer_asks.with_lead(got, spanned.lead, spanned.lines[:2])


__all__ = ["with_spans"]
