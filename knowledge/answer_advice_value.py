"""A value to set, asked for a setting the job's logs may or may not print ("what lr / clip value
should I put in the config?", "which warmup should we use?").

Why: the fix's steps say "a lower learning rate" or "clip gradients", and the reader asks for the
number. The logs decide what can be said: a setting a line prints is quoted with its line; one no line
prints is said to be not logged, so no number from this run picks it, and the fix's own starting point
is given instead, never a figure presented as this job's.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_whatif as tw
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: asked for a number to set ("what lr should i put", "which clip value do we use", "how low a lr")
VALUE_Q = re.compile(
    r"\b(?:what|which|how (?:much|low|high|big))\b[^?]{0,40}?\b(?:should|do|would|can|must|to) (?:i|we)?"
    r" ?(?:\w+ )?(?:put|set|use|pick|choose|go with|try|lower|drop)\b"
    r"|\bwhat (?:value|number|setting)s? (?:for|of)\b"
    # "what max grad norm value are you suggesting?", "what number do you recommend for clipping?"
    r"|\b(?:what|which)\b[^?]{0,40}?\b(?:are|do|would|did|will) (?:you|u) (?:\w+ )?"
    r"(?:suggest|recommend|propos|advis)\w*\b"
)
#: the settings asked about, each with the asked words and how a log line prints it
SETTINGS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        "learning rate",
        re.compile(r"\b(?:lr|learning[ _-]?rate)\b"),
        re.compile(r"\b(?:lr|learning_rate)\s*[=:]?\s*([0-9.]+(?:e-?[0-9]+)?)\b", re.IGNORECASE),
    ),
    (
        "gradient clipping",
        re.compile(r"\b(?:clip\w*|max[ _-]grad[ _-]norm|gradient_clipping)\b"),
        re.compile(r"\b(?:max_grad_norm|gradient_clipping|clip_grad\w*)\s*[=:]\s*([0-9.]+)\b", re.IGNORECASE),
    ),
    (
        "warm-up",
        re.compile(r"\bwarm-?up\w*\b"),
        re.compile(r"\bwarm-?up\w*\s*[=:]\s*([0-9.]+)\b", re.IGNORECASE),
    ),
)
_GRAD_NORM = re.compile(r"\bgrad_norm\s*[=:]?\s*([0-9.]+)\b")


def _printed(lines: list[EvidenceLine], pattern: re.Pattern[str]) -> tuple[str, EvidenceLine] | None:
    """The last value a kept line prints for the setting, and that line."""
    hits = [(f.group(1), ln) for ln in lines if (f := pattern.search(ln.text))]
    return hits[-1] if hits else None


def value(c: Ctx, m: Match) -> Reply | None:
    """ "What lr / clip value should I put in the config?": each setting asked, what the logs print
    for it (with the line) or that no line does, then the fix's own starting point."""
    if not VALUE_Q.search(m.text):
        return None
    asked = [(name, said) for name, words, said in SETTINGS if words.search(m.text)]
    if not asked:
        return None
    lines = pool(c)
    logged, missing, shown = [], [], []
    for name, said in asked:
        if (found := _printed(lines, said)) is not None:
            logged.append(tw.VALUE_LOGGED.format(name=name.capitalize(), value=found[0], ref=ref(found[1])))
            shown.append(found[1])
        else:
            missing.append(name)
    parts = list(logged)
    if missing:
        pronoun = "it" if len(missing) == 1 else "either"
        names = " and ".join(missing).capitalize()
        parts.append(tw.VALUE_NOT_LOGGED.format(names=names, pronoun=pronoun))
    hints = "; ".join(tw.VALUE_HINTS[name] for name in missing or [n for n, _ in asked])
    lead = tw.VALUE_LEAD.format(said="; ".join(parts), hints=hints)
    if not missing:
        lead = "; ".join(parts) + "."
    if (norm := _printed(lines, _GRAD_NORM)) is not None and any(n == "gradient clipping" for n, _ in asked):
        lead += " " + tw.VALUE_GRAD_NORM.format(value=norm[0], ref=ref(norm[1]))
        shown.append(norm[1])
    return reply("fix", lead, shown or c.view.key_line())


__all__ = ["VALUE_Q", "value"]
