"""Rank lists as people read them: `[0, 1, 2, 3, 4, 6, 7]` -> `0-4,6,7`.

One home for the notation, so the engine's wording, the Slack thread and the user texts spell ranges
alike. Standard library only (ground floor).
"""

from __future__ import annotations

from collections.abc import Iterable


def ranges(ranks: Iterable[int]) -> str:
    """Runs of three or more consecutive ranks become `a-b`; the rest are listed."""
    rs = sorted(set(ranks))
    out: list[str] = []
    i = 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        if j - i >= 2:
            out.append(f"{rs[i]}-{rs[j]}")
            i = j + 1
        else:
            out.append(str(rs[i]))
            i += 1
    return ",".join(out)
