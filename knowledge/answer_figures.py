"""Figures asked beside another ask, added to its answer when it does not say them: the run's wall
clock and size (`answer_wallclock`), the stuck collective's tensor size (`answer_tensor`), whether the
loss climbed before the failure (`answer_evidence.with_climb`). Kept here so the answerer adds them in
one call.
"""

from __future__ import annotations

import re

from knowledge import (
    answer_challenged,
    answer_evidence,
    answer_memory,
    answer_more,
    answer_seqframe,
    answer_tensor,
    answer_wallclock,
)
from knowledge.answer_asks import said, sentences, with_lead
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match


def added(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got` with each figure the ask wants and `got` does not already say."""
    got = answer_wallclock.with_run(c, m.text, got)  # "… and total run time?": first to last line
    got = answer_tensor.with_size(c, m.text, got)  # "how big was the tensor": the watchdog's NumelIn
    got = answer_seqframe.added(c, m.text, got)  # "seqnum and when", "which deepspeed frame/line"
    got = with_memory_by_rank(c, m.text, got)  # "how did rank 5's mem_alloc compare with the others"
    return answer_evidence.with_climb(c, m, got)  # "did the loss blow up gradually?": the logged values


#: asks for the figures themselves ("numbers pls", "what were the figures", "how full was it")
_ASKS_NUMBERS = re.compile(
    r"\b(?:numbers|figures|nums)\b|\bhow full\b|\b(?:just|simply|only) (?:full|out of (?:memory|mem))\b"
    # "it only had ~1 GB free. drain it?": a figure of the error's put as the premise
    r"|\b\d+(?:\.\d+)? ?(?:gb|gib|mb|mib|g)\b[^?.]{0,12}\b(?:free|left|available|short)\b"
)


def whole_message(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got` with the figures the whole message asks for, when one of its asks leans on another: "which
    collective were they stuck in, and how big was it?" (its size), "ranks 1-7 timed out at 03:18:20.
    fabric?" (their watchdog line), "GPU bad or just full? numbers pls" (the memory error's figures).
    Each is added once, when `got` does not already say it."""
    got = answer_tensor.with_size(c, m.text, got)
    got = answer_seqframe.premised(c, m.text, got)
    got = answer_challenged.with_challenge(c, m, got)  # "fragmentation, right?": the step's own batch
    return with_memory_figures(c, m, got)


def with_memory_figures(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got` with the memory error's figures (asked, free, total; or the killed process's RSS) when the
    message asks for numbers and an answer of another kind (hardware, restart) left them out."""
    nums = c.view.numbers
    if got.intent == "memory" or not _ASKS_NUMBERS.search(m.text):
        return got
    if nums.oom is None and nums.kill is None and nums.host is None:
        return got
    figures = answer_memory.memory(c, m)
    if figures is None or not figures.lead:
        return got
    told = said(got)  # the figures, not the cause or fix already said (a sentence is known by its start)
    fresh = [x for x in sentences(figures.lead) if x.lower().rstrip(".")[:60] not in told]
    return with_lead(got, " ".join(fresh), figures.lines[:1]) if fresh else got


#: compares the failing rank's memory with the other ranks' ("mem_alloc vs the others", "running hotter")
_MEM_COMPARE = re.compile(
    r"\b(?:mem(?:ory)?(?:_alloc\w*)?|vram|hbm)\b[^?]{0,40}?\b(?:compare\w*|vs\.?|versus|other ranks?"
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
