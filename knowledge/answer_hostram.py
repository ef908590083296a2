"""Host RAM figures asked for that the logs do not keep ("how much RAM was free when it died?", "how
much were the dataloader workers using?").

Why: a host out-of-memory failure (a kernel kill, a CPU allocator's error, a SIGKILLed DataLoader worker)
gives the size of the last allocation at most; the box's free RAM and each process's RSS are in the
kernel's OOM report or the scheduler's accounting, not in the job's logs. Asked for them, the answer says
the kept lines do not show them and where to read them, on this job's node; it never makes one up.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups_hostram as th
from knowledge.answer_types import Ctx, Reply

#: asks the node's own size ("how much RAM did the node have?", "total memory on the box")
_TOTAL = (
    r"\b(?:how much|what) (?:\w+ ){0,2}(?:ram|memory|mem) (?:did|does|do|was|is) (?:the |that |this )?"
    r"(?:node|box|host|machine|server|vm)s? (?:have|has|got|had|with)\b"
    r"|\btotal (?:host |system |cpu )?(?:ram|memory|mem)\b"
    r"|\b(?:how big|what size) (?:was |is )?(?:the |that )?(?:node|box|host|machine)(?:'s)? (?:ram|memory)\b"
)
TOTAL_Q = re.compile(_TOTAL)
#: asks how much RAM was free, used or held, or how much to request ("how much RAM was free", "rss")
RAM_Q = re.compile(
    r"\b(?:how much|what) (?:\w+ ){0,3}(?:ram|memory|mem)\b.{0,40}"
    r"\b(?:free|available|left|using|used|use|holding|held)\b"
    r"|\b(?:free|available) (?:ram|memory|mem)\b|\brss\b|\bmaxrss\b"
    r"|\bhow much (?:more )?(?:ram |memory |mem )?(?:should|do|would|must) (?:i|we) "
    r"(?:request|ask for|need)\b|" + _TOTAL
)


def unseen(c: Ctx, text: str, got: Reply, host: bool) -> Reply:
    """`got`, with where to read the host RAM figures asked for when it does not give them."""
    ini = c.view.initiating
    node = (ini.node if ini is not None else "") or "the node"
    if host and TOTAL_Q.search(text) and "rss" in got.lead.lower():
        return replace(got, lead=f"{got.lead} {th.TOTAL_UNSEEN.format(node=f'`{node}`')}")
    if not host or not RAM_Q.search(text) or "rss" in got.lead.lower():
        return got
    return replace(got, lead=f"{got.lead} {th.HOST_UNSEEN.format(node=f'`{node}`')}")
