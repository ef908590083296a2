"""How an Xid is tied to a rank, and the node's other Xids ("how do we know the Xid is rank 5's GPU
when pid 45121 isn't in our logs?", "were there any earlier Xids on that node?").

Why: a kernel-log Xid names a GPU by its PCI bus id and a kernel pid, never a rank; the reader wants
the chain that ties it (the bus id NCCL printed for the rank on that node, the rank's own CUDA error in
the same second), and whether the node had faulted before — counted from the node's kept kernel log,
said as "none" only when that log is kept from its first line.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_review as tr
from knowledge import answer_xid_code
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.answer_where import strip_prefix
from knowledge.evidence_numbers import xid
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, seconds_between
from knowledge.lines import parse_timestamp

#: asks for the node's other Xids ("any earlier xids on that node?", "has it thrown xids before?")
ASKS_EARLIER = re.compile(
    r"\b(?:earlier|previous|prior|older|other|more|past) xids?\b|\bxids? (?:before|earlier|previously)\b"
    r"|\bany (?:other )?xids? (?:on|in|from) (?:that|this|the) (?:node|box|host|machine)\b"
)
#: asks how the Xid is known to be that rank's ("how do we know the xid is rank 5's gpu")
ASKS_OWNER = re.compile(
    r"\bhow (?:do|did|can|would) (?:we|you|i|they) (?:know|tell|link|tie|map|match)\b.{0,40}\bxid\b"
    r"|\bxid\b.{0,40}\b(?:is|was|belongs? to|maps? to|from) (?:rank \d+|that rank|its|their)\b.{0,20}\bgpu\b"
    r"|\bpid \d+\b.{0,30}\b(?:isn\W?t|is not|not|never)\b.{0,15}\b(?:in|anywhere)\b"
    # "xid pid is 45121 - is that actually rank 5s proc?", "does that pid belong to rank 5?"
    r"|\bpid\b.{0,60}\b(?:rank ?\d+s?|that rank|its|their) (?:proc|process|pid|worker)\b"
    r"|\bpid\b.{0,40}\b(?:belongs? to|from|of) (?:rank ?\d+|that rank)\b"
)
_PID = re.compile(r"\bpid=(\d+)")


def xid_facts(c: Ctx, m: Match) -> Reply | None:
    """The tie of the Xid to its rank, the node's earlier Xids, each when asked; None without an Xid."""
    owner, earlier = ASKS_OWNER.search(m.text), ASKS_EARLIER.search(m.text)
    found = c.view.numbers.xid
    ini = c.view.initiating
    if not (owner or earlier) or found is None or ini is None or ini.node is None:
        return None
    line = next((ln for ln in c.view.evidence if xid(ln.text) is not None), None)
    if line is None:
        return None
    parts: list[str] = []
    shown = [line]
    if owner:
        parts.append(_owner(c, ini, found[0].pci, line))
        if (own := _own_error(c, ini, line)) is not None:
            parts.append(own[0])
            shown.append(own[1])
    if earlier:
        parts.append(_earlier(c, ini.node, line))
    return reply("hardware", " ".join(p for p in parts if p), shown)


def _owner(c: Ctx, ini: RankView, pci: str, line: EvidenceLine) -> str:
    twins = [r for r in c.view.ranks.values() if r.gpu == ini.gpu and r.node != ini.node and r.gpu]
    twin = tr.XID_TWIN.format(ranks=rl(twins), pci=pci) if twins else ""
    said = tr.XID_OWNER.format(pci=pci, node=ini.node, ref=ref(line), rank=ini.rank, twin=twin)
    if (pid := _PID.search(line.text)) is None:
        return said
    number = re.compile(rf"\b{pid.group(1)}\b")
    also = next((ln for ln in pool(c) if ln != line and number.search(ln.text)), None)
    if also is not None:  # the pid is printed elsewhere: that line ties it
        return f"{said} " + tr.XID_PID_FOUND.format(
            pid=pid.group(1), ref=ref(also), text=strip_prefix(also.text)[:120]
        )
    said = f"{said} " + tr.XID_PID.format(pid=pid.group(1), rank=ini.rank)
    own = answer_xid_code.nccl_pid(c, ini.rank, pid.group(1))  # the rank's own pid, by its NCCL line
    return f"{said} {own[0]}" if own is not None else said


def _own_error(c: Ctx, ini: RankView, line: EvidenceLine) -> tuple[str, EvidenceLine] | None:
    """The rank's own error line near the Xid (its CUDA error), with how far from the Xid it was."""
    xid_at = _iso(line)
    own = [ln for tl in c.d.tails if tl.rank == ini.rank for ln in tl.lines if "error" in ln.text.lower()]
    for ln in own:
        gap = seconds_between(xid_at, _iso(ln))
        if gap is not None and abs(gap) < 60:
            when = (
                "the same second as"
                if abs(gap) < 1
                else f"{abs(gap):.0f} s {'after' if gap > 0 else 'before'}"
            )
            text = strip_prefix(ln.text)[:120]
            return tr.XID_OWN_ERROR.format(
                rank=ini.rank, text=text, at=_iso(ln)[11:19], ref=ref(ln), gap=when
            ), ln
    return None


def _earlier(c: Ctx, node: str, line: EvidenceLine) -> str:
    """The node's Xids before this one, from its kept kernel log; "none" is said as proven only when
    every line before this one was kept."""
    kept = [ln for ln in c.d.nodes.get(node, []) if ln.source == line.source]
    kept = sorted({ln.line: ln for ln in [*kept, line]}.values(), key=lambda ln: ln.line)
    before = [ln for ln in kept if ln.line < line.line and xid(ln.text) is not None]
    if before:
        rows = "; ".join(f"{ref(ln)} `{strip_prefix(ln.text)[:100]}`" for ln in before)
        return tr.XID_EARLIER.format(node=node, n=len(before), rows=rows)
    first = kept[0]
    whole = {ln.line for ln in kept if ln.line < line.line} == set(range(1, line.line))
    start = f"{_iso(first)[:19].replace('T', ' ')} UTC, {ref(first)}" if _iso(first) else ref(first)
    text = tr.XID_ONLY if whole else tr.XID_ONLY_PART
    return text.format(node=node, ref=ref(line), first=start)


def _iso(ln: EvidenceLine) -> str:
    stamp = parse_timestamp(ln.text)
    iso = stamp.iso() if stamp is not None and not stamp.relative else None
    return iso or ""


__all__ = ["ASKS_EARLIER", "ASKS_OWNER", "xid_facts"]
