"""A rank's error line in its own per-rank log, when the message asks for that file and line rather
than the combined console: "which per-rank log file + line number has rank1's actual alloc failure
(not console.log)", "where in rank 1's own stderr is the error?".

Why: the answers cite the first place the diagnosis kept a rank's error (often the launcher's combined
`console.log`, where each line carries a `[defaultN]:` prefix); a reader who goes to the rank's own
`stderr.log` asks where it is there. The same line, prefixes aside, is looked up in the rank's other
kept files and quoted with its file and line; nothing is added when no other file kept it.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_schedend as ts
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import named_ranks

#: asks for a rank's own (per-rank) log file, not the combined one
_OWN_LOG = re.compile(
    r"\bper[- ]?rank\b|\b(?:own|individual|separate) (?:log|file|stderr|stdout|output)s?\b"
    r"|\bnot (?:in |from |the )?(?:the )?console(?:\.log)?\b|\bstderr(?:\.log)?\b",
    re.IGNORECASE,
)
#: wants the place: a file, a line number, where
_PLACE = re.compile(r"\bfile\b|\bline\b|\bwhere\b|\bwhich\b|\bpath\b", re.IGNORECASE)
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def _bare(text: str) -> str:
    return _PREFIX.sub("", text).strip()


def own_copy(c: Ctx, rank: int) -> tuple[EvidenceLine, EvidenceLine] | None:
    """The rank's first error line and the same line in another kept file (its own log), if any."""
    r = c.view.ranks.get(rank)
    first = r.first_line if r is not None else None
    if first is None or not _bare(first.text):
        return None
    tails = {tl.source for tl in c.d.tails if tl.rank == rank}  # the files the rank's own tails came from
    own = [
        ln
        for ln in answer_grounds.all_lines(c)
        if ln.source != first.source
        and _bare(ln.text) == _bare(first.text)
        and (ln.source in tails or ln.text.lstrip().startswith(f"[rank{rank}]:"))
    ]
    return (first, own[0]) if own else None


def with_own_file(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the named (or first failing) rank's error line in its own log, when asked."""
    if not _OWN_LOG.search(text) or not _PLACE.search(text):
        return got
    named = [r for r in named_ranks(text) if r in c.view.ranks]
    ini = c.view.initiating
    rank = named[0] if named else (ini.rank if ini is not None else None)
    if rank is None or (found := own_copy(c, rank)) is None:
        return got
    first, own = found
    if own.ref.lower() in answer_asks.said(got):
        return got
    quote = _bare(own.text)
    quote = quote if len(quote) <= 200 else quote[:200] + "…"
    said = ts.RANK_FILE.format(rank=rank, ref=own.ref, text=quote, other=first.ref)
    return answer_asks.with_lead(got, said, [own])


__all__ = ["own_copy", "with_own_file"]
