"""The check that tells the verdict from what else it could be, added to a "what else?" answer.

"what else besides full disk, and what cmd tells them apart", "0.36 is low: what would rule it in or
out?", "how sure are we it's disk full? I don't see ENOSPC", "maybe the NFS mount flaked?". Why: a list
of runners-up (or a yes/no on a guess) leaves the reader with nothing to decide by. The answer adds the
one check that decides it on this job: for a rank that went silent, that it wrote no error and what
gets its stack; otherwise the entry's check command on the failing rank's node, and what it shows.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_verdicts as tv
from knowledge import answer_silent
from knowledge.answer_types import Ctx

#: asks how to decide between causes, or doubts the verdict ("what cmd tells them apart", "how sure")
TELL_APART_Q = re.compile(
    r"\btell (?:them|it|these|those|the two|which)\b|\bapart\b|\brule (?:it |them |this |that )?(?:in|out)\b"
    r"|\bhow (?:sure|confident|certain)\b|\b(?:what|which) (?:cmd|command|check)\b|\bdistinguish\w*"
    r"|\bprobably not\b|\bnot (?:\w+ )?at all\b|\bmove on\b"
)


def tell_apart(c: Ctx, text: str, said: str) -> str:
    """The deciding check as a sentence ("" when not asked, already said, or the job has none)."""
    if not TELL_APART_Q.search(text):
        return ""
    ini = c.view.initiating
    if ini is not None and answer_silent.silent(ini):
        quiet = tv.TELL_SILENT.format(rank=ini.rank, next=answer_silent.next_steps(c, ini))
        return "" if "py-spy" in said else quiet
    command = c.d.verify or (c.entry.verify if c.entry else "")
    if not command or command.lower() in said.lower():
        return ""
    node = f"`{ini.node}`" if ini is not None and ini.node else "the node that failed"
    shows = c.entry.faq.cheapest_confirmation if c.entry else ""
    return tv.TELL_APART.format(command=command, node=node, shows=f" ({shows.rstrip('.')})" if shows else "")


__all__ = ["TELL_APART_Q", "tell_apart"]
