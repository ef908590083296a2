"""Which GPU of which node a rank used ("which host/gpu was rank 0 on?", "the OOM says GPU 5 but these
are 4-GPU boxes: which physical card is rank 5?").

Why: the reader wants a card to check or pull, and the logs can name it three ways that mean different
things: the launcher's `local_rank=1` (torchrun gives local rank N the node's device N), NCCL's
`cudaDev 1`, and an out-of-memory message's `GPU 5`, which is the index the process numbered its
device by, not necessarily a card of the node. Each is told with its line, a disagreement is said so,
and an unknown node is said unknown, never guessed.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from knowledge.answer_types import Ctx, Reply, rank_lines, rank_list, ref, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView

#: asks which GPU (card, device) a rank used; not its memory, not GPU-hours, not a node named `gpu-02`
DEVICE_Q = re.compile(
    r"\b(?:which|what)(?: (?:host|node|box|machine)s?)? ?[/ ]? ?(?:physical |cuda )?"
    r"(?:gpus?|cards?|devices?)\b"
    r"(?!-\d| ?-?hours?| mem| batch)"
    # a terse on-call ask naming both ("node + gpu for the bad rank", "host/gpu of rank 2")
    r"|\b(?:node|host|box|machine) ?(?:\+|&|/|and) ?(?:gpu|card|device)\b"
    r"|\b(?:gpu|card|device) ?(?:\+|&|/|and) ?(?:node|host|box|machine)\b"
)
#: a bus id, an Xid or a drain is asked: the Xid's, NCCL's and the hardware answers say those
_BUS_Q = re.compile(
    r"\bbus ?id\b|\bbusid\b|\bpci\b|\bxid\b|\brma\b|\bdrain\w*|\bcordon\w*|\breplace\b|\bpull\b",
    re.IGNORECASE,
)
_LOCAL = re.compile(r"\blocal_rank[=: ]+(\d+)\b")
_CUDA_DEV = re.compile(r"\bcudaDev (\d+)\b")
_OOM_GPU = re.compile(r"\bGPU (\d+) has a total capacity\b")


def device(c: Ctx, m: Match) -> Reply | None:
    """The rank's node and device, each from its own line; None when the ask is not about a device,
    or the rank's bus id is known (the node's and the Xid's answers give the card by its bus id)."""
    if not DEVICE_Q.search(m.text) or _BUS_Q.search(m.text):
        return None
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if r is None or r.gpu is not None:
        return None
    local, oom = _found(c, r)
    block = _in_block(c, r) if local is None else None
    if local is None and oom is None and block is None:
        return _unknown(r) if _BOTH_Q.search(m.text) else None
    said = [
        tff.DEVICE_NODE.format(rank=r.rank, node=r.node) if r.node else tff.DEVICE_NO_NODE.format(rank=r.rank)
    ]
    shown: list[EvidenceLine] = []
    index: int | None = None  # the rank's device on its node, when known
    if local is not None:
        said.append(tff.DEVICE_LOCAL.format(rank=r.rank, n=local[0], ref=ref(local[1])))
        shown.append(local[1])
        index = local[0]
    elif block is not None:
        said.append(tff.DEVICE_BLOCK.format(node=r.node, ranks=block[1], n=block[0]))
        index = block[0]
    if oom is not None:
        said.append(tff.DEVICE_OOM.format(n=oom[0], ref=ref(oom[1])))
        shown.append(oom[1])
    if index is not None and oom is not None and index != oom[0]:
        said.append(tff.DEVICE_DISAGREE.format(local=index, oom=oom[0]))
    said.append(tff.DEVICE_CHECK.format(node=r.node or "its node"))
    return reply("which_rank", " ".join(said), shown)


#: a terse ask for both the node and the device ("node + gpu for the bad rank")
_BOTH_Q = re.compile(
    r"\b(?:node|host|box|machine)\b.*\b(?:gpu|card|device)\b|\b(?:gpu|card|device)\b.*\b(?:node|host)\b"
)


def _unknown(r: RankView) -> Reply:
    """Node and GPU asked, and no line of this job records either: said so for the rank (never a guess:
    a rank number is no device index without its node's layout), with where to read them."""
    said = [
        tff.DEVICE_NODE.format(rank=r.rank, node=r.node) if r.node else tff.DEVICE_NO_NODE.format(rank=r.rank)
    ]
    said.append(tff.DEVICE_NO_GPU.format(rank=r.rank))
    return reply("which_rank", " ".join(said), [r.first_line] if r.first_line is not None else [])


def _in_block(c: Ctx, r: RankView) -> tuple[int, str] | None:
    """The rank's place on its node when every rank's node is known and the node's ranks are one
    block (torchrun numbers a node's workers node_rank × nproc_per_node + local_rank): its local rank."""
    if r.node is None or any(x.node is None for x in c.view.ranks.values()):
        return None
    mine = sorted(x.rank for x in c.view.ranks.values() if x.node == r.node)
    if len(mine) < 2 or mine != list(range(mine[0], mine[0] + len(mine))):
        return None
    return r.rank - mine[0], rank_list(mine)


def _found(c: Ctx, r: RankView) -> tuple[tuple[int, EvidenceLine] | None, tuple[int, EvidenceLine] | None]:
    """The rank's local device (launch line's local_rank, else NCCL's cudaDev) and its OOM's index."""
    local: tuple[int, EvidenceLine] | None = None
    oom: tuple[int, EvidenceLine] | None = None
    for lines in rank_lines(c, r.rank).values():
        for ln in lines:
            hit = _LOCAL.search(ln.text) or _CUDA_DEV.search(ln.text)
            if hit is not None and local is None:
                local = (int(hit.group(1)), ln)
            if (got := _OOM_GPU.search(ln.text)) is not None and oom is None:
                oom = (int(got.group(1)), ln)
    return local, oom


__all__ = ["DEVICE_Q", "device"]
