"""Figures asked beside another ask, added to its answer when it does not say them: the run's wall
clock and size (`answer_wallclock`), the stuck collective's tensor size (`answer_tensor`), whether the
loss climbed before the failure (`answer_evidence.with_climb`). Kept here so the answerer adds them in
one call.
"""

from __future__ import annotations

from knowledge import answer_evidence, answer_tensor, answer_wallclock
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match


def added(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got` with each figure the ask wants and `got` does not already say."""
    got = answer_wallclock.with_run(c, m.text, got)  # "… and total run time?": first to last line
    got = answer_tensor.with_size(c, m.text, got)  # "how big was the tensor": the watchdog's NumelIn
    return answer_evidence.with_climb(c, m, got)  # "did the loss blow up gradually?": the logged values
