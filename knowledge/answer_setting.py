"""Whether a setting was on in this job ("stage3_gather_16bit_weights_on_model_save, was it even on?",
"was rank0_only set?").

Why: the glossary says what a setting does; the reader also wants its value in *this* run. A value is
told only from the lines: a `name=value` (or `"name": value`) in a kept line, else what a kept line
implies (DeepSpeed runs `_zero3_consolidated_16bit_state_dict` on a save only when the 16-bit gather
is on; a `FullStateDictConfig(...)` without `rank0_only=True` leaves it at its default, False). With
neither, the answer says the value is not in the logs.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, ref
from knowledge.glossary import Term
from knowledge.intents import Match
from knowledge.lines import parse_rank

#: asks the setting's value in this job
ASKS_VALUE = re.compile(
    r"\b(?:was|is|were) (?:it|that|this|the (?:flag|setting|option))(?: \w+)?"
    r" (?:on|off|set|enabled|disabled|true|false|used)\b"
    # "was stage3_gather_16bit_weights_on_model_save on?": the setting named by its snake_case name
    r"|\b(?:was|is|were) [a-z0-9_.]*_[a-z0-9_.]+ (?:on|off|set|enabled|disabled|true|false|used)\b"
    # "rank0_only is set or no?", "rank0_only was on or off": the name first, then the verb
    r"|\b[a-z0-9_.]*_[a-z0-9_.]+ (?:is|was|were) (?:it )?(?:on|off|set|enabled|disabled|true|false|used"
    r"|passed|given)\b(?! (?:top|the|a|an|its|which|what)\b)"  # not "…_utils.py was on top of the stack"
    r"|\b(?:was|is|were) [a-z0-9_.]*_[a-z0-9_.]+ (?:passed|given|specified)\b"
    r"|\b[a-z0-9_.]*_[a-z0-9_.]+\W{0,3} (?:set|on|passed) in (?:our|my|the|this|your)"
    r" (?:code|script|run|job)\b"
    r"|\bwhat (?:was|is) (?:it|that|this) set to\b"
    r"|\b(?:did|do) (?:we|i|you) (?:have|set|use) (?:it|that|this)\b"
    r"|\b(?:on|enabled|set) (?:here|in this (?:run|job))\b|\bdo(?:es)? (?:here|in this (?:run|job))\b"
    r"|\b(?:on|off|enabled|disabled|set|true|false) in (?:our|my|the|this|your) (?:\w+ )?"
    r"(?:config\w*|json|yaml)\b"
    r"|\b(?:can|could) (?:u|you|i|we) see (?:it|that|this|its value|the value)\b.{0,20}\b(?:logs?|output)\b"
)
#: what a kept line implies about a setting it does not name: (setting, the line's mark, value, why)
_IMPLIED = (
    (
        "stage3_gather_16bit_weights_on_model_save",
        re.compile(r"_zero3_consolidated_16bit_state_dict"),
        "true",
        tff.SETTING_ZERO3_GATHER,
    ),
    (
        "rank0_only",
        re.compile(r"FullStateDictConfig\((?![^)]*rank0_only\s*=\s*True)[^)]*\)"),
        "False (the default: not passed)",
        tff.SETTING_RANK0_ONLY,
    ),
)


def value_said(c: Ctx, m: Match, term: Term) -> tuple[str, list[EvidenceLine]]:
    """The term's value in this job and the line that shows it; "" when the value is not asked."""
    if not ASKS_VALUE.search(m.text):
        return "", []
    said, lines, _ = setting_value(c, term)
    return said, lines


def setting_value(c: Ctx, term: Term) -> tuple[str, list[EvidenceLine], str]:
    """The setting's value and its line, and how it is known: "printed" (a line names it), "implied"
    (a line implies it) or "" (neither)."""
    names = [term.name, *term.aliases]
    lines = pool(c)
    for name in names:
        setting = re.compile(re.escape(name) + r"""["']?\s*[=:]\s*["']?([\w.-]+)""", re.IGNORECASE)
        for ln in lines:
            if (got := setting.search(ln.text)) is not None:
                said = tff.SETTING_SEEN.format(name=term.name, value=got.group(1), ref=ref(ln))
                return said, [ln], "printed"
    for name, mark, value, why in _IMPLIED:
        if name.lower() not in {n.lower() for n in names}:
            continue
        for ln in lines:
            if mark.search(ln.text):
                rank = parse_rank(ln.text).rank
                who = f"rank {rank}'s" if rank is not None else "the"
                why = why.format(who=who)
                said = tff.SETTING_IMPLIED.format(name=term.name, value=value, why=why, ref=ref(ln))
                return said, [ln], "implied"
    return tff.SETTING_UNSEEN.format(name=term.name), [], ""


__all__ = ["ASKS_VALUE", "setting_value", "value_said"]
