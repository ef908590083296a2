"""The memory limit a host out-of-memory failure was up against ("how big was the proc when the oom
killer got it, and what limit?", "it only asked for 16MB, do I loop in infra about the node's memory?").

The memory answer gives the process's size or the small allocation that failed, but the reader also
asks whose limit it hit: the node's RAM or the job's memory request. The kernel line names a memory
cgroup when a cgroup limit was hit; otherwise no kept line prints the limit, and the answer says so and
names the records that do (`sacct` ReqMem/MaxRSS, `free -g`, `dmesg`). Why: without it the ask for
the limit, or whether infra must look at the node, goes unanswered.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups_oomlimit as tl
from knowledge.answer_types import Ctx, Reply, ref

#: the limit, or the node's memory as someone else's problem, asked beside a host OOM's size
ASKS_LIMIT = re.compile(
    r"\b(?:what|which|whose|the) (?:\w+ )?limit\b|\bup against\b|\blimit (?:was|did) (?:it|they)\b"
    r"|\b(?:loop in|ping|ask|tell|involve|escalate to|raise with) (?:the )?(?:infra|admins?|ops|sre|cluster)"
    r"\w*\b.{0,40}\b(?:memory|ram)\b|\b(?:node|box|host|machine)s? (?:memory|ram)\b"
)
_HOST = frozenset({"host_oom", "cpu_oom_checkpoint", "dataloader_worker_killed"})
_CGROUP = re.compile(r"memory cgroup|oom_memcg|task_memcg|constraint=CONSTRAINT_MEMCG", re.IGNORECASE)
_SAID = re.compile(r"\breqmem\b|free -g|--mem\b", re.IGNORECASE)


def with_limit(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the limit a host OOM was up against, when the ask wants it and the answer lacks it."""
    if c.view.category not in _HOST or got.intent != "memory" or not ASKS_LIMIT.search(text):
        return got
    if _SAID.search(got.lead):
        return got
    cgroup = next((ln for ls in c.d.nodes.values() for ln in ls if _CGROUP.search(ln.text)), None)
    said = tl.OOM_LIMIT_CGROUP.format(ref=ref(cgroup)) if cgroup is not None else tl.OOM_LIMIT_UNSAID
    return replace(got, lead=f"{got.lead} {said}".strip())
