"""A rank named as the one whose log lacks the symptom: "nan at which step? rank0 log dont show any nan".

Why: the rank named there is no subject of the ask, only where the reader looked. Answered about that
rank, the reply describes a collateral rank's step and error and never says whose line holds the
symptom. The clause is answered on its own (that rank failed after the first one, with another error;
the first rank's own line), and the rest of the message is asked as if the clause were not there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_figures as tx
from denpex.core.texts.thread import category_words
from knowledge.answer_types import Ctx, ref
from knowledge.intents import named_ranks

#: "rank0 log dont show any nan", "rank 2's output doesn't have the oom", "rank 0's log shows no nan"
_ABSENT = re.compile(
    r"\brank ?(\d+)(?:\W?s)? (?:own )?(?:logs?|output|stderr|stdout|lines?|file)?\s?"
    r"(?:do(?:es)?n\W?t|do(?:es)?nt|do(?:es)? not|did(?:n\W?t|nt| not)|never|wo(?:n\W?t|nt))\s"
    r"(?:show|have|print|say|mention|contain|log|see|has)\w*"
    r"|\brank ?(\d+)(?:\W?s)? (?:logs?|output|stderr|stdout) (?:shows|has|had|printed|contains|says) "
    r"(?:no|nothing)\b"
)
#: where one clause of a message ends
_CLAUSE_END = re.compile(r"[.?!;,]|\b(?:but|and|so)\b")


@dataclass(frozen=True, slots=True)
class Absent:
    """The sentence about the named rank, its line, and the message without that clause."""

    lead: str
    lines: list[EvidenceLine]
    rest: str


def not_shown(c: Ctx, text: str) -> Absent | None:
    """The clause's answer when it names a rank that failed after the first one; None otherwise (the
    first rank's own log lacking it is another question: what it printed instead)."""
    found = _ABSENT.search(text)
    ini = c.view.initiating
    if found is None or ini is None or ini.first_line is None:
        return None
    rank = int(found.group(1) or found.group(2))
    named = c.view.ranks.get(rank)
    if named is None or named.role != "collateral":
        return None  # the first rank itself, a healthy or a missing one: not "it failed after"
    lead = tx.NOT_ITS_LOG.format(
        rank=rank,
        ini=ini.rank,
        what=category_words(named.category),
        ini_what=category_words(ini.category or c.view.category),
        ref=ref(ini.first_line),
    )
    return Absent(lead, [ini.first_line], _named_in(_without(text, found.start(), found.end()), rank))


def _named_in(rest: str, rank: int) -> str:
    """The rest with the clause's rank for its first "it" ("rank 3 printed no error. did it just get
    SIGTERM?" asks about rank 3), unless the rest names a rank of its own."""
    if named_ranks(rest):
        return rest
    return re.sub(r"\b(?:it|he|she)\b", f"rank {rank}", rest, count=1)


def _without(text: str, start: int, end: int) -> str:
    """The message with the clause from `start` to its end cut out, its other clauses kept."""
    before = [m.end() for m in _CLAUSE_END.finditer(text, 0, start)]
    after = _CLAUSE_END.search(text, end)
    cut_from = before[-1] if before else 0
    cut_to = after.end() if after is not None else len(text)
    return f"{text[:cut_from]} {text[cut_to:]}".strip(" ,;")


__all__ = ["Absent", "not_shown"]
