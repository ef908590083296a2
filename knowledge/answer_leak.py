"""A memory leak put as the cause ("so rank 5 was leaking the whole run and finally hit the ceiling?").

Why: a leak and a one-off large step call for different fixes (find what holds references, against
cutting the batch or the sequence length), and the reader who says "leak" has usually not looked at
the rank's own memory figures. The answer sets the rank's logged memory over the steps Denpex kept
(flat or climbing), against the other ranks', and the failing step's batch when the rank printed it:
a flat line that ends in one big batch is no leak.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_verdicts as tv
from knowledge import answer_more
from knowledge.answer_types import Ctx, Reply, rank_lines, ref, reply
from knowledge.answer_whatif_memory import batch_shape
from knowledge.intents import Match
from knowledge.lines import parse_step

#: a leak, or memory that kept growing, put as the cause
LEAK_Q = re.compile(
    r"\bleak\w*|\bcreep\w*|\b(?:kept|keeps|was|were) (?:growing|climbing|rising|increasing|creeping)\b"
    r"|\bgrew (?:and grew|over|the whole|all)\b"
)
_MEM = re.compile(
    r"\b(?:mem(?:ory)?(?:_alloc(?:ated)?|_reserved|_used)?|max_memory_allocated|gpu_mem)[=: ]+"
    r"([0-9]+(?:\.[0-9]+)?) ?(GiB|GB|G)\b",
    re.IGNORECASE,
)


def _series(c: Ctx, rank: int) -> list[tuple[int, float, str, EvidenceLine]]:
    """The rank's (step, memory, unit, line) from each progress line kept, in step order."""
    out = []
    for lines in rank_lines(c, rank).values():
        for ln in lines:
            step, found = parse_step(ln.text), _MEM.search(ln.text)
            if step is not None and found is not None:
                out.append((step, float(found.group(1)), found.group(2), ln))
    return sorted(out, key=lambda x: x[0])


def leak(c: Ctx, m: Match) -> Reply | None:
    """Flat or climbing over the kept steps, against the others, and the failing step's batch."""
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if not LEAK_Q.search(m.text) or r is None:
        return None
    series = _series(c, r.rank)
    if len(series) < 2:
        return None
    (s1, v1, unit, _), (s2, v2, _, last) = series[0], series[-1]
    grew = v2 - v1 > max(0.5, 0.02 * v1)
    text = tv.LEAK_GREW if grew else tv.LEAK_FLAT
    parts = [
        text.format(
            rank=r.rank, first=f"{v1:.1f} {unit}", s1=s1, last=f"{v2:.1f} {unit}", s2=s2, ref=ref(last)
        )
    ]
    if by_rank := answer_more.memory_by_rank(c):
        parts.append(by_rank)
    shape, shown = batch_shape(c, m)
    if shape and r.role == "initiating":
        parts.append(tv.LEAK_BATCH.format(shape=shape.strip()))
    return reply("memory", " ".join(parts), [*c.view.key_line(), last, *shown])


__all__ = ["LEAK_Q", "leak"]
