"""What is wrong in the user's code, asked about a function or a line ("whats wrong in my
save_checkpoint, line 174").

The code answer (`answer_code.where_in_code`) names the frame; asked what is *wrong* there, the
reader wants the cause too, said first: the desync between the ranks' calls, or the entry's cause with
how many copies this job's node held. Why: the frame alone repeats what the reader already pointed at.
A rank killed with no traceback of its own gets the line another rank's traceback names, when every
rank runs the same code there.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_verdicts as tv
from knowledge import answer_code, answer_mechanism, answer_rerun
from knowledge.answer_types import Ctx, Reply, first_sentence, reply
from knowledge.intents import Match

#: "what's wrong in my save_checkpoint", "what is the bug in train.py", "whats broken on line 174"
WRONG = re.compile(
    r"\bwhat(?:s| is| was)? (?:wrong|broken|the (?:bug|problem|issue|mistake)) (?:in|with|on|at)\b"
    r"|\bwhats (?:wrong|broken|the (?:bug|problem|issue|mistake))\b"
    # "whats the actual code bug", "what's the real bug here", "where's the bug"
    r"|\b(?:what|where)(?:s|'s| is| was) the (?:actual |real |exact |underlying )?(?:code )?bug\b"
)


def where_in_code(c: Ctx, m: Match) -> Reply | None:
    """The frame in the user's code; asked what is wrong there, the cause first."""
    base = answer_code.where_in_code(c, m)
    if base is not None and (theirs := _from_others(c, m)) is not None:
        return theirs
    if base is None or not WRONG.search(m.text):
        return base
    why = answer_code.desync_note(c) or _cause(c, base.lead)
    if not why or why.lower() in base.lead.lower():
        return base
    line = answer_mechanism.cause_line(c)
    if line is not None and answer_mechanism.code_of(line) in why:  # no frame of its own: the line is it
        return reply("code", why, [line, *(x for x in base.lines if x != line)][:2])
    return reply("code", f"{why} {base.lead}", base.lines)


def show_lines(c: Ctx, m: Match) -> Reply | None:
    """Lines asked for; a line of the user's code asked for ("paste the FSDP line from our script")
    gets the code answer, with the line another rank's traceback names when the failing rank has none."""
    asked = answer_code.CODE_QUESTION.search(m.text) or _SCRIPT_LINE.search(m.text)
    if asked and (got := where_in_code(c, m)) is not None:
        return got
    return answer_code.show_lines(c, m)


#: a line of a named script asked for ("show me the exact line in train.py", "the line from train.py")
_SCRIPT_LINE = re.compile(r"\blines? (?:in|of|from) (?:the |my |our |your )?[\w/.-]*\w\.py\b")


#: asks for a line of the user's code ("which line in our code", "where in train.py"), not a log line
_CODE_ASKED = re.compile(
    r"\b(?:our|my|your|the) (?:code|script)\b|\bin (?:the )?code\b|\.py\b|\bcode bug\b|"
    + r"\b(?:config|code) line\b"
    # "which file n line do i point the devs at", "+ line number": a place in the code to hand over
    + r"|\bfile (?:and|n|&|\+) line\b|\bline (?:number|no\.?|#)|\bfile:line\b"
    + r"|\bpoint (?:the )?(?:devs?|dev team|developers?|engineers?|engineering|team|owners?)\b"
)
#: the line that *caused* it asked for ("exact config line that caused it"): the line, then what in it
#: to change, since the cause is a setting the line leaves out (rank0_only), not only where it is
_CAUSED = re.compile(
    r"\b(?:exact|offending|culprit|config) (?:config |code )?line\b|\bwhich line caused\b"
    r"|\bline (?:that|which) (?:caused|causes|triggered|broke|did) (?:it|this|that)\b"
    # "which config is the wrong one in our code", "what setting in our script is wrong"
    r"|\b(?:config|setting|option|flag|param\w*|arg\w*)s?\b[^?]{0,40}"
    r"\b(?:wrong|bad|broken|culprit|at fault)\b"
)


def _from_others(c: Ctx, m: Match) -> Reply | None:
    """A rank killed without a traceback, in an entry where every rank runs the same copy-building
    code: the line another rank's traceback names is the line (the killed rank ran it too). Why: "no
    line of your code is named" sends the reader searching for a line the job's logs do show."""
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if (
        r is None
        or not (_CODE_ASKED.search(m.text) or _CAUSED.search(m.text))
        or not answer_mechanism.per_rank(c)
        or answer_code.user_frame(c, r.rank) is not None
    ):
        return None
    where, line = answer_mechanism.cause_sentence(c), answer_mechanism.cause_line(c)
    if not where or line is None:
        return None
    lead = tv.CODE_FROM_OTHERS.format(rank=r.rank, where=where)
    asked = WRONG.search(m.text) or _CAUSED.search(m.text)
    if asked and (step := answer_rerun.change_step(c)) and step not in lead:
        lead = f"{lead} {tv.CODE_BUG_CHANGE.format(step=step)}"  # "what's the bug": what to change in it
    return reply("code", lead, [line])


def _cause(c: Ctx, said: str) -> str:
    """The entry's cause in one sentence, the code line that does it (unless the frame already quotes
    it) and, when every rank holds its own copy, how many there were."""
    if c.entry is None:
        return ""
    first = first_sentence(c.entry.root_cause) + "."
    line = answer_mechanism.cause_line(c)
    where = answer_mechanism.cause_sentence(c)
    if line is not None and answer_mechanism.code_of(line) in said:
        where = ""  # "line 174, in save_checkpoint: `get_state_dict(…)`" is already the answer's frame
    return " ".join(x for x in (first, where, answer_mechanism.copies(c)) if x)


__all__ = ["WRONG", "where_in_code"]
