"""Whether the kernel's OOM killer took one process or the whole job: "what's the 'oom-killer'? did it
kill my whole job or just one of the processes?", "did the kernel kill all the ranks?".

Why: the term's meaning and "it killed pid 3312" leave the reader to map the pid to a rank and to count
the kills; the answer is the rank whose process it was (the launcher's `local_rank: 2 (pid: 3312)`
line ties them) and how many kills the kernel's log holds.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups_memjobs as tm
from knowledge import answer_pid
from knowledge.answer_asks import said
from knowledge.answer_logged import kept
from knowledge.answer_types import Ctx, Reply, reply

#: asks whether the kill took the whole job or one process
SCOPE_Q = re.compile(
    r"\b(?:whole|entire) (?:job|run|training|thing)\b[^?]{0,40}\b(?:or|vs)\b[^?]{0,20}"
    r"\b(?:one|single|1|just|only|a) (?:of (?:the|my) )?(?:process|proc|rank|worker|gpu)"
    r"|\b(?:just|only) (?:one|a single|1) (?:of (?:the|my) )?(?:process|proc|rank|worker)s?\b"
    r"|\bkill(?:ed)? (?:everything|all (?:the |my )?(?:ranks|processes|procs|workers)"
    r"|the whole (?:job|run))\b"
    r"|\b(?:which|what) (?:process|proc|pid|rank) (?:did (?:it|the kernel|the oom[- ]?killer) )?kill(?:ed)?\b"
)


_KILLED = re.compile(r"\bKilled process (\d+)\b")


def with_scope(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the killed process's rank and how many kills the kernel logged, when asked."""
    kill = c.view.numbers.kill
    if not SCOPE_Q.search(text) or kill is None:
        return got
    victim = kill[0]
    count = len({m.group(1) for ln in kept(c) if (m := _KILLED.search(ln.text))})
    tied = answer_pid.whose(c, f"whose is pid {victim.pid}")
    if tied is None or f"pid {victim.pid} is rank" in said(got):
        return got
    sentence = tm.KILL_ONE.format(lead=tied.lead)
    sentence += tm.KILL_ONLY_LINE if count <= 1 else tm.KILL_MANY.format(n=count)
    if got.intent == "help":
        return reply("memory", sentence, tied.lines)
    shown = got.lines + [ln for ln in tied.lines if ln not in got.lines]
    return replace(
        got, lead=f"{got.lead} {sentence}".strip(), lines=shown, material=[*got.material, sentence]
    )


__all__ = ["SCOPE_Q", "with_scope"]
