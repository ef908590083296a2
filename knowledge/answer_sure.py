"""How sure the diagnosis is of a starting rank it inferred ("how sure are you it was rank 3?", "none of
the lines are from rank 3: how confident are you?").

Why: when the starting rank printed no error of its own, it is named by elimination (the others timed
out waiting and it did not) or by a collective trace. Asked how sure, a plain "Yes: rank 3 started it"
overstates it; the honest answer says it is inferred, on what basis, the diagnosis's own confidence
(and a runner-up that scored as well), and what would confirm it.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_sure as ts
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView

#: asks how sure ("how sure are you", "how confident", "are you certain", "what's the confidence")
SURE_Q = re.compile(
    r"\bhow (?:sure|confident|certain)\b|\bare you (?:\w+ )?(?:sure|certain|confident)\b"
    r"|\bconfidence\b|\bhow (?:much|far) (?:do|can|should) (?:i|we) trust\b"
)
_RANK = re.compile(r"\b(?:rank|r)\s?(\d+)\b")
#: the doubt is about the rank named, not a cause put forward ("are you sure it isn't the OOM killer?")
_ABOUT_RANK = re.compile(r"\b(?:rank|r\d+|culprit|the one|who|which|started it)\b")
_OTHER_CAUSE = re.compile(r"\b(?:isn'?t|wasn'?t|not) (?:it |that |this )?(?:the|an?)\b|\bit isn'?t\b")


def sure_of_rank(c: Ctx, m: Match) -> Reply | None:
    """An inferred starting rank, asked how sure: not certain, on what basis, and the confidence."""
    ini = c.view.initiating
    if ini is None or not unsure(ini, m.text):
        return None
    named = {int(x) for x in _RANK.findall(m.text)}
    if named and ini.rank not in named:
        return None  # "how sure are you rank 1 was collateral?": another rank's part
    conf = c.view.confidence
    level = "low" if conf < 0.5 else "moderate" if conf < 0.75 else "high"
    lead = ts.SURE_INFERRED.format(rank=ini.rank, basis=_basis(c, ini), conf=conf, level=level)
    close = [a for a in c.view.alternatives if a.confidence >= conf - 0.05]
    if close:
        lead += " " + ts.RUNNER_UP_CLOSE.format(title=close[0].title, alt=close[0].confidence)
    lead += " " + ts.SURE_CONFIRM.format(rank=ini.rank)
    shown = [r.first_line for r in c.view.with_role("collateral") if r.first_line is not None][:2]
    return reply("alternatives", lead, shown or c.view.key_line())


#: the launcher's report that it stopped a rank (SIGTERM): the rank's only line, no error of its own
_STOPPED = re.compile(r"\bSignal 15\b|\bSIGTERM\b")


def unsure(ini: RankView, text: str) -> bool:
    """Asked how sure of a rank named without an error of its own: this module answers, not a "Yes"."""
    return (
        _inferred(ini)
        and bool(SURE_Q.search(text))
        and bool(_ABOUT_RANK.search(text))
        and not _OTHER_CAUSE.search(text)
    )


def _inferred(ini: RankView) -> bool:
    """Named without an error of its own: by a trace or a silence, or its only line is the launcher's
    SIGTERM (it was still running when the others gave up on it)."""
    return ini.inferred or (ini.first_line is not None and bool(_STOPPED.search(ini.first_line.text)))


def _basis(c: Ctx, ini: RankView) -> str:
    """Why this rank was named: a collective trace's finding, else the others' timeouts and its silence."""
    if ini.suspect:
        return ts.BY_TRACE.format(suspect=ini.suspect)
    others = c.view.with_role("collateral")
    who = (f"ranks {rl(others)}" if len(others) > 1 else f"rank {rl(others)}") if others else "the others"
    return ts.BY_ELIMINATION.format(others=who, rank=ini.rank)
