"""Hung or dead: how the logs tell a silent rank that was still running from one that had died.

"How do you know rank 3 was hung rather than dead?", "stuck or crashed?": the rank printed nothing, so
the answer is what the others' lines show (every one blocked in the same collective until the timeout,
the one rank that never joined it) and what the launcher's summary shows of the silent rank itself: a
SIGTERM it sent means the process was still alive when it was stopped, whereas a rank that died would
have exited first with a code of its own. Then what settles it on the next run. Why: the usual answers
named the verdict and its runner-up, never the line that separates hung from dead.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_verdicts as tv
from knowledge import answer_checks, answer_silent
from knowledge.answer_types import Ctx, Reply, duration, ref, reply, when
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import seconds_between
from knowledge.lines import parse_timestamp

_ALIVE = r"(?:hung|hang\w*|stuck|wedged|alive|blocked|frozen|deadlocked|still running)"
_GONE = r"(?:dead|died|crash\w*|killed|gone|exited|segfault\w*)"
#: "hung rather than dead", "stuck or crashed?", "dead vs hung"
_BUT = r"\b[^?.]{0,25}?\b(?:rather than|instead of|or|vs\.?|versus|and not|not)\b[^?.]{0,12}?\b"
HUNG_OR_DEAD = re.compile(rf"\b{_ALIVE}{_BUT}{_GONE}\b|\b{_GONE}{_BUT}{_ALIVE}\b")
#: the launcher's stop of a still-running worker
_STOPPED = re.compile(r"SIGTERM|Signal 15|exitcode ?: ?-15")


def hung_or_dead(c: Ctx, m: Match) -> Reply | None:
    """For a job a silent rank started: the others' wait (the collective, the timeout), the launcher's
    SIGTERM to the silent rank (alive until then) or that nothing shows either, then the checks."""
    ini = c.view.initiating
    if ini is None or not HUNG_OR_DEAD.search(m.text) or not answer_silent.silent(ini):
        return None
    others = [r.rank for r in c.view.with_role("collateral")]
    parts = [tv.HUNG_NO_LINE.format(rank=ini.rank)]
    if others:
        parts.append(tv.HUNG_OTHERS.format(ranks=rl(others), rank=ini.rank, where=answer_checks.waited_in(c)))
    line = ini.first_line
    if line is not None and _STOPPED.search(line.text):
        parts.append(tv.HUNG_SIGTERM.format(rank=ini.rank, ref=ref(line)))
    else:
        parts.append(tv.HUNG_UNKNOWN.format(rank=ini.rank))
    parts.append(answer_silent.next_steps(c, ini))
    shown = [x for x in (line, *(r.first_line for r in c.view.with_role("collateral")[:1])) if x is not None]
    return reply("rank_why", " ".join(parts), shown)


#: "how long was it quiet before the others gave up?", "how long was rank 2 stuck"
QUIET_Q = re.compile(
    r"\bhow long (?:was|had|did|has) (?:it|rank \d+|r\d+|they|that rank)(?: \w+)?"
    r" (?:quiet|silent|stuck|hung|hanging|idle|dark|frozen|wedged)\b"
    r"|\bhow long (?:before|until|till) (?:the )?(?:others|rest|other ranks) (?:gave up|timed out)\b"
)


def _last_said(c: Ctx, rank: int) -> tuple[str, EvidenceLine] | None:
    """The silent rank's last line with a time of its own, and that time."""
    r = c.view.ranks.get(rank)
    lines = [ln for tl in c.d.tails if tl.rank == rank for ln in tl.lines]
    if r is not None and r.last_step_line is not None:
        lines.append(r.last_step_line)
    for ln in reversed(lines):
        stamp = parse_timestamp(ln.text)
        if stamp is not None and not stamp.relative and (iso := stamp.iso()) is not None:
            return iso, ln
    return None


def quiet_for(c: Ctx, m: Match) -> Reply | None:
    """ "Rank 2's last line was step 40: how long was it quiet before the others gave up?": from its
    last timed line to the first of the others' failures, both lines named."""
    ini = c.view.initiating
    if ini is None or not QUIET_Q.search(m.text) or not answer_silent.silent(ini):
        return None
    last, gave_up = _last_said(c, ini.rank), c.view.first_collateral_time()
    gap = seconds_between(last[0], gave_up) if last is not None and gave_up else None
    if last is None or gap is None or gap <= 0:
        return None
    first = min(c.view.with_role("collateral"), key=lambda r: r.first_time or "~")
    text = last[1].text.strip()[:160]
    lead = tv.QUIET_FOR.format(
        rank=ini.rank,
        gap=duration(gap),
        at=when(last[0]),
        ref=ref(last[1]),
        text=text,
        other=first.rank,
        until=when(gave_up),
        ref2=f" ({ref(first.first_line)})" if first.first_line else "",
    )
    shown = [last[1], *([first.first_line] if first.first_line is not None else [])]
    return reply("hang", lead, shown)


__all__ = ["HUNG_OR_DEAD", "QUIET_Q", "hung_or_dead", "quiet_for"]
