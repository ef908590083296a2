"""Where each rank was on a collective, from the Flight Recorder dumps, for an ask about a `#N`.

"explain 'never entered all_reduce #5' — what state were the other three in on #5?": the meaning of
the number alone does not answer it; the dumps' per-rank last collective and its state (started,
completed) do. Kept apart so the glossary answer and the quoted-line answer both add it.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_job as tj
from denpex.core.texts import slack as t
from knowledge.answer_types import Ctx
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match

#: asks what state the ranks were in ("what state were the other three in on #5", "where was everyone
#: else on it", "did the rest start it?")
STATE_Q = re.compile(
    r"\b(?:state|status|others?|else|the rest|other (?:ranks|three|two)|started|completed|r\d|rank \d)\b"
)


def states(c: Ctx, m: Match) -> str:
    """The dumps' sentence ("In the Flight Recorder dumps …: Ranks 0,1,3: all_reduce #5 … (started).")
    with a leading space, when the dumps were read and the ask is about where the ranks were; else ""."""
    col = c.d.collectives
    if not col.activity or not STATE_Q.search(m.text):
        return ""
    rows = [
        t.activity_group(
            rl(a.ranks),
            a.op or "no op",
            f" #{a.seq_id}" if a.seq_id is not None else "",
            a.group_desc or a.group_id,
            f" ({a.state})" if a.state else "",
        )
        for a in col.activity
    ]
    return " " + tj.DUMP_STATES.format(rows=" ".join(rows))
