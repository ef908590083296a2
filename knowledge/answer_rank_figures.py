"""A figure on every rank, when the message compares the ranks: "what loss did each of the four ranks log
at step 2000? were they in sync?", "other rank memory same like rank 5 or no?".

Why: the step-value answer quotes the first line logged at the asked step (rank 0's), and the memory
answer gives the failing rank's own allocation only, so an ask about *each* rank, or the others against
the failing one, was left without the other ranks' figures. Both are in the ranks' kept progress lines:
each rank's value at the asked step is listed, and each rank's memory from its last progress line
(`answer_more.memory_by_rank`), the failing rank against the rest.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_rankfigs as tx
from knowledge import answer_asks, answer_grounds, answer_more
from knowledge.answer_types import Ctx, Reply, rank_lines
from knowledge.answer_types import rank_list as rl
from knowledge.lines import parse_step

#: the message asks about every rank, or the others against one ("each of the four ranks", "per rank",
#: "all ranks", "the other ranks", "in sync", "across ranks")
_EACH = re.compile(
    r"\b(?:each|every|all|both|per)[- ](?:of the )?(?:\w+ )?ranks?\b|\bper[- ]rank\b|\beach rank\b"
    r"|\b(?:other|others|rest of the|remaining) ranks?\b|\bthe others\b|\bthe rest\b|\bin sync\b"
    r"|\bacross (?:the |all )?ranks\b|\branks? by rank\b|\bon (?:each|every|all) (?:\w+ )?ranks?\b",
    re.IGNORECASE,
)
#: a step the message names ("at step 2000", "step 40")
_STEP_ASKED = re.compile(r"\bstep (\d+)\b", re.IGNORECASE)
#: the figures a step line logs, by the name the message uses
_NAMES = {
    "loss": re.compile(r"\bloss(?:es)?\b", re.IGNORECASE),
    "grad_norm": re.compile(r"\bgrad(?:ient)?[_ ]?norms?\b", re.IGNORECASE),
    "lr": re.compile(r"\blr\b|\blearning rate\b", re.IGNORECASE),
    "tokens/s": re.compile(r"\btokens?/s\b|\bthroughput\b", re.IGNORECASE),
}
#: memory named in the message, compared across ranks ("same like rank 5", "vs the others")
_MEMORY = re.compile(r"\bmem(?:ory|_alloc\w*)?\b|\bvram\b|\bhbm\b", re.IGNORECASE)
_COMPARE = re.compile(
    r"\bsame\b|\bdiffer\w*\b|\bcompar\w*\b|\bvs\.?\b|\bversus\b|\blike rank\b|\bas rank\b|\bhigher\b"
    r"|\blower\b|\bmore\b|\bless\b",
    re.IGNORECASE,
)


def _value(text: str, name: str) -> str | None:
    """The figure `name` a step line logs (`loss=1.5235`, `loss 2.4400`, `tokens/s=3135`)."""
    m = re.search(rf"(?<![\w/]){re.escape(name)}[=: ]+(-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?)", text)
    return m.group(1) if m else None


def _at_step(c: Ctx, rank: int, step: int) -> EvidenceLine | None:
    """The rank's own kept progress line for `step`."""
    for lines in rank_lines(c, rank).values():
        for ln in lines:
            if parse_step(ln.text) == step and re.search(r"\bstep\b", ln.text, re.IGNORECASE):
                return ln
    return None


def each_at_step(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """Every rank's value of the asked figure at the asked step; ("", []) when not asked so."""
    step_m = _STEP_ASKED.search(text)
    name = next((n for n, rx in _NAMES.items() if rx.search(text)), None)
    if step_m is None or name is None or not _EACH.search(text):
        return "", []
    step = int(step_m.group(1))
    rows: list[tuple[int, str, EvidenceLine]] = []
    missing: list[int] = []
    for rank in sorted(c.view.ranks):
        ln = _at_step(c, rank, step)
        value = _value(ln.text, name) if ln is not None else None
        if ln is not None and value is not None:
            rows.append((rank, value, ln))
        else:
            missing.append(rank)
    if len(rows) < 2:
        return "", []
    said = tx.EACH_AT_STEP.format(
        step=step,
        name=name,
        rows=", ".join(tx.EACH_ROW.format(rank=r, value=v) for r, v, _ in rows),
        refs=", ".join(ln.ref for *_, ln in rows[:4]) + (", …" if len(rows) > 4 else ""),
    )
    values = sorted({float(v) for _, v, _ in rows})
    same = len(values) == 1
    said += tx.EACH_SAME.format(n=len(rows)) if same else tx.EACH_SPREAD.format(lo=values[0], hi=values[-1])
    if missing:
        said += tx.EACH_MISSING.format(ranks=rl(missing), name=name, step=step)
    return said, [ln for *_, ln in rows[:4]]


def memory_others(c: Ctx, text: str) -> str:
    """Each rank's memory from its last progress line, the failing rank against the rest, when the
    message compares the ranks' memory; "" otherwise."""
    if not _MEMORY.search(text) or not (_EACH.search(text) or _COMPARE.search(text)):
        return ""
    if not re.search(r"\branks?\b|\bothers?\b|\bgpus\b", text, re.IGNORECASE):
        return ""
    return answer_more.memory_by_rank(c)


def with_rank_figures(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with every rank's figure when the message compares the ranks and the answer does not."""
    said, shown = each_at_step(c, text)
    if said and not all(ln.ref in answer_asks.said(got) for ln in shown):
        got = answer_grounds.add(got, said, shown)
    mem = memory_others(c, text)
    if mem and mem.lower() not in answer_asks.said(got):
        got = answer_grounds.add(got, mem, [])
    return got


__all__ = ["each_at_step", "memory_others", "with_rank_figures"]
