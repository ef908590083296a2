"""Whose side a failure is on, asked by an on-call or a manager ("platform issue or ours?", "our
problem or the scheduler's — need to tell the HPC team?", "node problem or job problem?", "who needs to
hear about it").

Why: the ask sets the cluster's side (the platform, the scheduler, a node or box, storage) against the
job's own (its code, its save, the modeling side) or asks which team must be told. The answer is the
hardware verdict with the job's own failing line and fix (the hardware answer), then whose move it is;
a kernel's kill of a process is shown too, since it is what a node-or-job reader is looking at.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_owner as to
from knowledge import answer_hostmem, answer_overview, answer_owner
from knowledge.answer_doubt_owner import PLATFORM_Q
from knowledge.answer_join import first
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match, asks

#: "who actually killed the worker", "who should know": the same ask put as who
_WHO = re.compile(r"^\W*(?:and |so )?who\b")


def platform_or_ours(c: Ctx, m: Match) -> Reply | None:
    """The hardware verdict (the job's own line, its fix, whose move it is) for a platform-or-ours ask;
    None when the ask is not that or it names a ticket's team (the owner answer's)."""
    if not PLATFORM_Q.search(m.text) or answer_owner.OWNER_Q.search(m.text) or _other_ask(m.text):
        return None  # "infra or training code? and which node do i drain": each ask answered in turn
    got = answer_overview.hardware(c, m)
    if got is None:
        return None
    kill = answer_hostmem.kill_fact(c)
    shown = {(x.source, x.line) for x in got.lines}
    if kill is not None and not all((x.source, x.line) in shown for x in kill[1]):
        got = first(got, kill[0], kill[1])
    return got


def _other_ask(text: str) -> bool:
    """Another ask in the message that is neither whose side it is nor who did it ("… and which node
    do i drain", "is there proof the volume filled?")."""
    return any(not PLATFORM_Q.search(a) and not _WHO.search(a) for a in asks(text))


#: the kernel log to be read before the node goes back ("check dmesg before putting it back?")
_DMESG_BACK = re.compile(
    r"\b(?:dmesg|kernel log|syslog)\b.{0,60}\b(?:before|prior to) (?:i |we )?(?:put|putting|return|returning"
    r"|bring|bringing|undrain\w*|add|adding)\b"
)
_KERNEL_LINE = re.compile(r"invoked oom-killer|Killed process|NVRM: Xid|segfault at|I/O error|EXT4-fs|XFS")


def dmesg_before_return(c: Ctx, m: Match) -> Reply | None:
    """ "Should I check dmesg on the box before putting it back?": yes, the command, and the kernel
    lines this job's evidence already holds, before the usual fix; None when not asked."""
    if not _DMESG_BACK.search(m.text):
        return None
    got = answer_overview.fix(c, m)
    if got is None:
        return None
    ini = c.view.initiating
    node = ini.node if ini is not None and ini.node else "the node"
    kernel = [ln for ln in pool(c) if _KERNEL_LINE.search(ln.text)]
    said = to.DMESG_SOME.format(n=len(kernel)) if kernel else to.DMESG_NONE
    return first(got, to.DMESG_BEFORE_RETURN.format(node=node, kernel=said), kernel[:2])


__all__ = ["PLATFORM_Q", "dmesg_before_return", "platform_or_ours"]
