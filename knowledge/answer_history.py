"""This run against the others: earlier incidents, what changed since the last good run, versions.

"Has this happened before?", "what changed since yesterday?", "what NCCL version was this?": only this
run's logs are read, so each answer says what this run shows and, where the question needs another
run, that it is not in the logs. Kept apart from `answer_overview`, which holds the failure's story.
"""

from __future__ import annotations

from denpex.core.texts import followups as tf
from denpex.core.texts import thread as t
from knowledge import answer_advice, answer_more, answer_overview
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match


def versions(c: Ctx, m: Match) -> Reply | None:
    """ "What NCCL version was this?": each version asked for, from the line that prints it."""
    return reply("versions", answer_more.versions(c, m))


def history(c: Ctx, m: Match) -> Reply | None:
    """Earlier incidents; without the history, says which failure mode to look for."""
    if c.past is not None:
        return answer_advice.history(c, m)
    title = c.d.entry.title if c.d.entry else t.category_words(c.d.category)
    return reply("history", tf.HISTORY_UNKNOWN.format(title=title), known=False)


def changed(c: Ctx, m: Match) -> Reply | None:
    """ "What changed since yesterday?": only this run is read, so no diff; what this run shows."""
    base = answer_overview.summary(c, m)
    if base is None:
        return None
    return reply("changed", f"{tf.ONLY_THIS_RUN} {base.lead}", base.lines)


__all__ = ["changed", "history", "versions"]
