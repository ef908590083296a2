"""A count asked as a choice: "did all four ranks time out or only three?", "every rank or just some?".

Why: the rank-by-rank answer lists each rank's failure line, but never says the count the message
asks to choose between; a reader has to add the ranks up, and "only three" (the collateral ranks)
reads as the answer when the first rank's own line is the same timeout. This step leads with the
count from the ranks' own failure lines: how many of the world failed, how many with the same line.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from denpex.core.ranks import ranges
from denpex.core.texts import followups_job as tj
from knowledge.answer_types import Ctx, Reply
from knowledge.answer_where import strip_prefix

#: "did all four ranks time out or only three", "every rank or just rank 3", "all of them or some"
_ASK = re.compile(
    r"\b(?:all|every|each)(?: (?:the|of the|\d+|two|four|eight|sixteen))?(?: of them)?"
    r"(?: (?:ranks?|workers?|gpus?|processes|of them))\b[^?]{0,50}?\bor (?:only|just|some|a few)\b",
    re.IGNORECASE,
)
_RANK_TAG = re.compile(r"^\[rank\d+\]:\s*")


def with_count(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` led by how many ranks failed and how many with the same line, when the message asks
    whether all of them did or only some."""
    if not _ASK.search(text):
        return got
    failed = {r: v for r, v in c.view.ranks.items() if v.first_line is not None}
    world = c.view.world_size or len(c.view.ranks)
    if not failed or not world:
        return got
    kinds = Counter(_key(v.first_line.text) for v in failed.values() if v.first_line is not None)
    line, same = kinds.most_common(1)[0]
    same_ranks = [
        r for r, v in failed.items() if v.first_line is not None and _key(v.first_line.text) == line
    ]
    quiet = [r for r in range(world) if r not in failed]
    if same == len(failed) == world:
        said = tj.COUNT_ALL.format(n=world, ranks=ranges(same_ranks), line=_short(line))
    else:
        said = tj.COUNT_SOME.format(
            k=len(same_ranks),
            n=world,
            ranks=ranges(same_ranks),
            line=_short(line),
            rest=ranges(r for r in range(world) if r not in same_ranks),
            how=tj.COUNT_QUIET if quiet else tj.COUNT_OTHER,
        )
    if said in got.lead:
        return got
    return replace(got, lead=f"{said} {got.lead}".strip(), material=[said, *got.material])


def _key(text: str) -> str:
    """A failure line without its launcher and rank prefixes: the same error on two ranks compares equal."""
    return _RANK_TAG.sub("", strip_prefix(text)).strip()


def _short(line: str) -> str:
    return line if len(line) <= 160 else line[:157].rstrip() + "…"


__all__ = ["with_count"]
