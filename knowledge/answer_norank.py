"""A rank the job never had: "did rank 5 ever enter SeqNum 5?" on a 4-rank job.

Why: the reader may have mixed up jobs or threads; the answer says outright which ranks the job had and
that the one named is not among them, before any fact about the others is read as if it were its.
"""

from __future__ import annotations

import re

from denpex.core.texts import thread as t
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match

#: asks for a rank's lines or logs
_LINES = re.compile(r"\b(?:lines?|logs?|std ?err|std ?out|output)\b")


def no_such_rank(c: Ctx, m: Match) -> Reply | None:
    """ "This job had ranks 0-3; there is no rank 5." when the named rank is outside the world."""
    world = c.view.world_size
    if _LINES.search(m.text):
        return None  # "show rank 99's last lines": the lines' answer names the ranks whose logs were kept
    if m.rank is None or not world or m.rank < world or m.rank in c.view.ranks:
        return None
    if len(c.view.ranks) < world or any(r.role == "missing" for r in c.view.ranks.values()):
        return None  # ranks without a log: the intent's answer says which ranks did log
    return reply("rank_why", t.no_such_rank(m.rank, world), known=False)


__all__ = ["no_such_rank"]
