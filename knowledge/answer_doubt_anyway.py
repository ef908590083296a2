"""Whether a collateral rank would have failed anyway ("would rank 0 have failed anyway? it has its own
watchdog timeout", "would ranks 0 and 2 have died regardless? they show connection closed errors").

A collateral rank's own error (a watchdog timeout, a closed connection, a SIGTERM) reads like a failure
of its own; the reader asks whether it was doomed too. The answer is no, first, with the rank it was
waiting on and the rank's own line that the reader saw, so the line is explained, not ignored. Why:
answering with the failing rank's story alone leaves the reader's doubt about the named ranks open.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import thread as t
from knowledge import answer_launcher
from knowledge.answer_doubt_said import short_quote
from knowledge.answer_types import Ctx, ref
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match

#: a counterfactual about ranks' own failure: "would it have failed anyway", "die on their own"
ANYWAY_Q = re.compile(
    r"\bwould (?:it|they|he|she|rank \d+|ranks [\d, and&-]+|(?:the )?others?|the rest|those|these)"
    r"(?: \w+)? (?:still |also |even )?have (?:failed|died|crashed|gone down|timed out|errored|exited)\b"
    r"|\b(?:fail|die|crash|time out|error)\w* "
    r"(?:anyway|regardless|on (?:its|their) own|by (?:itself|themselves))\b"
)


def anyway(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """ "No: rank(s) … were collateral, waiting on rank N …", with each named rank's own first line;
    ("", []) unless every rank named was collateral."""
    ini = c.view.initiating
    if ini is None or not m.ranks or not ANYWAY_Q.search(m.text):
        return "", []
    named = [c.view.ranks[r] for r in m.ranks if r in c.view.ranks]
    if not named or len(named) != len(m.ranks) or any(r.role != "collateral" for r in named):
        return "", []
    ranks = " and ".join(str(r.rank) for r in named) if len(named) == 2 else rl(named)
    who, their = (f"rank {ranks} was", "its") if len(named) == 1 else (f"ranks {ranks} were", "their")
    what = t.category_words(ini.category or c.view.category)
    lead = tff.ANYWAY_NO.format(who=who, rank=ini.rank, what=what, their=their)
    own = [r.first_line for r in named if r.first_line is not None]
    seen: set[str] = set()
    quoted = []
    for ln in own:
        words = short_quote(ln.text)
        if words not in seen:
            seen.add(words)
            quoted.append(f"`{words}` ({ref(ln)})")
    if quoted:
        lines = " and ".join(quoted[:2])
        lead = f"{lead} {tff.ANYWAY_OWN.format(their_cap=their.capitalize(), lines=lines)}"
    rows = answer_launcher.summary_rows(c, {r.rank for r in named})
    return (f"{lead} {rows}" if rows else lead), own[:2]
