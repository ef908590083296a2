"""The losses the logs hold, asked inside another ask: "last loss printed before it died, and how long
until the agent killed everything?", "were any other ranks' losses logged, can we tell whether the NaN
was local to that rank's batch?".

Why: the loss answer is reached only when the loss is the message's main ask; asked beside a time or a
rank, the answer about that says no loss at all. And a job whose script logs the loss from one rank
only (rank 0's `step 6/10 loss 1.2337`) cannot say what the failing rank's loss was: the reader must be
told which rank logged them, and that the others' are not in the logs, before reading the NaN as
local or global. Both are read from the ranks' saved step lines, with file:line.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_rankfigs as tx
from knowledge.answer_asks import said
from knowledge.answer_evidence import Loss, losses_of
from knowledge.answer_grounds import add
from knowledge.answer_types import Ctx, Reply, ref
from knowledge.answer_types import rank_list as rl

#: the last loss asked ("last loss printed", "final loss before it died", "loss right before the crash")
_LAST_LOSS = re.compile(
    r"\b(?:last|final|latest|most recent)\b[^?.,]{0,20}\bloss(?:es)?\b(?! scal)"
    r"|\bloss(?:es)?\b[^?.,]{0,30}\b(?:before|prior to|right before|just before)\b[^?.,]{0,20}"
    r"\b(?:it |the job |they |rank \d+ )?(?:died|crash\w*|fail\w*|oom\w*|die|stopp\w*|kill\w*|end\w*)\b",
    re.IGNORECASE,
)
#: asks whose losses the logs hold ("were any other ranks' losses logged", "per-rank loss?",
#: "was the nan local to that rank's batch", "does every rank print its loss")
_WHO_LOGGED = re.compile(
    r"\b(?:other|any other|each|every|all|which|the other|per)[- ]ranks?'?s?\b[^?]{0,25}\bloss(?:es)?\b"
    r"|\bloss(?:es)?\b[^?]{0,40}\b(?:other|each|every|all|per|which)[- ]ranks?\b"
    r"|\blocal to (?:that|this|the|one|its|rank)\b|\b(?:local|global) (?:nan|inf)\b"
    r"|\bnan\b[^?]{0,25}\b(?:local|only on|just on|one rank|every rank|all ranks)\b",
    re.IGNORECASE,
)


def _ranks(ranks: list[int]) -> str:
    return f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {rl(ranks)}"


def _by_rank(c: Ctx) -> dict[int, list[Loss]]:
    """Each rank's logged losses, ranks that logged none left out."""
    return {r: s for r in sorted(c.view.ranks) if (s := losses_of(c, r))}


def with_losses(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the last logged loss, or whose losses were logged, when the message asks and the
    answer does not say it."""
    if not (_LAST_LOSS.search(text) or _WHO_LOGGED.search(text)):
        return got
    logged = _by_rank(c)
    told = said(got)
    if not logged:
        return add(got, tx.LOSS_NOT_LOGGED, []) if tx.LOSS_NOT_LOGGED.lower() not in told else got
    if _LAST_LOSS.search(text):
        last = max((s[-1] for s in logged.values()), key=lambda x: (x[2].source, x[0]))
        rank = next(r for r, s in logged.items() if last in s)
        if (
            not re.search(rf"\b{re.escape(last[1])}\b.{{0,120}}\bstep {last[0]}\b", told)
            or "last" not in told
        ):
            said_ = tx.LAST_LOSS.format(loss=last[1], step=last[0], rank=rank, ref=ref(last[2]))
            got = add(got, said_, [last[2]])
    if _WHO_LOGGED.search(text):
        got = _who_logged(c, logged, got)
    return got


def _who_logged(c: Ctx, logged: dict[int, list[Loss]], got: Reply) -> Reply:
    """Which ranks logged a loss; when not every rank did, that the others' losses are not in the logs."""
    ranks = sorted(logged)
    silent = [r for r in sorted(c.view.ranks) if r not in logged]
    ini = c.view.initiating
    if not silent:
        return add(got, tx.LOSS_ALL_RANKS.format(ranks=rl(ranks)), [logged[ranks[0]][-1][2]])
    first = logged[ranks[0]][-1][2]
    n = "that rank" if len(ranks) == 1 else f"{len(ranks)} ranks"
    only = tx.LOSS_ONLY_RANKS.format(ranks=_ranks(ranks), n=n, ref=ref(first), silent=_ranks(silent))
    nan = "nan" in (c.view.category or "").lower() or "nan" in said(got)
    if ini is not None and ini.rank in silent and nan:
        only += " " + tx.LOSS_LOCAL_UNKNOWN.format(rank=ini.rank)
    return add(got, only, [first])


__all__ = ["with_losses"]
