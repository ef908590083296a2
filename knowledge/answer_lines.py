"""Answers that show lines: a rank's evidence or last lines, and what a node's kernel log shows.

Split from `knowledge.answer_facts` (which keeps the fact answers) so each module stays readable;
the lines are quoted as the logs have them, with `file:line`, so a reader can find them.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import thread as t
from knowledge.answer_job import scheduler_end
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView
from knowledge.lines import BLOCK_RANK, parse_rank

TAIL_LINES = 15


def _target(c: Ctx, m: Match) -> RankView | None:
    return c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating


def show_lines(c: Ctx, m: Match) -> Reply | None:
    v = c.view
    if m.rank is not None and m.rank not in v.ranks:
        have = sorted({x.rank for x in c.d.tails if x.rank is not None})
        return reply("show_lines", t.NO_TAIL.format(rank=m.rank, ranks=rl(have) or "none"), known=False)
    r = _target(c, m)
    stack = re.search(r"trace|stack|evidence|error", m.text) is not None
    if r is not None and r.role == "initiating" and (stack or m.rank is None):
        lines = sorted(v.evidence, key=lambda ln: (ln.source, ln.line))
        return reply(
            "show_lines",
            t.lines_of(f"Rank {r.rank}'s evidence ({ref(v.evidence[0]) if v.evidence else ''})"),
            lines,
        )
    if r is None and m.rank is None and v.evidence:  # a launcher failure: no rank, the job's own lines
        return reply("show_lines", t.lines_of(f"The failure's lines ({ref(v.evidence[0])})"), v.evidence[:3])
    rank = r.rank if r is not None else m.rank
    tail = _tail(c, rank) if rank is not None else []
    if tail:
        step = r.last_step_line if r is not None else None  # its last step, when the tail is all traceback
        head = tail[0]
        if step is not None and step not in tail and step.source == head.source and step.line < head.line:
            tail = [step, *tail]
        return reply("show_lines", t.lines_of(f"Last lines of rank {rank} ({tail[0].source})"), tail)
    if r is not None and r.first_line is not None:
        return reply("show_lines", t.lines_of(f"Rank {r.rank}'s first failure line"), [r.first_line])
    if rank is not None:
        have = sorted({x.rank for x in c.d.tails if x.rank is not None})
        return reply("show_lines", t.NO_TAIL.format(rank=rank, ranks=rl(have) or "none"), known=False)
    return None


def _tail(c: Ctx, rank: int) -> list[EvidenceLine]:
    for tail in c.d.tails:
        if tail.rank == rank:
            return tail.lines[-TAIL_LINES:]
    one_node = len(c.view.nodes) <= 1
    for tail in c.d.tails:  # a combined log: the lines this rank wrote (not the launcher's about it)
        mine = [ln for ln in tail.lines if _written_by(ln.text, rank, one_node)]
        if mine:
            return mine[-TAIL_LINES:]
    return []


def _written_by(text: str, rank: int, one_node: bool) -> bool:
    """A line the rank printed: its label names it (torchrun's `[default3]:` counts on one node);
    torchrun's failure summary (`rank : 3 (local_rank: 3)`) is about the rank, not by it."""
    if BLOCK_RANK.match(text):
        return False
    info = parse_rank(text)
    return info.rank == rank or (one_node and info.rank is None and info.local == rank)


def node(c: Ctx, m: Match) -> Reply | None:
    """What a node's kernel log and ranks show (the failing rank's node when none is named)."""
    known = {n.lower(): n for n in [*c.d.nodes, *c.view.nodes]}
    named = m.node
    if named is None:
        ini = c.view.initiating
        logged = list(c.d.nodes)
        named = (
            ini.node if ini is not None and ini.node in c.d.nodes else logged[0] if len(logged) == 1 else None
        )
    if named is None:
        return None
    name = known.get(named.lower())
    if name is None:
        nodes = ", ".join(f"`{n}`" for n in sorted(set(known.values()))) or "none"
        return reply("node", t.NO_NODE.format(node=named, nodes=nodes), known=False)
    ranks = [r for r in c.view.ranks.values() if r.node == name]
    lines = c.d.nodes.get(name, [])[-TAIL_LINES:]
    end = scheduler_end(c)
    if not ranks and not lines and end is not None and end.node == name:
        return None  # only the scheduler's banner names it ("JOB 991 ON gpu-01 …"): that line is the answer
    failed = [f"rank {r.rank} {r.role}" for r in ranks if r.role in ("initiating", "collateral")]
    return reply("node", t.on_node(name, rl(ranks), failed[:4], bool(lines)), lines)


__all__ = ["TAIL_LINES", "node", "show_lines"]
