"""Host memory per rank, from the kernel's OOM-kill line: "how much host RAM was each rank using when
it went?".

The kernel prints the resident memory of the process it killed only (`Killed process 3312 (python3)
… anon-rss:251234120kB`); that figure is given, tied to its rank by the launcher's `local_rank: N (pid:
P)` line, and the other ranks' host memory is said to be missing, with where it would be.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tf
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match

#: host memory asked per rank ("how much host ram was each rank using", "per-rank RSS")
ASKS_HOST_EACH = re.compile(
    r"(?=.*\b(?:host|cpu|system) (?:ram|memory|mem)\b|.*\brss\b)"
    r".*(?:\b(?:each|every|per|all(?: the)?)[- ]?(?:ranks?|process(?:es)?|procs?|workers?)\b"
    r"|\bthe others?\b|\bother ranks\b|\beach\b)"
)
#: a sum or a what-if over the ranks, not each rank's own figure
_WHAT_IF = re.compile(r"\bif\b|\bwould\b|\bneed(?:s|ed)?\b|\bin total\b|\btotal\b|\bsum\b|\bmath\b")
_KILLED = re.compile(r"Killed process (\d+) \(([^)]+)\).*?\banon-rss:(\d+)kB")
_LOCAL = re.compile(r"\blocal_rank:? (\d+) \(pid: (\d+)\)")


def host_each(c: Ctx, m: Match) -> Reply | None:
    """The killed process's resident memory as the kernel printed it, its rank, and that the other
    ranks' is not in the logs; None when not asked or no kernel kill line was kept."""
    text = m.text.lower()
    if not ASKS_HOST_EACH.search(text) or _WHAT_IF.search(text):
        return None  # "if every rank builds a copy, how much would the node need": the memory math
    found = _killed(c)
    if found is None:
        return None
    lead, shown, rank = found
    others = [r for r in sorted(c.view.ranks) if rank is None or str(r) != rank]
    if others:
        lead += " " + tf.HOST_OTHERS.format(ranks=rl(others))
    return reply("memory", lead, shown, action=tf.HOST_WHERE)


def kill_fact(c: Ctx) -> tuple[str, list[EvidenceLine]] | None:
    """The kernel's kill of a process, its RSS and rank, as one sentence ("is the node bad?" is settled
    by what the kernel killed and how big it was); None when no kill line was kept."""
    found = _killed(c)
    return None if found is None else (found[0], found[1])


def _killed(c: Ctx) -> tuple[str, list[EvidenceLine], str | None] | None:
    """The kill line's sentence, its lines (the kill, the launcher's pid-to-rank line), and the rank."""
    lines = pool(c)
    kill = next((ln for ln in lines if _KILLED.search(ln.text)), None)
    if kill is None:
        return None
    got = _KILLED.search(kill.text)
    assert got is not None
    pid, proc, kb = got.group(1), got.group(2), int(got.group(3))
    tie = next((ln for ln in lines if (t := _LOCAL.search(ln.text)) and t.group(2) == pid), None)
    local = _LOCAL.search(tie.text) if tie is not None else None
    rank = local.group(1) if local is not None else None
    who = tf.HOST_WHO_RANK.format(rank=rank) if rank is not None else ""
    lead = tf.HOST_KILLED.format(
        ref=f"{kill.source}:{kill.line}", pid=pid, proc=proc, who=who, kb=kb, gib=kb / 2**20
    )
    return lead, [kill, *([tie] if tie is not None else [])], rank


__all__ = ["ASKS_HOST_EACH", "host_each", "kill_fact"]
