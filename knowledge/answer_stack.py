"""What to run so a rank that wedges shows where it is, and where the collective timeout is set.

"Next time it wedges what do I run to get its Python stack, exact cmd?", "what i add next time so we
see where it stop", "where do I set the pg timeout, and to what, for a debug run?". Why: a rank that
hangs prints nothing, so the logs can never show its stack; the only way to see it is to ask the
live process (py-spy) or to have it dump itself (faulthandler), and a short process-group timeout
makes a debug run fail in minutes. The answer names the rank the others waited for, its pid and
node when the launcher printed them, and says first whether it crashed or hung when that is asked.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_triage as tt
from knowledge import answer_checks, answer_silent, answer_triage
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView

#: a Python stack asked for, or seeing where a rank stops ("its python stack", "see where it stop")
STACK_Q = re.compile(
    r"\b(?:python |py )?stack(?: ?trace| dump)?s?\b|\bpy-?spy\b|\bfaulthandler\b"
    r"|\b(?:see|know|show|find|tell|prove|confirm|(?:proof|evidence) of)\w* where"
    r" (?:it|rank \d+|r\d+|the rank|they) (?:is |was |gets? |got )?"
    r"(?:stop|stops|stopped|stuck|wedged|hangs?|hung|hanging|blocked)\b"
)
#: asked for next time, or what to run or add ("next time", "what do i run", "what env/tool", "exact cmd")
_NEXT = re.compile(
    r"\bnext time\b|\bin future\b|\bgoing forward\b|\b(?:which|what) (?:command|cmd|tool)\b"
    r"|\b(?:freezes|hangs|wedges|stalls|sticks|happens) again\b"
    r"|\bwhat (?:do|should|can|would) (?:i|we) (?:run|add|set|use)\b"
    r"|\bwhat (?:env|tool|flag|setting|command|cmd)\w*\b|\bexact (?:cmd|command)\b|\bwhat i (?:add|run|put)\b"
)
#: where the process group's timeout is set, or what to set it to ("where do i set the pg timeout")
PG_TIMEOUT_Q = re.compile(
    r"\bwhere (?:do|can|should|would) (?:i|we) (?:set|change|configure|lower|raise)\b[^?]{0,20}\btime ?out\b"
    r"|\b(?:set|lower|shorten)\w* (?:the |our )?(?:pg |process group |nccl |gloo |collective |watchdog )?"
    r"time ?out\b[^?]{0,30}\b(?:debug|repro|test)\b"
)
#: categories whose failure is a wait that timed out: the rank waited on was alive, somewhere
_WAITS = frozenset({"nccl_timeout", "hang_no_error"})
#: "crash or hang?" asked with it
_CRASH_OR_HANG = re.compile(r"\b(?:crash\w*|die|died)\b.{0,15}\bor\b.{0,15}\b(?:hang|hung|stuck)\b")


def stack_next_time(c: Ctx, m: Match) -> Reply | None:
    """The commands that show a wedged rank's stack next time, and the debug-run timeout, as asked."""
    stack = bool(STACK_Q.search(m.text) and _NEXT.search(m.text))
    pg = bool(PG_TIMEOUT_Q.search(m.text))
    r = _awaited(c, m)
    if not (stack or pg) or r is None or not _hung(c, r):
        return None  # a rank that crashed leaves a core or a fault handler's stack: the debug steps say so
    parts: list[str] = []
    if _CRASH_OR_HANG.search(m.text) and answer_silent.silent(r):
        parts.append(answer_silent.quiet(c, r))  # "crash or hang?": it went silent, when, after which step
    if pg:
        timeout = answer_triage.timeout_seconds(c)
        parts.append(tt.PG_TIMEOUT_DEBUG.format(timeout=f"{timeout:g} s" if timeout else "not printed"))
    if stack:
        parts.append(stack_sentence(c, r))
        found = answer_checks.backend_of(c)
        if found is None or found[0].lower() == "nccl":
            parts.append(tt.STACK_NCCL_DUMP)
    return reply("debug", " ".join(parts), c.view.key_line())


def stack_sentence(c: Ctx, r: RankView) -> str:
    """py-spy on the rank's pid, and faulthandler for it to dump itself. The pid is a placeholder: the
    next run's process gets a new one (`ps -ef | grep train.py` on the node finds it)."""
    pid = f"<rank {r.rank}'s pid>"
    node = f"`{r.node}`" if r.node else "its node"
    return tt.STACK_NEXT.format(rank=r.rank, pid=pid, node=node, seconds=60)


def _hung(c: Ctx, r: RankView) -> bool:
    """The rank went silent, or the failure is a wait that timed out: a live process to ask."""
    return answer_silent.silent(r) or (r.category or c.view.category) in _WAITS


def _awaited(c: Ctx, m: Match) -> RankView | None:
    """The rank asked about, else the one the others waited for."""
    named = [c.view.ranks[x] for x in m.ranks if x in c.view.ranks]
    return named[0] if named else c.view.initiating


__all__ = ["PG_TIMEOUT_Q", "STACK_Q", "stack_next_time", "stack_sentence"]
