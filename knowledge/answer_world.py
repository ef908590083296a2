"""Two world sizes put against each other ("launch line says world_size=4, the NCCL line says world 8:
which is it, and does that change your read?").

Why: the question read as one about code and was answered with "no traceback". The answer is the
number of ranks this job's logs show (and the line that prints it, if one does), each number the reader
quotes held against it, and whether the diagnosis depends on it: it was read from those ranks' lines.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, rank_list, ref, reply
from knowledge.intents import Match

#: a world size the reader quotes ("world_size=4", "world 8", "world size of 16", "nranks 8")
_CLAIMED = re.compile(r"\b(?:world(?:[ _]?size)?|nranks)\s*(?:=|:|of|is|says)?\s*(\d{1,5})\b")
#: a kept line that prints the world size
_PRINTED = re.compile(r"\b(?:world[ _]?size|nranks|world)\s*[=: ]\s*(\d{1,5})\b", re.IGNORECASE)
#: the numbers put as a choice or a doubt ("which is it", "right?", "or")
_WHICH = re.compile(r"\bwhich (?:is it|one)\b|\bwhich\b.{0,20}\bright\b|\bor\b|\bdisagree\w*|\bmismatch\w*")


def _printed(c: Ctx) -> tuple[str, EvidenceLine] | None:
    for ln in [*pool(c), *c.d.facts.setup]:  # the setup lines: the launch and process-group init
        if (found := _PRINTED.search(ln.text)) is not None:
            return found.group(1), ln
    return None


def _printing(c: Ctx, size: str) -> EvidenceLine | None:
    """The first kept line that prints this world size."""
    for ln in [*pool(c), *c.d.facts.setup]:
        if (found := _PRINTED.search(ln.text)) is not None and found.group(1) == size:
            return ln
    return None


def world(c: Ctx, m: Match) -> Reply | None:
    """Each world size quoted, against the ranks this job's logs show; the read, and what it rests on."""
    claimed = list(dict.fromkeys(_CLAIMED.findall(m.text)))
    v, ini = c.view, c.view.initiating
    ranks = [r for r in v.ranks.values() if r.role != "missing"]
    if (len(claimed) < 2 and not (claimed and _WHICH.search(m.text))) or ini is None or not ranks:
        return None
    n = v.world_size or len(ranks)
    printed = _printed(c)
    how = (
        tv.WORLD_HOW_LINE.format(ref=ref(printed[1]), text=printed[1].text.strip()[:120])
        if printed
        else tv.WORLD_HOW_RANKS
    )
    nodes = ", ".join(v.nodes) or "its node(s)"
    parts = [tv.WORLD_IS.format(n=n, ranks=rank_list(ranks), nodes=nodes, how=how)]
    for said in claimed:
        if int(said) == n:
            parts.append(tv.WORLD_AGREES.format(n=said))
        elif (other := _printing(c, said)) is not None:  # a kept line does say it: never "no line says"
            parts.append(tv.WORLD_PRINTED_OTHER.format(m=said, ref=ref(other), text=other.text.strip()[:120]))
        else:
            parts.append(tv.WORLD_OTHER.format(m=said))
    what = t.category_words(v.category)
    parts.append(tv.WORLD_READ.format(n=n, rank=ini.rank, what=what))
    shown = [printed[1]] if printed else v.key_line()
    return reply("ranks_count", " ".join(parts), shown)


__all__ = ["world"]
