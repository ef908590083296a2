"""A failure the asker pins on a rank that did not have it ("rank 0 segfaulted right? its log has the
big traceback", "so rank 2 OOMed?").

Why: the answer quoted the named rank's traceback as if the premise held; a collateral rank's long
traceback is its own error after the first rank went away. The answer says no first: which rank had
that failure (with its line), and that the named one was collateral.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_facts as tf
from denpex.core.texts import thread as t
from knowledge import answer_join
from knowledge.answer_types import Ctx, Reply, ref
from knowledge.intents import named_ranks

#: category -> a claim that a rank had it ("segfaulted", "went oom", "nand")
_CLAIMS: dict[str, re.Pattern[str]] = {
    "segfault": re.compile(r"\bseg ?fault(?:ed|s)?\b|\bsigsegv\b|\bsegmentation fault\b"),
    "nan_divergence": re.compile(r"\b(?:went|got|hit|had) (?:a )?nan\b|\bnand\b|\bnan(?:ed|d)\b"),
}


def with_claim(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` led by "no, rank N did not …; rank M did", when the message pins this job's failure kind
    on a named rank that was collateral."""
    ini, claim = c.view.initiating, _CLAIMS.get(c.view.category or "")
    if ini is None or claim is None or not claim.search(text):
        return got
    named = [c.view.ranks[r] for r in named_ranks(text) if r in c.view.ranks]
    if len(named) != 1 or named[0].role != "collateral" or ini.first_line is None:
        return got
    if f"rank {ini.rank}" in got.lead.lower()[:200]:
        return got
    what = t.category_words(c.view.category)
    lead = tf.CLAIM_NOT.format(rank=named[0].rank, what=what, ini=ini.rank, ref=ref(ini.first_line))
    return answer_join.first(got, lead, [ini.first_line])


__all__ = ["with_claim"]
