"""What a failure cost in GPU time ("how many GPU-hours did they burn waiting?", "GPU-hours used?").

Why: a post-incident review asks for cost, and the logs hold exactly the two figures it is made of:
how long the collateral ranks sat in the collective after the failed rank was gone (its failure to
their watchdog, else the watchdog's own elapsed time), and how long the run as a whole ran (first to
last log line), each times the ranks it applies to. One GPU per rank is the assumption, said with it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_review as tr
from knowledge.answer_asks import with_lead
from knowledge.answer_types import Ctx, Reply, at, at_rank, duration, rank_lines, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.jobfacts_answers import RankView, rank_numbers, seconds_between

#: asks for GPU time ("GPU-hours", "gpu hrs", "compute cost", "cost for the PIR")
ASKS_COST = re.compile(
    r"\bgpu[- ]?(?:hours?|hrs?|h|min(?:ute)?s?|days?|time)\b|\bcompute (?:cost|time|spent|wasted|burn\w*)\b"
    r"|\bhow much compute\b|\b(?:timeline|time ?line) and cost\b|\bcost (?:us|of (?:it|this|the \w+))\b"
)
#: asks for the wait, not the whole run ("spent waiting", "burn waiting", "sat idle")
ASKS_WAIT = re.compile(
    r"\bwait\w*|\bidle\b|\bsat\b|\bsit\w*\b|\bblocked\b|\bhung\b|\bstuck\b|\bburn\w* waiting\b"
)
#: a wait this short is not worth a GPU-hour figure of its own
MIN_WAIT_S = 5.0


def cost(c: Ctx, text: str) -> str:
    """The GPU time asked for: the wait first when the ask is about waiting (or the whole run when no
    rank waited), then the other figure; "" when the ask is not about GPU time or no figure is logged."""
    if not ASKS_COST.search(text):
        return ""
    waited, ran = _waited(c), _ran(c)
    first, second = (waited, ran) if ASKS_WAIT.search(text) or not ran else (ran, waited)
    return " ".join(x for x in (first, second, _progress(c) if first else "") if x)


#: a progress line's step and planned total ("step 2000/6000 loss=…")
_STEP_OF = re.compile(r"\bstep (\d+) ?/ ?(\d+)\b", re.IGNORECASE)


def _progress(c: Ctx) -> str:
    """The furthest step any rank logged as a progress line ("step 2000/6000"), with its line: what the
    GPU time bought; "" when no line prints a step out of a total."""
    best: tuple[int, int, int, EvidenceLine] | None = None
    for rank in sorted(c.view.ranks):
        for line in (ln for src in rank_lines(c, rank).values() for ln in src):
            found = _STEP_OF.search(line.text)
            if found and (best is None or int(found.group(1)) > best[0]):
                best = (int(found.group(1)), int(found.group(2)), rank, line)
    if best is None:
        return ""
    step, total, rank, line = best
    return tr.PROGRESS.format(step=step, total=total, rank=rank, ref=ref(line))


def _wait_of(c: Ctx, ini: RankView | None, r: RankView) -> float | None:
    """How long one collateral rank sat after the failed rank was gone: its failure to this rank's,
    else the watchdog's elapsed time (a silent rank's failure has no time), else its timeout."""
    gap = seconds_between(ini.first_time, r.first_time) if ini is not None else None
    if gap is not None and gap > 0:
        return gap
    wd = rank_numbers(c.view, r).watchdog
    if wd is None:
        return None
    return wd[0].elapsed_s if wd[0].elapsed_s is not None else wd[0].timeout_s


def _waited(c: Ctx) -> str:
    ini = c.view.initiating
    waits = {r.rank: w for r in c.view.with_role("collateral") if (w := _wait_of(c, ini, r)) is not None}
    if not waits or max(waits.values()) < MIN_WAIT_S:
        return ""
    coll = [r for r in c.view.with_role("collateral") if r.rank in waits]
    total = sum(waits.values())
    each = total / len(waits)
    span = ""
    if ini is not None and ini.first_time and (last := max(r.first_time or "" for r in coll)):
        span = tr.WAITED_SPAN.format(ini=ini.rank, ini_at=at_rank(ini), coll_at=at(last))
    return tr.WAITED.format(
        ranks=rl(coll),
        n=len(coll),
        wait=duration(each),
        wait_min=f"{each / 60:.0f} min" if each >= 120 else f"{each:.0f} s",
        span=span,
        gpu_min=total / 60,
        gpu_h=total / 3600,
    )


def _ran(c: Ctx) -> str:
    v = c.view
    span = seconds_between(v.start, v.end)
    n = v.world_size or len([r for r in v.ranks.values() if r.role != "missing"])
    if span is None or span <= 0 or not n:
        return ""
    return tr.RAN.format(
        n=n,
        span=duration(span),
        start=at(v.start).removeprefix(" at "),
        end=at(v.end).removeprefix(" at "),
        gpu_min=n * span / 60,
        gpu_h=n * span / 3600,
    )


#: answers that say nothing of time: asked with GPU time, the cost leads them
_TIMELESS = frozenset({"ranks_count", "summary", "which_rank"})


def with_cost(got: Reply, spent: str) -> Reply:
    """`got` with the GPU time asked for: alone for an ask nothing else answered, first before an
    answer that says no time, else after the answer (the timeline it completes)."""
    if got.intent == "help":
        return reply("when", spent)
    if got.intent in _TIMELESS:
        return replace(got, lead=f"{spent} {got.lead}", material=[spent, *got.material])
    return with_lead(got, spent, [])
