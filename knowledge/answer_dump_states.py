"""The Flight Recorder dumps' last entry on each rank, when the message asks about the dumps' records:
"in the dumps, how many collectives does each rank have recorded, and what state is the last entry in
on ranks 0, 1 and 3 compared with rank 2?".

Why: the rank-count and version answers say who failed, or that rank 2 never entered #5, without each
rank's last recorded collective and its state (`started` on the waiters, `completed` on the rank that
never arrived). The dumps' per-rank activity holds both; the sequence number counts the collectives a
rank entered in that group, which is what "how many" can be answered with from the diagnosis.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_rankfigs as tx
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply
from knowledge.answer_types import rank_list as rl

#: the dumps named ("flight recorder", "the dumps", "nccl_trace", "FR")
_DUMPS = re.compile(
    r"\bflight[- ]?recorder\b|\bdumps?\b|\bnccl_trace\w*|\bfr (?:dumps?|traces?)\b", re.IGNORECASE
)
#: what is asked of them: each rank's entries, their last entry, its state
_ASK = re.compile(
    r"\b(?:last|final|latest) (?:entry|entries|record\w*|collective|op\w*)\b|\bstate\w*\b|\bstatus\b"
    r"|\bhow many (?:collectives|entries|records|ops|operations)\b|\brecorded\b|\beach rank\b",
    re.IGNORECASE,
)


def last_entries(c: Ctx, text: str) -> str:
    """Each rank's last recorded collective and its state, then how many it had entered; "" when the
    job has no dumps or the message does not ask about their entries."""
    col = c.d.collectives
    if not col.activity or not _DUMPS.search(text) or not _ASK.search(text):
        return ""
    rows = [
        tx.DUMP_ROW.format(
            ranks=rl(a.ranks),
            op=a.op or "no op",
            seq=a.seq_id if a.seq_id is not None else "?",
            group=a.group_desc or a.group_id,
            state=a.state or "unknown",
        )
        for a in col.activity
    ]
    said = tx.DUMP_LAST.format(rows="; ".join(rows))
    counted = [a for a in col.activity if a.seq_id is not None]
    groups = {a.group_desc or a.group_id for a in counted}
    if re.search(r"\bhow many\b", text, re.IGNORECASE) and counted and len(groups) == 1:
        counts = ", ".join(tx.DUMP_COUNT_ROW.format(ranks=rl(a.ranks), seq=a.seq_id) for a in counted)
        said += tx.DUMP_COUNT.format(group=groups.pop(), counts=counts)
    return said


def with_states(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with each rank's last dump entry and its state when asked and not said yet."""
    said = last_entries(c, text)
    if not said or "state `" in answer_asks.said(got):
        return got
    return answer_grounds.add(got, said, [])


__all__ = ["last_entries", "with_states"]
