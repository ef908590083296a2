"""What to run on the node for the kernel log, and the pid to look for there, when the message asks it:
"no dmesg in the bundle. what should I run on the node and which pid am I looking for?", "what do I
grep the kernel log for, and for which pid?".

Why: the answer gave the verify command or the rank table; the asker is about to log in to the node.
The kernel log says whether the kernel killed the rank (OOM) or the GPU faulted, so the command is
fitted to this job: the node the rank that started it ran on, the time it went quiet, and its pid
from the launcher's summary (the line a `Killed process <pid>` would name).
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_runfacts as tr
from knowledge import answer_asks
from knowledge.answer_types import Ctx, Reply, ref, reply, when
from knowledge.jobfacts_answers import launcher_exits

#: the kernel log named
_KERNEL = re.compile(r"\b(?:dmesg|kernel log|kern\.log|syslog|journalctl|kernel)\b", re.IGNORECASE)
#: asks what to run or look for there
_WHAT = re.compile(
    r"\bwhat (?:should|do|can|would) (?:i|we) (?:run|grep|check|type|look for|search)\b|\bgrep\b"
    r"|\bwhich (?:command|cmd)\b|\bwhat (?:command|cmd)\b|\brun on (?:the |that |each )?(?:node|box|host)\b"
    r"|\bwhich pid\b|\bwhat pid\b",
    re.IGNORECASE,
)


def command(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The kernel-log command on the first rank's node, the time to read around and its pid."""
    ini = c.view.initiating
    if ini is None:
        return "", []
    node = f"`{ini.node}`" if ini.node else f"rank {ini.rank}'s node"
    last = ini.last_step_line or ini.first_line
    stamp = when(ini.first_time) or "the time it failed"
    since = (ini.first_time or "")[:10] or "today"
    own = [e for e in launcher_exits(c.d) if e.rank == ini.rank and e.pid is not None]
    pid = tr.KERNEL_PID.format(pid=own[0].pid, rank=ini.rank, ref=ref(own[0].line)) if own else ""
    shown = [own[0].line] if own else ([last] if last is not None else [])
    return tr.KERNEL_CMD.format(node=node, since=since, time=stamp, pid=pid), shown


def with_command(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the kernel-log command and pid, when asked and the answer gives no `dmesg` yet."""
    if not (_KERNEL.search(text) and _WHAT.search(text)) or "dmesg -t" in answer_asks.said(got):
        return got
    said, shown = command(c)
    if not said:
        return got
    if got.intent == "help":
        return reply("command", said, shown)
    return answer_asks.with_lead(got, said, shown)


__all__ = ["command", "with_command"]
