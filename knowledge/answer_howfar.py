"""How far a job got and how fast, and what the failing step's own lines logged.

Why: "how far did it get and how fast?", "how many steps in did this die, vs a full 10-step run?" were
answered by the rank count or by the phase alone, which names the last step as "was 150" or not at
all, and leaves the rate out unless a rate's unit is named; "what's different about the step that
died?" / "why OOM on step 2001 when 2000 steps were fine?" got the fix or the generic OOM cause, not the
failing step's own line (its batch: `4 x 16384 tokens, packing disabled`). The answers lead with the
asked fact, read from the lines, then the usual phase or why-answer.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_howfar as tx
from knowledge import answer_code, answer_overview, answer_where
from knowledge.answer_types import Ctx, Reply, at, ref, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView
from knowledge.lines import parse_timestamp

#: asks how far the job got ("how far did it get", "how many steps in did it die", "how far along")
HOW_FAR_Q = re.compile(
    r"\bhow far\b(?! (?:over|above|off|past|beyond|short|under|out)\b)"  # not "how far over the memory"
    r"|\bhow many (?:steps|iters?|iterations) "
    r"(?:in|into|before|did (?:it|this|the \w+) (?:get|do|run|make))\b"
    r"|\b(?:what|which) step did (?:it|this|the \w+|rank \d+) (?:get to|reach|die|fail|crash|stop)\b"
)
#: asks the pace too ("and how fast?", "step time")
HOW_FAST_Q = re.compile(r"\bhow fast\b|\bhow quick(?:ly)?\b|\bspeed\b|\bpace\b")
#: asks what set the failing step apart from the fine ones before it
STEP_DIFF_Q = re.compile(
    r"\b(?:different|differ\w*|special|unusual|changed)\b[^?]{0,30}\b(?:step|batch|iteration)\b"
    r"|\b(?:step|batch|iteration) (?:that|which) (?:died|failed|crashed|blew up|oom\w*)\b[^?]{0,20}\bdiffer"
    r"|\b(?:fine|ok|okay|good|no problems?|without (?:a |any )?(?:problems?|issues?))\b[^?]{0,30}"
    r"\b(?:for|through|in) (?:the )?(?:first )?\d+ (?:steps|iterations)\b"
    r"|\b\d+ (?:steps|iterations)\b[^?]{0,30}\b(?:fine|ok|okay|without (?:a |any )?(?:problems?|issues?))\b"
)
#: a step line that reports the step's failure ("training step 2001 failed"), not its end
_FAILED_STEP = re.compile(r"\bstep \d+ (?:failed|errored|crashed|aborted)\b", re.IGNORECASE)
_OF = re.compile(r"\bstep\s+\d+\s*/\s*(\d+)\b", re.IGNORECASE)


def how_far(c: Ctx, m: Match) -> Reply | None:
    """The furthest step any rank logged (of how many, when its line says), the step rate when asked,
    then the phase answer (what it was doing)."""
    if not HOW_FAR_Q.search(m.text):
        return None
    logged = [r for r in c.view.ranks.values() if r.last_step is not None and r.last_step_line is not None]
    if not logged:
        return None  # no step line kept: the phase answer says what it was doing instead
    best = max(logged, key=lambda r: (r.last_step or 0, -r.rank))
    line = best.last_step_line
    assert line is not None and best.last_step is not None
    total = _OF.search(line.text)
    of = tx.HOW_FAR_OF.format(step=best.last_step, total=total.group(1)) if total else ""
    said = [tx.HOW_FAR.format(step=best.last_step, of=of, rank=best.rank, ref=ref(line), at=_at(line.text))]
    if _FAILED_STEP.search(line.text) and best.last_step > 1:  # "training step 2001 failed": not finished
        said.append(tx.HOW_FAR_FAILED.format(step=best.last_step, done=best.last_step - 1))
    base = answer_overview.phase(c, m)
    fast = HOW_FAST_Q.search(m.text) or answer_where.RATE_Q.search(m.text)
    if fast and (rate := answer_where.step_rate(c)) and (base is None or rate not in base.lead):
        said.append(rate)  # the phase answer adds it itself when a rate's unit is named
    lead = " ".join(said)
    if base is None:
        return reply("phase", lead, [line])
    return reply("phase", f"{lead} {base.lead}", [line, *(x for x in base.lines if x != line)])


def _at(text: str) -> str:
    st = parse_timestamp(text)
    iso = st.iso() if st is not None and not st.relative else None
    return f",{at(iso)}" if iso else ""


def step_diff(c: Ctx, m: Match) -> Reply | None:
    """The failing rank's own line about its last batch (its shape, sequence length, packing), then
    why it failed; with no such line kept, that the logs don't show what set the step apart."""
    if not STEP_DIFF_Q.search(m.text):
        return None
    r: RankView | None = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if r is None or r.role != "initiating":
        return None
    got = answer_code.batch(c, m)
    base = answer_overview.rank_why(c, m)
    if got is None:  # no line about its batch: said so, never a guessed difference
        if base is None:
            return None
        return reply("rank_why", f"{tx.NO_BATCH_LINE.format(rank=r.rank)} {base.lead}", base.lines)
    lead = tx.STEP_DIFF.format(batch=got.lead)
    if base is None:
        return reply("batch", lead, got.lines)
    rest = base.lead if got.lead not in base.lead else base.lead.replace(got.lead, "").strip()
    return reply("rank_why", f"{lead} {rest}", [*got.lines, *(x for x in base.lines if x not in got.lines)])


__all__ = ["HOW_FAR_Q", "STEP_DIFF_Q", "how_far", "step_diff"]
