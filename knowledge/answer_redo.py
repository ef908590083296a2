"""A step the reader states when asking what a rerun costs ("job got to step 2000 of 6000, is there a
checkpoint I can resume from and how many steps would I redo?", "I was at step 40 of 100, do I have to
redo everything?").

Why: the answer names the logs' own last step and whether a save is logged, but not the reader's step,
so "how many would I redo" is left for them to work out. This says it in their step: all of it when no
save is logged, else the steps after the last save; the logs' last step is said next to it.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_yesno as ty
from knowledge import answer_asks
from knowledge.answer_job import no_worker_started
from knowledge.answer_quote import saving_line
from knowledge.answer_types import Ctx, Reply, ref

#: "step 2000 of 6000", "at step 40/100", "got to step 150"
_STATED = re.compile(r"\b(?:step|iter(?:ation)?)\s?(\d+)(?:\s?(?:of|/)\s?(\d+))?\b")
#: asks what a rerun redoes or loses, or whether there is a save to resume from
_REDO = re.compile(
    r"\bredo\w*\b|\bre-?run\w* (?:everything|all|from scratch)\b|\blos[et]\b|\blose\b|\bfrom scratch\b"
    r"|\bhow many steps\b|\bstart (?:over|again)\b"
)


def stated_step(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with what a rerun redoes, counted in the step the reader gave, when it lacks that step."""
    low = text.lower()
    said = _STATED.search(low)
    ini = c.view.initiating
    saving = ini is not None and ini.phase == "checkpoint_save"
    if said is None or not _REDO.search(low) or no_worker_started(c) or saving:
        return got  # a save cut short: the checkpoint answers say what it left
    step, total = said.groups()
    if f"step {step}" in answer_asks.said(got) and "redo" in answer_asks.said(got):
        return got
    reached = [r for r in c.view.ranks.values() if r.last_step is not None]
    if not reached:
        return got
    top = max(reached, key=lambda r: (r.last_step or 0, -r.rank))
    of = f" of {total}" if total else ""
    saved = saving_line(c)
    if saved is None and "no checkpoint save is logged" in answer_asks.said(got):
        lead = ty.REDO_SHORT.format(said=step, of=of, last=top.last_step)
        return answer_asks.with_lead(got, lead, [])
    if saved is None:
        lead = ty.REDO_NO_SAVE.format(said=step, of=of, last=top.last_step, rank=top.rank)
        return answer_asks.with_lead(got, lead, [])
    lead = ty.REDO_SAVED.format(
        said=step, of=of, name=saved[0], save_ref=ref(saved[1]), last=top.last_step, rank=top.rank
    )
    return answer_asks.with_lead(got, lead, [])
