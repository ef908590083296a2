"""What to change, when a message asks it after another ask ("at which step did it go nan, and what do
I change in the config?", "is out/ usable, and what's the one line I flip in ds_config?", "which config
flag is missing?").

Why: the message's first ask decides its answer (the phase, the checkpoint, the progress); the change
ask is then dropped, or answered by a fact that only names the setting's value (the port number). The
change is this job's own fix step, naming its setting; it is added only when the answer lacks it.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_yesno as ty
from knowledge import answer_asks, answer_overview
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match

#: an ask for the change itself: a setting, a flag, a config line, what to add to the launch setup
CHANGE_Q = re.compile(
    r"\bwhat(?:'?s| is| are)? (?:exactly |else )?(?:\w+ ){0,3}?(?:do|should|would|must|can) (?:i|we) "
    r"(?:change|flip|set|add|edit|put|tweak|adjust|toggle|pass|use)\b"
    r"|\b(?:which|what)(?:'?s| is)? (?:the )?(?:one )?"
    r"(?:config |ds_config |launch |port |env |deepspeed |fsdp )?"
    r"(?:flag|setting|option|knob|line|parameter|param|key|field|arg|argument)s?\b"
    r"[^?]{0,40}\b(?:missing|flip|change|set|add|avoid\w*|need|toggle)\b"
    r"|\bwhat (?:do|should) (?:i|we) (?:change|flip|set|add) (?:in|to|on)\b"
    # "where in my config do I turn this off, and to what value?": the setting and its new value
    r"|\bwhere (?:in|on) (?:my|our|the) (?:\w+ )?(?:config\w*|settings|yaml|json)\b"
    r"|\b(?:turn|switch|shut|disable) (?:this|it|that) off\b|\bto what value\b"
)
#: the setting-like words in a fix step that show the answer already names it
_SETTING = re.compile(r"`[^`]+`|\b[a-z]+_[a-z0-9_]+\b|--[\w-]+")


def with_change(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got` with this job's fix step when the message asks what to change and `got` names none."""
    if got.intent == "fix" or not CHANGE_Q.search(m.text):
        return got
    fix = answer_overview.fix(c, m)
    if fix is None or not fix.bullets:
        return got
    if got.intent == "help":
        return fix
    told = answer_asks.said(got)
    names = _SETTING.findall(fix.bullets[0].lower())
    if names and any(n.strip("`") in told for n in names):
        return got
    step = answer_asks.steps_for(m.text, "fix", fix.bullets, told)
    if not step:
        return got
    return answer_asks.with_lead(got, ty.CHANGE_LEAD.format(step=step), [])
