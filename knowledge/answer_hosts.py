"""Every node with its ranks, when the message asks the ranks by host: "blast radius by host: which
ranks were on gpu-02 and which on gpu-01?", "which ranks ran on each node?", "per-host breakdown".

Why: a question naming one node gets that node's answer, and one naming two got only the first; the
ranks-count answer names the nodes without their ranks. The reader maps the failure onto machines
(which box to look at, which ranks it took down), so every node is told with its ranks and their part
(the rank that started it, the collateral ones), each node's ranks from their own launch lines.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.ranks import ranges
from denpex.core.texts import followups_memjobs as tm
from knowledge.answer_asks import said
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.jobfacts_answers import RankView

#: the ranks asked by node ("by host", "each node", "per machine", "which ranks on which node")
BY_NODE_Q = re.compile(
    r"\b(?:by|per|each|every|for each|on each) ?-?(?:node|host|machine|box|server)s?\b"
    r"|\b(?:node|host|machine)[- ]by[- ](?:node|host|machine)\b"
    r"|\bwhich ranks?\b[^?]{0,30}\b(?:on|per) (?:which|what|each) (?:node|host|machine|box|server)\b"
    r"|\b(?:which|what) (?:node|host|machine|box|server)s? (?:had|ran|held|hosted) (?:which|what) ranks?\b"
)
_RANKS = re.compile(r"\branks?\b|\bblast radius\b|\bprocesses\b|\bworkers\b|\bgpus\b")


def _asked(c: Ctx, text: str) -> bool:
    nodes = [n for n in c.view.nodes if n]
    named = [n for n in nodes if re.search(rf"(?<![\w-]){re.escape(n.lower())}(?![\w-])", text)]
    return len(nodes) > 1 and bool(_RANKS.search(text)) and (len(named) > 1 or bool(BY_NODE_Q.search(text)))


def by_node(c: Ctx) -> tuple[str, bool]:
    """ "Ranks by node: gpu-01: rank(s) 0-3 (0-3 collateral); gpu-02: …" and whether every rank's node
    is known ("" when fewer than two nodes hold known ranks)."""
    groups: dict[str, list[RankView]] = {}
    for r in sorted(c.view.ranks.values(), key=lambda r: r.rank):
        if r.node:
            groups.setdefault(r.node, []).append(r)
    if len(groups) < 2:
        return "", False
    listed = "; ".join(
        tm.NODE_RANKS.format(node=node, ranks=ranges(r.rank for r in rs), roles=_roles(rs))
        for node, rs in sorted(groups.items())
    )
    return tm.BY_NODE.format(listed=listed), all(r.node for r in c.view.ranks.values())


def _roles(rs: list[RankView]) -> str:
    parts = [tm.ROLE_STARTED.format(rank=r.rank) for r in rs if r.role == "initiating"]
    for role in ("collateral", "healthy", "missing"):
        those = [r.rank for r in rs if r.role == role]
        if those:
            fmt = tm.ROLE_COLLATERAL if role == "collateral" else tm.ROLE_OTHER
            parts.append(fmt.format(ranks=ranges(those), role=role))
    return "; ".join(parts)


def with_hosts(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with every node's ranks, when the message asks the ranks by node and `got` lacks them."""
    if not _asked(c, text.lower()):
        return got
    sentence, _ = by_node(c)
    told = said(got)
    nodes = {r.node for r in c.view.ranks.values() if r.node}
    if not sentence or all(f"{n.lower()} (ranks" in told or f"{n.lower()}: rank" in told for n in nodes):
        return got
    if got.intent == "help":
        return reply("node", sentence, [])
    return replace(got, lead=f"{got.lead} {sentence}".strip(), material=[*got.material, sentence])


__all__ = ["BY_NODE_Q", "by_node", "with_hosts"]
