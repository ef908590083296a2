"""A fix step put forward and doubted: "you say adding rank0_only=True fixes it. How sure are you?".

Why: the asker names one step of the fix and raises its limit (rank 0 still holds the whole model);
the verdict's alternatives are not the answer. The entry's fix already says what comes when that step
is not enough (save sharded, DCP; more sharding; a bigger node), so the answer names the step they
quote, how strongly this job's verdict scored, and the fix's other steps. Nothing beyond the entry and
the diagnosis is claimed: whether the one step suffices for this model's size the logs do not show.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_verdicts as tv
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match, tokens

#: a fix (or a step of it) put forward as what the bot said would work
_FIX_CLAIM = re.compile(
    r"\b(?:fix|fixes|fixed|solve[sd]?|cure[sd]?|resolve[sd]?|prevent[sd]?|enough|sufficient)\b"
)
#: the doubt: how sure, really, are you certain
_DOUBT = re.compile(
    r"\bhow (?:sure|confident|certain)\b|\bare you (?:sure|certain|confident)\b"
    r"|\b(?:will|would|does|do) (?:that|it|this) (?:really|actually|truly)\b|\bis (?:that|it) really\b"
)
#: an identifier the asker quotes from the fix (`rank0_only=True`, `expandable_segments`)
_IDENT = re.compile(r"[A-Za-z][\w.]*(?:_\w+|=\w+)")


def _named(steps: list[str], text: str) -> int | None:
    """The index of the step the question quotes: by an identifier first, else by the most shared
    words (at least two); None when it names none of them."""
    for ident in _IDENT.findall(text):
        key = ident.split("=", 1)[0].lower()
        hit = next((i for i, s in enumerate(steps) if key in s.lower()), None)
        if hit is not None:
            return hit
    words = set(tokens(text))
    scored = [(len(words & set(tokens(s))), -i) for i, s in enumerate(steps)]
    best = max(scored, default=(0, 0))
    return -best[1] if best[0] >= 2 else None


def fix_doubted(c: Ctx, m: Match) -> Reply | None:
    """The quoted fix step, the verdict's score, and the fix's other steps for when it is not enough."""
    if c.entry is None or not (_FIX_CLAIM.search(m.text) and _DOUBT.search(m.text)):
        return None
    steps = list(c.steps)
    at = _named(steps, m.text)
    if at is None:
        return None
    others = " ".join(f"({i + 1}) {s}" for i, s in enumerate(steps) if i != at)
    title = c.view.title or c.view.category
    lead = tv.FIX_DOUBTED.format(n=at + 1, step=steps[at], title=title, conf=c.view.confidence, others=others)
    return reply("fix", lead, c.view.key_line())
