"""A rank's device and process ids and the kernel log around a GPU fault, added when the message asks:
"which node + local gpu index was rank 5 on", "bus id / index of the dead gpu?", "dmesg says pid=45121
but the NCCL init line for rank 5 shows 4521 - same process?", "anything in dmesg before the xid?".

Why: an infra engineer pulls the GPU by its index or bus id and matches pids between the kernel and
the job; the rank's launch line (`local_rank=1`) and NCCL's init line (`host:pid:tid [dev] … cudaDev 1
nvmlDev 1 busId 3b000`) say them, and the node's kernel log holds what came before the fault. The
answer about the failure names the PCI id or the node only, so these are added with their lines.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_agent as ta
from denpex.core.texts import followups_facts as tfa
from knowledge import answer_asks
from knowledge.answer_types import Ctx, Reply, rank_lines, rank_list, ref
from knowledge.intents import named_ranks

ASKS_INDEX = re.compile(
    r"\b(?:local )?(?:gpu )?index\b|\blocal[ _]rank\b|\blocal gpu\b|\bcuda ?dev|\bnvml"
    r"|\bdevice (?:id|number)\b|\bwhich gpu\b|\bgpu (?:id|number|#)"
)
ASKS_PID = re.compile(r"\bpid\b[^?]{0,80}\b(?:same|match|different|differ|vs\.?|versus)\b|\bsame process\b")
ASKS_BEFORE = re.compile(
    r"\b(?:dmesg|kernel log|kern\.log|syslog)\b[^?]{0,40}\b(?:before|prior|earlier|leading up|preceding)\b"
    r"|\b(?:before|prior to|leading up to)\b[^?]{0,15}\b(?:the )?xid\b"
)
_LAUNCH = re.compile(r"\blocal_rank[=: ]+(\d+)\b")
_NCCL = re.compile(
    r"^(?P<prefix>(?P<host>[\w.-]+):(?P<pid>\d+):\d+) \[\d+\] NCCL INFO .*\brank (?P<rank>\d+) nranks \d+"
    r" cudaDev (?P<cuda>\d+)(?: nvmlDev (?P<nvml>\d+))? busId (?P<bus>[0-9a-f]+)"
)
_FAULT = re.compile(r"\bXid\b|Out of memory|Killed process|fallen off the bus", re.IGNORECASE)
_KPID = re.compile(r"\bpid[= ](\d+)")
_PCI = re.compile(r"PCI:([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2})", re.IGNORECASE)


def with_ids(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the asked rank's GPU index and ids, its pid beside the kernel's, or the kernel lines
    before the fault, each when asked and not yet said."""
    low = text.lower()
    rank = _rank(c, text)
    if rank is None:
        return got
    mine = rank_lines(c, rank)
    lines = [ln for ls in mine.values() for ln in ls]
    lines += [ln for ln in c.d.facts.setup if ln.source in mine]  # its launch and NCCL init lines
    if ASKS_INDEX.search(low):
        got = _add(got, *_index(c, rank, lines))
    if ASKS_PID.search(low):
        got = _add(got, *_pid(c, rank, lines, text))
    if ASKS_BEFORE.search(low):
        got = _add(got, *_before(c))
    if "cuda_visible_devices" in low:  # "what was CUDA_VISIBLE_DEVICES for it?": printed or not
        got = _add(got, *_visible(c, lines))
    return got


def _visible(c: Ctx, lines: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    """The line that prints CUDA_VISIBLE_DEVICES, else that no line of this job prints it."""
    kept = [ln for t in c.d.tails for ln in t.lines] + list(c.view.evidence) + list(c.d.facts.setup)
    for ln in [*lines, *kept]:
        if "CUDA_VISIBLE_DEVICES" in ln.text:
            return "", []
    return tfa.VISIBLE_UNSAID, []


def _rank(c: Ctx, text: str) -> int | None:
    named = [r for r in named_ranks(text) if r in c.view.ranks]
    if named:
        return named[0]
    ini = c.view.initiating
    return ini.rank if ini is not None else None


def _add(got: Reply, said: str, shown: list[EvidenceLine]) -> Reply:
    if not said or said.lower() in answer_asks.said(got):
        return got
    return answer_asks.with_lead(got, said, shown)


def _nccl(lines: list[EvidenceLine], rank: int) -> tuple[EvidenceLine, re.Match[str]] | None:
    for ln in lines:
        m = _NCCL.search(ln.text)
        if m is not None and int(m.group("rank")) == rank:
            return ln, m
    return None


def _index(c: Ctx, rank: int, lines: list[EvidenceLine]) -> tuple[str, list[EvidenceLine]]:
    """`local_rank N` from the rank's launch line and NCCL's device ids from its init line."""
    ids: list[str] = []
    shown: list[EvidenceLine] = []
    launch = next((ln for ln in lines if _LAUNCH.search(ln.text)), None)
    if launch is not None and (m := _LAUNCH.search(launch.text)) is not None:
        ids.append(ta.GPU_LOCAL.format(local=m.group(1)))
        shown.append(launch)
    if (found := _nccl(lines, rank)) is not None:
        ln, n = found
        ids.append(ta.GPU_NCCL.format(cuda=n.group("cuda"), nvml=n.group("nvml") or "?", bus=n.group("bus")))
        shown.append(ln)
    if not ids:
        return _inferred(c, rank)
    r = c.view.ranks.get(rank)
    node = f" on {r.node}" if r is not None and r.node else ""
    said = ta.GPU_IDS.format(rank=rank, node=node, ids="; ".join(ids), ref=", ".join(ref(x) for x in shown))
    return said.replace("nvmlDev ?, ", ""), shown


def _inferred(c: Ctx, rank: int) -> tuple[str, list[EvidenceLine]]:
    """The local index from the rank's place among its node's ranks, when they are contiguous."""
    r = c.view.ranks.get(rank)
    if r is None or not r.node:
        return "", []
    on = sorted(x.rank for x in c.view.ranks.values() if x.node == r.node)
    if len(on) < 2 or on != list(range(on[0], on[-1] + 1)):
        return "", []
    local = rank - on[0]
    bus = f", PCI {r.gpu}" if r.gpu else ""
    said = ta.GPU_INFERRED.format(
        rank=rank, nth=local + 1, count=len(on), node=r.node, ranks=rank_list(on), local=local, bus=bus
    )
    return said, []


def _kernel_fault(c: Ctx) -> EvidenceLine | None:
    return next((ln for ls in c.d.nodes.values() for ln in ls if _FAULT.search(ln.text)), None)


def _pid(c: Ctx, rank: int, lines: list[EvidenceLine], text: str) -> tuple[str, list[EvidenceLine]]:
    """The rank's pid from NCCL's init line beside the pid the kernel's fault line names."""
    found = _nccl(lines, rank)
    if found is None:
        return _quoted(c, rank, text)
    ln, n = found
    said = ta.PID_NCCL.format(rank=rank, pid=n.group("pid"), prefix=n.group("prefix"), ref=ref(ln))
    fault = _kernel_fault(c)
    k = _KPID.search(fault.text) if fault is not None else None
    if fault is None or k is None:
        return said, [ln]
    if k.group(1) == n.group("pid"):
        return said + ta.PID_SAME.format(other=k.group(1), kref=ref(fault), rank=rank), [ln, fault]
    pci = _PCI.search(fault.text)
    bus = n.group("bus")
    tied = pci is not None and pci.group(1).lower().replace(":", "").startswith("0000" + bus[:4])
    via = ta.PID_BUS.format(pci=pci.group(1), rank=rank, bus=bus) if tied and pci is not None else ""
    return said + ta.PID_OTHER.format(other=k.group(1), kref=ref(fault), rank=rank, bus=via), [ln, fault]


def _quoted(c: Ctx, rank: int, text: str) -> tuple[str, list[EvidenceLine]]:
    """No pid line of the rank kept: the kernel's pid beside a different pid the message quotes."""
    fault = _kernel_fault(c)
    k = _KPID.search(fault.text) if fault is not None else None
    if fault is None or k is None:
        return "", []
    quoted = [p for p in re.findall(r"\b(\d{3,7})\b", text) if p != k.group(1)]
    if not quoted:
        return "", []
    r = c.view.ranks.get(rank)
    pci = _PCI.search(fault.text)
    bus = (
        f" (the fault's PCI {pci.group(1)} is rank {rank}'s GPU)"
        if pci and r and r.gpu and pci.group(1) in r.gpu
        else ""
    )
    said = ta.PID_QUOTED.format(other=k.group(1), kref=ref(fault), pid=quoted[0], rank=rank, bus=bus)
    return said, [fault]


def _before(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The kernel lines of the fault's node that came before its first fault line."""
    for node, kept in c.d.nodes.items():
        fault = next((i for i, ln in enumerate(kept) if _FAULT.search(ln.text)), None)
        if fault is None:
            continue
        xid = re.search(r"\bXid\b.*?: (\d+),", kept[fault].text)
        what = f"Xid {xid.group(1)}" if xid else "fault"
        earlier = kept[:fault]
        if not earlier:
            return ta.DMESG_NOTHING.format(what=what, xref=ref(kept[fault]), node=node), [kept[fault]]
        quoted = "; ".join(f"`{ln.text.strip()}` ({ref(ln)})" for ln in earlier[:4])
        count = f"{len(earlier)} line" + ("s" if len(earlier) > 1 else "")
        said = ta.DMESG_BEFORE.format(what=what, xref=ref(kept[fault]), node=node, count=count, lines=quoted)
        return said, [*earlier[:4], kept[fault]]
    return "", []


__all__ = ["with_ids"]
