"""Whether the logs print a setting or Denpex inferred it: "does the log actually print
stage3_gather_16bit_weights_on_model_save=true anywhere, or is that inferred?".

The answer says which, first: printed (the line that names it), inferred (the line it is read from and
why that line implies it), or neither (the value is not in the logs).
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_facts as tf
from knowledge.answer_setting import setting_value
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.glossary import Term
from knowledge.intents import Match

#: asks whether a value is printed or inferred
ASKS_PRINTED = re.compile(
    r"\b(?:print|log|show|say|set)\w*\b[^?]{0,70}?\b(?:anywhere|at all|in the logs?)\b"
    r"|\b(?:or|is that|was that|did you|u) (?:\w+ )?(?:inferr?\w*|infer|guess\w*|assum\w*|deduc\w*)\b"
    r"|\bprinted or (?:inferred|guessed|assumed)\b"
)


def printed(c: Ctx, m: Match) -> Reply | None:
    """ "Printed: …" / "Not printed: inferred from …" / "Not printed, and nothing implies it"."""
    if not ASKS_PRINTED.search(m.text.lower()) or (term := _setting(c, m.text.lower())) is None:
        return None
    said, lines, how = setting_value(c, term)
    lead = {"printed": tf.SETTING_PRINTED, "implied": tf.SETTING_INFERRED}.get(how, tf.SETTING_NEITHER)
    return reply("show_lines", f"{lead.format(name=term.name)} {said}", lines)


def _setting(c: Ctx, text: str) -> Term | None:
    """The setting the text names (by its name or an alias, as written in a config)."""
    for term in c.glossary.values():
        names = [term.name, *term.aliases]
        if any("_" in n and n.lower() in text for n in names):
            return term
    return None


__all__ = ["ASKS_PRINTED", "printed"]
