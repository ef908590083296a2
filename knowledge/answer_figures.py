"""Figures asked beside another ask, added to its answer when it does not say them: the run's wall
clock and size (`answer_wallclock`), the stuck collective's tensor size (`answer_tensor`), whether the
loss climbed before the failure (`answer_evidence.with_climb`). Kept here so the answerer adds them in
one call.
"""

from __future__ import annotations

import re

from knowledge import answer_evidence, answer_more, answer_seqframe, answer_tensor, answer_wallclock
from knowledge.answer_asks import said, with_lead
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match


def added(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got` with each figure the ask wants and `got` does not already say."""
    got = answer_wallclock.with_run(c, m.text, got)  # "… and total run time?": first to last line
    got = answer_tensor.with_size(c, m.text, got)  # "how big was the tensor": the watchdog's NumelIn
    got = answer_seqframe.added(c, m.text, got)  # "seqnum and when", "which deepspeed frame/line"
    got = with_memory_by_rank(c, m.text, got)  # "how did rank 5's mem_alloc compare with the others"
    return answer_evidence.with_climb(c, m, got)  # "did the loss blow up gradually?": the logged values


#: compares the failing rank's memory with the other ranks' ("mem_alloc vs the others", "running hotter")
_MEM_COMPARE = re.compile(
    r"\b(?:mem(?:ory)?(?:_alloc\w*)?|vram|hbm)\b[^?]{0,40}?\b(?:compare\w*|vs\.?|versus|other ranks"
    r"|the others|the rest|every rank|each rank)\b|\b(?:running|ran|run) (?:hotter|heavier|fuller)\b"
)


def with_memory_by_rank(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each rank's logged memory when the ask compares it across ranks and `got` lacks it."""
    if not _MEM_COMPARE.search(text):
        return got
    by_rank = answer_more.memory_by_rank(c)
    if not by_rank or by_rank.lower() in said(got):
        return got
    return with_lead(got, by_rank, [])
