"""Why the alternative a challenge names does not fit this job ("are you sure it's not the OOM killer?",
"why call it disk full and not a flaky fs?", "we never use 29500, are you sure it's a port thing?").

Each check reads this job's own lines: the exit code the launcher reported, the port the failing
socket named, the kind of write that failed. Why: "Nothing else scored" answers a challenge with the
ranking, not with the evidence that decides between the verdict and the alternative the reader named.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from knowledge import answer_challenge_alt
from knowledge.answer_types import Ctx, rank_lines, ref

#: a challenge of the verdict: "are you sure", "not X", "how do you know", "why call it"
CHALLENGE = re.compile(
    r"\b(?:are|r) (?:you|u) sure\b|\bsure (?:it\W?s|it is|that)\b|\bhow (?:do|can) (?:you|u) (?:know|tell)\b"
    r"|\bcould(?:nt| not)? (?:it |this |that )?(?:just |simply )?be\b"
    r"|\bcould(?:nt| not) (?:a|an|the) \w+|\bmaybe (?:just |only )?(?:a|an|one)\b"
    r"|\bwhy (?:call|say|is) it\b|\bnot (?:just )?(?:a|an|the) [\w -]{2,20}\?|\bhow is (?:that|this|it)\b"
    # a familiar cause offered in its place ("is this the usual 29500 collision")
    r"|\b(?:is|was) (?:it|this|that) (?:just )?(?:the|a|an|our) "
    r"(?:usual|same|typical|common|classic|known|old)\b"
)
_OOM = re.compile(r"\boom\b|oom[- ]?killer|out of memory|\bkilled\b|\bram\b")
_FLAKY = re.compile(r"\bflaky\b|\bfs\b|filesystem|\bnfs\b|storage|\bdisk\b")
_EXIT = re.compile(r"exitcode\s*:?\s*(-\d+)")
_PORT = re.compile(r"\bport[: =]+(\d{2,5})\b")
_NUMBER = re.compile(r"(?<![\d.])(\d{4,5})(?![\d.])")


def refute(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The sentences that say why the named alternative does not fit, and the lines that show it."""
    alt, alt_lines = answer_challenge_alt.checks(c, text)  # each with its own cue, challenge or not
    if not CHALLENGE.search(text):
        return alt, alt_lines
    out: list[str] = [alt] if alt else []
    lines: list[EvidenceLine] = list(alt_lines)
    for check in (_not_oom, _not_flaky, _not_port, _not_logged):
        said, shown = check(c, text)
        if said:
            out.append(said)
            lines += shown
    return " ".join(out), lines


def _own(c: Ctx) -> list[EvidenceLine]:
    ini = c.view.initiating
    if ini is None:
        return []
    return [ln for lines in rank_lines(c, ini.rank).values() for ln in lines]


def _not_oom(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    ini = c.view.initiating
    if ini is None or not _OOM.search(text) or "oom" in c.view.category or "memory" in c.view.category:
        return "", []
    for ln in _own(c):
        m = _EXIT.search(ln.text)
        if m and m.group(1) not in ("-9", "-15"):
            return tff.NOT_OOM.format(rank=ini.rank, code=m.group(1), ref=ref(ln)), [ln]
    return "", []


def _not_flaky(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    if not _FLAKY.search(text) or not c.view.category.startswith("disk"):
        return "", []
    return tff.NOT_FLAKY, []


def _not_port(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    asked = set(_NUMBER.findall(text))
    if not asked or not c.view.category.startswith("rendezvous"):
        return "", []
    pool = c.view.evidence + [ln for tl in c.d.tails for ln in tl.lines]
    for ln in pool:
        m = _PORT.search(ln.text)
        if m and m.group(1) not in asked:
            return tff.NOT_PORT.format(port=m.group(1), asked=", ".join(sorted(asked)), ref=ref(ln)), [ln]
    return "", []


_SAMPLE = re.compile(r"\b(?:sample|batch|data|diverg\w*|climb\w*|spike\w*)\b")
_LOSS = re.compile(r"\bloss[ =:]+[0-9]")


def _not_logged(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """A loss that "looked fine" read from a rank other than the one whose loss went NaN: only that
    rank's losses are in the logs, so they say nothing about the failing rank's batch."""
    ini = c.view.initiating
    if ini is None or not _SAMPLE.search(text) or "nan" not in c.view.category:
        return "", []
    loggers = {
        tl.rank for tl in c.d.tails if tl.rank is not None and any(_LOSS.search(ln.text) for ln in tl.lines)
    }
    if len(loggers) != 1 or ini.rank in loggers:
        return "", []
    shown = [ini.first_line] if ini.first_line is not None else []
    return tff.NOT_LOGGED.format(logger=loggers.pop(), rank=ini.rank), shown
