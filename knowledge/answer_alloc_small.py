"""A failed host allocation read in plain words, and why so small a size ran out ("what does
`DefaultCPUAllocator: can't allocate memory: you tried to allocate 16777216 bytes` mean in plain words?
16777216 bytes seems tiny", "a measly 16 MB?").

Why: the answer to "what does the line mean" said what its error code is and stopped; the asker also
reads the size and doubts it. The job's own figures say it: the CPU allocator could not give the rank
16 MiB more of host RAM, the last small allocation of a copy that had already filled it, and (an entry
whose every rank builds a copy) where this job builds it. The memory answer says exactly that; its
sentences the reply lacks are added.
"""

from __future__ import annotations

import re

from knowledge import answer_asks, answer_memory
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match

#: the allocator's line (or its size) asked about
_LINE_Q = re.compile(
    r"defaultcpuallocator|can.t allocate memory|alloc_cpu|\b\d{6,}\s*bytes\b"
    r"|\b\d+(?:\.\d+)?\s*(?:mb|mib|kb|kib)\b",
    re.IGNORECASE,
)
#: the meaning or the smallness is what is asked
_ASKED = re.compile(
    r"\bmean\w*\b|\bplain (?:words|english)\b|\btranslate\b|\bin english\b|\bexplain\b|\beli5\b"
    r"|\b(?:tiny|small|measly|little|minuscule|trivial|nothing|mere|puny)\b",
    re.IGNORECASE,
)


def with_small(c: Ctx, whole: Match, got: Reply) -> Reply:
    """`got` with the host allocation's figures, why so small a size ran out, and this job's copy."""
    if got.intent == "memory" or not (_LINE_Q.search(whole.text) and _ASKED.search(whole.text)):
        return got
    nums = c.view.numbers
    if nums.host is None or nums.host[0] >= 1 or answer_memory.kind(c, nums) != "host":
        return got
    said = answer_memory.memory(c, whole)
    return answer_asks.with_cause(got, said)


__all__ = ["with_small"]
