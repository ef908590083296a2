"""Yes/no checks of a figure, a time or a fate that no other check takes ("the recv timeout was 10
seconds?", "did ranks 0,1,3 hang about ten minutes before timing out?", "job 991 was killed at 03:10?",
"did any rank actually start?", "the dataloader worker on rank 3 segfaulted, right?").

Why: put as a statement to confirm, these match no intent and got the list of example questions. Each
is asked again as the open question it checks (the timeout, how long they waited, when it was killed,
whether training started); a figure or a clock time the reader gave is then held to the first one that
answer says, yes or no first. A crash put on a collateral rank is answered as who started it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from denpex.core.texts import followups_yesno as ty
from knowledge import answer_join, answer_premise
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match

Ask = Callable[[str], Reply]

#: the message is a statement or a closed question put to be checked
_CHECK = re.compile(
    r"^(?:so |and |but |ok |wait )?(?:did|was|were|is|are|has|had|do|does)\b"
    r"|\b(?:right|correct|yeah|yes|true|yep|confirm\w*|isn'?t it|wasn'?t it|no)\W*$|\?\s*$"
)
#: answers that do not take up the claim: the examples, a term's meaning, a fragment's source, the backend
_WEAK = frozenset({"help", "explain", "quote", "backend"})
_OPEN = re.compile(r"^(?:which|who|what|whats|why|how|when|where)\b")
_RANKS = re.compile(r"\branks? \d+(?:(?:,? and |, ?| & |-| )\d+)*\b")
#: (what the claim is about, the open question that answers it); first match wins
_TOPICS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:hang|hung|wait\w*|stuck|sat|sit)\b.*\b(?:before|until|till) (?:timing|they timed|it timed)"
        ),
        "how long did {ranks} wait before timing out?",
    ),
    (re.compile(r"\btime ?out\b|\btimeout\b"), "what was the timeout?"),
    (
        re.compile(
            r"\b(?:killed|cancell?ed|ended|terminated|stopped|died|failed|crashed)\b.*\b\d{1,2}:\d{2}\b"
        ),
        "when was the job killed?",
    ),
    (
        re.compile(
            r"\b(?:any|a single|one|the) (?:rank|worker|process|gpu)s? (?:\w+ )?(?:start|run|launch)\w*\b"
        ),
        "did training start?",
    ),
)
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})(?::(\d{2}))?\b")
_WORDS = {"one": 1, "two": 2, "three": 3, "five": 5, "ten": 10, "fifteen": 15, "twenty": 20, "thirty": 30}
_SPAN = re.compile(
    r"\b(\d+(?:\.\d+)?|"
    + "|".join(_WORDS)
    + r")\s?(ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hours?)\b"
)
_UNIT = {"s": 1.0, "m": 60.0, "h": 3600.0}


def recheck(c: Ctx, text: str, got: Reply, ask: Ask) -> Reply:
    """`got` (the examples, or an answer that misses the claim) replaced by the open question's
    answer, with yes or no first."""
    low = text.lower()
    if got.intent not in _WEAK or not _CHECK.search(low) or _OPEN.search(low):
        return got
    for topic, question in _TOPICS:
        if topic.search(low):
            ranks = _RANKS.search(low)
            asked = ask(question.format(ranks=ranks.group(0) if ranks else "the other ranks"))
            if asked.intent == "help":
                return got
            verdict = _verdict(low, asked.lead)
            return answer_join.first(asked, verdict, []) if verdict else asked
    return got


def _verdict(claim: str, lead: str) -> str:
    """Yes or no on the first clock time or span the claim gives, against the first one `lead` says."""
    if (said := _CLOCK.search(claim)) is not None and (fact := _CLOCK.search(lead)) is not None:
        same = said.group(1).zfill(2) == fact.group(1).zfill(2) and said.group(2) == fact.group(2)
        shown = fact.group(0)
        return (ty.CLAIM_MATCHES if same else ty.CLAIM_DIFFERS).format(fact=shown, claimed=said.group(0))
    if (said_s := _span(claim)) is not None and (fact_s := _span(lead)) is not None:
        near = abs(said_s[0] - fact_s[0]) <= 0.1 * max(fact_s[0], 1e-9)
        return (ty.CLAIM_MATCHES if near else ty.CLAIM_DIFFERS).format(fact=fact_s[1], claimed=said_s[1])
    return ""


def _span(text: str) -> tuple[float, str] | None:
    found = _SPAN.search(text.lower())
    if found is None:
        return None
    num = found.group(1)
    value = float(_WORDS[num]) if num in _WORDS else float(num)
    unit = found.group(2)
    scale = 0.001 if unit == "ms" or unit.startswith("milli") else _UNIT.get(unit[:1], 1.0)
    return value * scale, found.group(0)


#: "the dataloader worker on rank 3 segfaulted", "rank 3 crashed, right?": a crash put on one rank
_CRASH = re.compile(
    r"\b(?:rank|r)\s?(\d+)\b(?:'s)?[^?.,;]{0,40}?\b(?:seg ?fault\w*|crash\w*|blew up|core dump\w*|errored)\b"
)


def crash_claim(c: Ctx, m: Match) -> Reply | None:
    """A crash put on a collateral rank: no first, with the rank that started it and what it hit."""
    ini = c.view.initiating
    found = _CRASH.search(m.text)
    if ini is None or found is None or not _CHECK.search(m.text) or _OPEN.search(m.text):
        return None
    named = int(found.group(1))
    if named == ini.rank or named not in c.view.ranks or c.view.ranks[named].role != "collateral":
        return None
    return answer_premise.rank_started(c, replace(m, text=f"rank {named} started it, right?"))
