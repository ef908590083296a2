"""The watchdog's own count of NCCL work: "which SeqNum timed out, and what was their last completed?".

Why: PyTorch's watchdog prints, beside the timeout, `detected by watchdog at work: 4512, last enqueued
NCCL work: 4512, last completed NCCL work: 4511`. When a question asks for the last completed (or
enqueued) work, the answer is that line's figures, per group of ranks that printed the same ones, with
the line to check. A job whose kept lines carry no such count gets nothing from here.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_job as tj
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, rank_list, ref
from knowledge.intents import Match

#: asks the watchdog's work counters ("their last completed work", "last enqueued collective")
ASKS = re.compile(
    r"\blast (?:completed|finished|done|successful|enqueued|queued|issued|launched)\b"
    r"|\b(?:completed|enqueued) (?:work|seq\w*|collective|op)\b"
)
_COUNTS = re.compile(
    r"\bat work: (\d+), last enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+)", re.IGNORECASE
)
_RANK = re.compile(r"\bRank (\d+)\]")


def counts(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """One sentence per set of figures the ranks printed, and a line of each; ("", []) when none."""
    if not ASKS.search(m.text):
        return "", []
    groups: dict[tuple[str, str, str], list[tuple[int, EvidenceLine]]] = {}
    for ln in pool(c):
        if (got := _COUNTS.search(ln.text)) and (who := _RANK.search(ln.text)):
            rank = int(who.group(1))
            if m.ranks and rank not in m.ranks:
                continue
            key = (got.group(1), got.group(2), got.group(3))
            if all(r != rank for r, _ in groups.get(key, [])):
                groups.setdefault(key, []).append((rank, ln))
    said, shown = [], []
    for (at, enq, done), hits in groups.items():
        ranks = sorted(r for r, _ in hits)
        line = min(hits)[1]
        said.append(
            tj.WORK_COUNTS.format(ranks=rank_list(ranks), at=at, enqueued=enq, completed=done, ref=ref(line))
        )
        shown.append(line)
    return " ".join(said), shown
