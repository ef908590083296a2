"""The node's RAM or a cgroup (`--mem`) limit: what decides it, and whether this job has it ("before I
file it as RAM sizing: what would you need to see to tell the box ran out from a cgroup limit? do we
have MaxRSS or dmesg?").

The answer names the two records that decide it (the node's kernel log and the scheduler's
accounting), what each would say for either case, and which of them this job's evidence holds. Why:
the ask was answered with "host RAM, not GPU memory", which is not the question: the reader already
knows it was host memory and asks whose limit it hit.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_verdicts as tv
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match

#: a cgroup or scheduler memory limit set against the node's own RAM
ASKED = re.compile(
    r"\b(?:cgroup|memcg|--mem\b|mem(?:ory)? limit|slurm(?:'s)? (?:mem|memory|limit)|container limit"
    r"|job(?:'s)? (?:mem|memory) limit|requested mem\w*|reqmem)"
)
#: ... weighed against the node's own RAM ("the box running out of RAM vs a cgroup limit")
_AGAINST = re.compile(
    r"\b(?:vs\.?|versus|or|from|against|tell apart|distinguish)\b[^?]{0,40}"
    r"\b(?:ram|box|node|host|machine|global|system[- ]wide)\b"
    r"|\b(?:ram|box|node|host|machine|global|system[- ]wide)\b[^?]{0,40}\b(?:vs\.?|versus|or|from)\b"
)
_HOST = frozenset({"host_oom", "cpu_oom_checkpoint", "dataloader_worker_killed"})
#: a kernel line of an OOM kill, and the words a cgroup's own OOM adds
_KERNEL_OOM = re.compile(r"oom-killer|out of memory|killed process", re.IGNORECASE)
_CGROUP = re.compile(r"memory cgroup|oom_memcg|task_memcg|constraint=CONSTRAINT_MEMCG", re.IGNORECASE)
_ACCOUNTING = re.compile(r"\bMaxRSS\b|\bReqMem\b|OUT_OF_MEMORY|oom-kill event", re.IGNORECASE)


def limit_or_ram(c: Ctx, m: Match) -> Reply | None:
    """What tells the node's RAM from a cgroup limit, and which of those records this job has."""
    if c.view.category not in _HOST or not (ASKED.search(m.text) and _AGAINST.search(m.text)):
        return None
    kernel = [ln for ls in c.d.nodes.values() for ln in ls if _KERNEL_OOM.search(ln.text)]
    pool = [*c.view.evidence, *(ln for t in c.d.tails for ln in t.lines)]
    sched = [ln for ln in pool if _ACCOUNTING.search(ln.text)]
    parts = [tv.LIMIT_DECIDES]
    if kernel:
        said = tv.LIMIT_CGROUP_SEEN if any(_CGROUP.search(ln.text) for ln in kernel) else tv.LIMIT_BOX_SEEN
        parts.append(tv.LIMIT_KERNEL_HAVE.format(ref=_ref(kernel[0]), said=said))
    else:
        parts.append(tv.LIMIT_KERNEL_NONE)
    parts.append(tv.LIMIT_SCHED_HAVE.format(ref=_ref(sched[0])) if sched else tv.LIMIT_SCHED_NONE)
    return reply("memory", " ".join(parts), [*kernel[:2], *sched[:1]])


def _ref(ln: EvidenceLine) -> str:
    return f"{ln.source}:{ln.line}"


__all__ = ["limit_or_ram"]
