"""Which rank and node a quoted pid, busId or PCI id belongs to ("`Killed process 51234` whose pid is
that", "Xid (PCI:0000:3b:00) … which rank/node is this", "rank 1 also shows busId 3b000").

A pid is found in this job's own lines (the launcher's `local_rank: 2 (pid: 51234)`, a rank's own line,
a DataLoader worker's report); a PCI id in the rank's GPU fact and the node whose kernel log named it.
Why: people paste a kernel or driver line and ask whose it is; the answer is a rank and a node, with
the line that ties them, not the job's summary.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import named_ranks
from knowledge.lines import parse_rank

#: asks whose something is
ASKS_WHOSE = re.compile(
    r"\bwhose\b|\bwhich (?:rank|node|gpu|host|process)\b|\bwho owns\b|\bbelongs? to\b|\bwhat rank\b"
    r"|\bhow do (?:you|u) know it\W?s\b"
    # "show me the line that ties pid 3312 to a rank", "map pid 3312 to its rank"
    r"|\b(?:ties?|tying|maps?|links?|connects?)\b[^?]{0,30}\b(?:to|with) (?:a |its |the |which )?"
    r"(?:rank|node)\b"
)
_PID = re.compile(r"\bpid[=: ]+\(?(\d{2,7})\b|\b(?:killed )?process (\d{2,7})\b|\bworker \(pid (\d{2,7})\)")
_BUS = re.compile(r"\bbus ?id[=: ]*([0-9a-f]{4,8})\b|\bpci:?[ ]*(?:0000:)?([0-9a-f]{2}:[0-9a-f]{2})", re.I)
_LOCAL = re.compile(r"\blocal_rank:? (\d+) \(pid: (\d+)\)")
_WORKER = re.compile(r"DataLoader worker \(pid (\d+)\)")


def whose(c: Ctx, text: str) -> Reply | None:
    """The rank and node of the pid or bus id the question quotes; None when it quotes neither."""
    if not ASKS_WHOSE.search(text):
        return None
    pid = next((g for m in _PID.finditer(text) for g in m.groups() if g), None)
    if pid is not None and (found := _pid(c, pid)) is not None:
        return found
    bus = next((g for m in _BUS.finditer(text) for g in m.groups() if g), None)
    return _bus(c, bus.lower(), text) if bus is not None else None


def _pool(c: Ctx) -> list[EvidenceLine]:
    return c.view.evidence + [ln for tl in c.d.tails for ln in tl.lines]


def _pid(c: Ctx, pid: str) -> Reply | None:
    """The line that names the pid's rank: the launcher's `local_rank: N (pid: P)` first, since it ties
    them outright; else the rank's own line or the one log that holds it."""
    pool = _pool(c)
    tied = [ln for ln in pool if (m := _LOCAL.search(ln.text)) and m.group(2) == pid]
    for ln in tied + [ln for ln in pool if ln not in tied]:
        if not re.search(rf"\b{pid}\b", ln.text):
            continue
        rank = _rank_of(c, ln, pid)
        if rank is None:
            continue
        r = c.view.ranks.get(rank)
        node = f" on {r.node}" if r is not None and r.node else ""
        worker = _WORKER.search(ln.text)
        what = "DataLoader worker" if worker and worker.group(1) == pid else "process"
        lead = tff.PID_RANK.format(pid=pid, rank=rank, node=node, what=what, ref=ref(ln))
        if what == "DataLoader worker" and "Killed" in ln.text:
            lead += " " + tff.PID_WORKER_KILLED.format(pid=pid)
        said, shown = _killed(pool, ln, pid)
        return reply("which_rank", f"{lead} {said}".strip(), [ln, *shown])
    return None


_EXIT = re.compile(r"\bexitcode:? (-?\d+)\)? local_rank: (\d+)")
_KILLED = re.compile(r"\bKilled process (\d+)\b")


def _killed(pool: list[EvidenceLine], tie: EvidenceLine, pid: str) -> tuple[str, list[EvidenceLine]]:
    """The launcher's exit code on the line that ties the pid, and the kernel's kill of that pid."""
    said: list[str] = []
    if (ex := _EXIT.search(tie.text)) is not None:
        said.append(tff.PID_EXIT.format(local=ex.group(2), pid=pid, code=ex.group(1)))
    kill = next((ln for ln in pool if (k := _KILLED.search(ln.text)) and k.group(1) == pid), None)
    if kill is not None and kill is not tie:
        said.append(tff.PID_KERNEL.format(pid=pid, ref=ref(kill)))
    return " ".join(said), [kill] if kill is not None and kill is not tie else []


def _rank_of(c: Ctx, ln: EvidenceLine, pid: str) -> int | None:
    local = _LOCAL.search(ln.text)
    if local and local.group(2) == pid:
        return int(local.group(1))
    info = parse_rank(ln.text)
    if info.rank is not None:
        return info.rank
    owners = {tl.rank for tl in c.d.tails if ln in tl.lines and tl.rank is not None}
    if len(owners) == 1:
        return owners.pop()
    ini = c.view.initiating
    if _XID.search(ln.text):
        return None  # an Xid's pid is the process as the kernel saw it: the line ties it to no rank
    return ini.rank if ini is not None and ln in c.view.evidence else None


_XID = re.compile(r"\bNVRM: Xid\b")


def _bus(c: Ctx, bus: str, text: str) -> Reply | None:
    key = bus.replace(":", "")[:4]
    hits = [r for r in c.view.ranks.values() if r.gpu and key in r.gpu.lower().replace(":", "")]
    lines = [ln for ln in c.view.evidence if key in ln.text.lower().replace(":", "")][:1]
    on_node = [r for r in hits if lines and r.node and r.node in lines[0].source]
    ini = c.view.initiating
    hits = on_node or [r for r in hits if ini is not None and r.rank == ini.rank] or hits
    if not hits:
        return None
    r = hits[0]
    lead = tff.BUS_RANK.format(
        bus=bus, rank=r.rank, node=r.node or "its node", ref=ref(lines[0]) if lines else ""
    )
    for other in named_ranks(text):
        o = c.view.ranks.get(other)
        if o is not None and other != r.rank and o.node and o.node != r.node:
            lead += " " + tff.BUS_OTHER.format(other=other, node=o.node, rank=r.rank, at=r.node)
    return reply("which_rank", lead, lines)
