"""Every logged loss when the whole message asks for them: "Was the loss trending upward before the
NaN? Give me the values rank 0 logged."

Why: a message of two asks is answered ask by ask; the loss answer of the first ("trending upward?")
lists the last few values, and the second ask ("give me the values rank 0 logged"), read alone, names
no loss, so no ask saw that all of them were wanted. The loss answer's list of values is redone from
the whole message: every value the rank logged, from its first step line, each step once.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups as tf
from denpex.core.texts import followups_series as ts
from knowledge import answer_evidence
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match

#: how the loss answer's sentence that lists the values begins ("The last logged losses (")
_OPENS = tf.LOSS_TREND.split("{", 1)[0]


def _sentence(template: str) -> str:
    """A regex for one sentence made from `template`, each `{field}` any text up to its next literal."""
    parts = re.split(r"\{\w+\}", template)
    return r".+?".join(re.escape(p) for p in parts) + r"(?=\s|$)"


#: that sentence and the trend sentence after it, which reads the same values ("No spike in those …")
_LISTED = re.compile(_sentence(tf.LOSS_TREND) + r"(?: " + _sentence(tf.LOSS_FLAT) + r")?")
#: the message names the loss (a message about another series is not this one's)
_LOSS = re.compile(r"\bloss(?:es)?\b")


def with_series(ctx: Ctx, whole: Match, got: Reply) -> Reply:
    """`got` (a loss answer) with its listed values replaced by every logged one, when the whole
    message asks for all of them and the ask that was answered did not."""
    if got.intent != "loss" or not _LOSS.search(whole.text) or not answer_evidence.asks_curve(whole.text):
        return got
    old = _LISTED.search(got.lead)
    full = answer_evidence.loss(ctx, whole)
    new = _LISTED.search(full.lead)
    if old is None or new is None or len(new.group(0)) <= len(old.group(0)):
        return got  # the answer lists them all already
    listed = new.group(0).replace(_OPENS, ts.ALL_LOSSES, 1)
    lead = got.lead[: old.start()] + listed + got.lead[old.end() :]
    lines = [*full.lines[:1], *(ln for ln in got.lines if ln not in full.lines[:1])]
    return replace(got, lead=lead, lines=lines, material=[*got.material, listed])


__all__ = ["with_series"]
