"""The story asked as a root cause ("root cause in one sentence + who owns it", "what killed my job?").

The summary names who failed first and with what, but a root cause is also how the process ended: an
out-of-memory kill is a SIGKILL (exit -9), a killed worker a signal. The initiating rank's own exit (its
code and signal, from the launcher's report or its exit line) is added when the ask names a root cause
or a killer and the summary did not say it; the rank's exit is this job's fact, never a guess.
"""

from __future__ import annotations

import re

from denpex.core.texts import thread as t
from knowledge import answer_overview, answer_save_copy
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import rank_numbers

#: asks for the cause itself, not only the story ("root cause", "what killed it", "who killed my job")
CAUSE_Q = re.compile(
    r"\broot[- ]?cause\b|\b(?:what|who) (?:killed|took down|brought down)\b|\bkilled (?:it|my|our|the)\b"
)


def summary(c: Ctx, m: Match) -> Reply | None:
    """The verdict's story; asked for the root cause, with how the first rank ended (code, signal)."""
    got = answer_overview.summary(c, m)
    ini = c.view.initiating
    if got is None or ini is None or not CAUSE_Q.search(m.text):
        return got
    got = answer_save_copy.with_root(c, got)  # a save's copy on every rank: the copy and where it is built
    e = rank_numbers(c.view, ini).exit
    if e is None:
        return got
    code = f"exit code {e[0].code}" if e[0].code is not None else ""
    parts = [x for x in (code, e[0].signal or "") if x]
    if not parts or any(p.lower() in got.lead.lower() for p in parts):
        return got
    said = t.exit_with(parts)
    if e[1] < 0 and ini.exit_line is not None:  # from its own exit report: cite that line
        said = f"{said[:-1]} ({ref(ini.exit_line)})."
    return reply(got.intent, got.lead + said, got.lines)
