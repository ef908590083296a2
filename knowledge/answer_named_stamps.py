"""The stamp of each line a message names by its step or by a quoted word: "step 0 and step 6
timestamps? want per-step ms", "ts of last step and of the agent's 'failed' line".

Why: the answer about progress quotes the last step line (and its stamp), not the steps the message
names, and an answer about the failure cites the launcher's lines without their times; a message that
asks for the stamps of named lines wants each one's own clock time, as printed (milliseconds kept). Each
named line is found among the job's kept lines and quoted with file:line; nothing when it is not kept.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_cited as tc
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply

#: the message asks for times or stamps
_STAMP_ASK = re.compile(r"\b(?:time ?stamps?|stamps?|ts|times?|clock|when)\b|\bms\b", re.IGNORECASE)
_STEP_N = re.compile(r"\bstep (\d+)\b", re.IGNORECASE)
#: "the agent's 'failed' line" (the message comes without its quotes): a launcher line named by a word
_AGENT_WORD = re.compile(
    r"\b(?:agent|launcher|torchrun|elastic)(?:'?s)? (?:own )?['\"`]?(\w{3,20})['\"`]? line\b", re.IGNORECASE
)
#: a line the launcher (torchrun's elastic agent) printed
_LAUNCHER = re.compile(r"torch/distributed/elastic|torchrun|\blauncher\b|\bagent\b", re.IGNORECASE)
#: a clock time as printed, with its fraction of a second (`21:36:34,124`, `21:39:04.729000`)
_CLOCK = re.compile(r"\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b")
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def _first(c: Ctx, hit: re.Pattern[str], launcher: bool) -> EvidenceLine | None:
    """The first kept line that `hit` finds and that prints a clock time (a launcher's, if asked)."""
    for ln in answer_grounds.all_lines(c):
        if launcher and not _LAUNCHER.search(ln.text):
            continue
        if not ln.record and hit.search(ln.text) and _CLOCK.search(ln.text):
            return ln
    return None


def _stamp(what: str, ln: EvidenceLine) -> str:
    clock = _CLOCK.search(ln.text)
    text = _PREFIX.sub("", ln.text).strip()[:160]
    return tc.stamped(what, clock.group(0) if clock else "", ln.ref, text)


def named(c: Ctx, text: str, got: Reply) -> tuple[str, list[EvidenceLine]]:
    """Each named step's line and each quoted word's line, with its printed clock time, when the
    answer does not show that time yet."""
    if not _STAMP_ASK.search(text):
        return "", []
    told = answer_asks.said(got)
    asked = [
        (f"step {n}", re.compile(rf"\bstep {n}(?:/\d+)?\b", re.IGNORECASE), False)
        for n in _STEP_N.findall(text)
    ]
    asked += [
        (f"launcher's '{w}'", re.compile(rf"\b{re.escape(w)}\b", re.IGNORECASE), True)
        for w in _AGENT_WORD.findall(text)
    ]
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for what, hit, launcher in asked:
        ln = _first(c, hit, launcher)
        clock = _CLOCK.search(ln.text) if ln is not None else None
        if ln is None or clock is None or ln in shown or clock.group(0).lower() in told:
            continue
        said.append(_stamp(what, ln))
        shown.append(ln)
    return " ".join(said), shown


def with_named(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the printed time of each line the message names by step or quoted word."""
    return answer_grounds.add(got, *named(c, text, got))


__all__ = ["named", "with_named"]
