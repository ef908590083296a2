"""Whether a named rank ran on another host than the others: "rank 3 on a different host than the
others?", "was rank 5 on the same node as the rest?".

Why: the answer about the rank's part in the failure (it started it, the others waited on it) never
said where it ran, so a yes/no about its host went unanswered. The ranks' nodes from their launch lines
answer it: the same node as every other rank, or which node it was on and which the others were on.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.ranks import ranges
from denpex.core.texts import followups_events as te
from knowledge import answer_asks
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import named_ranks

_WHERE = r"(?:host|node|machine|box|server)s?"
#: asks whether a rank was on another host than the others, or the same one
ASKS = re.compile(
    rf"\b(?:different|another|other|separate|its own|same) {_WHERE}\b"
    rf"|\b{_WHERE} (?:than|from|as) (?:the )?(?:others|rest|other ranks)\b"
    rf"|\bon (?:a )?(?:different|separate) {_WHERE}\b",
    re.IGNORECASE,
)


def _sentence(c: Ctx, rank: int, other: int | None) -> str:
    """Whether `rank` shared a node with `other` (named), else with the rest of the ranks."""
    r = c.view.ranks[rank]
    if not r.node:
        return te.HOST_UNKNOWN.format(rank=rank)
    if other is not None:
        o = c.view.ranks[other]
        if not o.node:
            return te.HOST_UNKNOWN.format(rank=other)
        fmt = te.PAIR_SAME if o.node == r.node else te.PAIR_OTHER
        return fmt.format(rank=rank, node=r.node, other=other, other_node=o.node)
    others = [x for x in c.view.ranks.values() if x.rank != rank and x.node]
    if not others:
        return ""
    if all(x.node == r.node for x in others):
        return te.SAME_HOST.format(rank=rank, node=r.node, others=ranges(x.rank for x in others))
    by_node: dict[str, list[int]] = {}
    for x in sorted(others, key=lambda x: x.rank):
        by_node.setdefault(x.node or "", []).append(x.rank)
    listed = ", ".join(
        te.OTHER_HOST_PART.format(ranks=ranges(rs), node=n)
        for n, rs in sorted(by_node.items())
        if n != r.node
    )
    if r.node not in by_node:
        return te.OTHER_HOST.format(rank=rank, node=r.node, listed=listed)
    return te.SHARED_HOST.format(rank=rank, node=r.node, mates=ranges(by_node[r.node]), listed=listed)


def with_host(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with whether the named rank ran on the others' host, when asked and not yet said."""
    if not ASKS.search(text):
        return got
    ranks = [r for r in named_ranks(text) if r in c.view.ranks][:2]
    if not ranks or not (said := _sentence(c, ranks[0], ranks[1] if len(ranks) > 1 else None)):
        return got
    if said.lower() in answer_asks.said(got):
        return got
    if got.intent == "help":
        return reply("node", said, [])
    return replace(got, lead=f"{said} {got.lead}".strip(), material=[said, *got.material])  # yes/no first


__all__ = ["ASKS", "with_host"]
