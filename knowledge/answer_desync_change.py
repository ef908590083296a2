"""The code change a desync asks for, in this job's own function: "how should I rewrite reduce_metric so
every rank issues the same collective? show me the code change", "what should reduce_metric look like
after the fix?".

Why: the fix answer gives a general snippet (same metric keys on every rank) and the activity answer
the lines; the asker wants the change in the function their tracebacks name. The ranks' tracebacks
show both calls and their source lines in that function (rank 3 `dist.broadcast(value, src=0)` at
line 142, ranks 0-2 `dist.all_reduce(value)` at line 144), so the change is said with them: every
rank must reach the same call, the one the others are blocked in.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_runfacts as tr
from knowledge import answer_asks, answer_code, answer_join
from knowledge.answer_types import Ctx, Reply, rank_list, reply

#: asks for a change to the code ("rewrite", "code change", "look like after the fix")
_CHANGE = re.compile(
    r"\b(?:rewrite|re-write|refactor|restructure|patch|modify)\b|\bcode change\b"
    r"|\bchange (?:to|in) (?:the |my |our )?code\b"
    r"|\bshow (?:me )?(?:the )?(?:code|diff|patch|change|fix(?:ed)? code)\b|\blook like after\b"
    r"|\b(?:fixed|corrected) version\b|\bhow (?:should|do|would|can) (?:i|we) (?:fix|change|rewrite)\b",
    re.IGNORECASE,
)


def _groups(c: Ctx) -> dict[str, list[int]]:
    """The ranks by the collective their tracebacks are blocked in."""
    out: dict[str, list[int]] = {}
    for rank in sorted(c.view.ranks):
        if (got := answer_code.collective_of(c, rank)) is not None:
            out.setdefault(got[0], []).append(rank)
    return out


def change(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The change in the function both calls are in; ("", []) without a one-rank desync there."""
    groups = _groups(c)
    if len(groups) != 2:
        return "", []
    (_, odd), (rest_op, rest) = sorted(groups.items(), key=lambda kv: len(kv[1]))
    if len(odd) != 1 or len(rest) < 2:
        return "", []
    a, b = answer_code.user_frame(c, odd[0]), answer_code.user_frame(c, rest[0])
    if a is None or b is None or a[0].func != b[0].func or a[0].path != b[0].path or not (a[1] and b[1]):
        return "", []
    said = tr.CHANGE_SAME_CALL.format(
        func=a[0].func,
        file=a[0].path.rsplit("/", 1)[-1],
        odd=rank_list(odd),
        odd_s="s" if len(odd) > 1 else "",
        odd_v="" if len(odd) > 1 else "s",
        odd_code=a[1].split("  #")[0].strip(),
        odd_line=a[0].number,
        rest=rank_list(rest),
        rest_s="s" if len(rest) > 1 else "",
        rest_v="" if len(rest) > 1 else "s",
        rest_code=b[1].split("  #")[0].strip(),
        rest_line=b[0].number,
        rest_op=rest_op,
    )
    return said, [a[0].line, b[0].line]


def with_change(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` led by the change in the job's own function, when the message asks a code change and names
    that function or asks it of the collectives."""
    if not _CHANGE.search(text):
        return got
    said, shown = change(c)
    if not said:
        return got
    func = re.search(r"`(\w+)`", said)
    if func is None or (func.group(1).lower() not in text.lower() and "collective" not in text.lower()):
        return got
    if said.lower()[:60] in answer_asks.said(got):
        return got
    if got.intent == "help":
        return reply("fix", said, shown)
    return answer_join.first(got, said, shown)


__all__ = ["change", "with_change"]
