"""Whether the checkpoint a failure hit exists ("the step 100 ckpt in out/, is it there or not?").

Why: a rank that failed while saving leaves the save it was making unfinished, and a question about
that file wants its step and whether any line says it was written; the memory or phase figures alone
do not say. Only what the logs show is claimed: a save line followed by a "saved" line, or not.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_job as tj
from knowledge import answer_more
from knowledge.answer_quote import saving_line
from knowledge.answer_types import Ctx, rank_lines, ref
from knowledge.intents import Match

#: asks whether a checkpoint exists or is usable
CKPT_Q = re.compile(
    r"\b(?:ckpt|checkpoint|save)s?\b[^?]{0,40}?\b(?:there|exists?|saved|written|complete|finished|intact"
    r"|usable|on disk|made it|landed|or not)\b"
    r"|\b(?:is|was|did) (?:the |that |our )?(?:step \d+ )?(?:ckpt|checkpoint)\b"
)
#: a line saying a save finished
_SAVED = re.compile(
    r"\b(?:saved|written|wrote|finished saving|save (?:done|complete\w*|finished))\b", re.IGNORECASE
)


def checkpoint_state(c: Ctx, m: Match, text: str) -> tuple[str, list[EvidenceLine]]:
    """The step of the save the first rank failed in and whether a line says it completed."""
    ini = c.view.initiating
    if not CKPT_Q.search(m.text) or ini is None or ini.phase != "checkpoint_save" or ini.last_step is None:
        return "", []
    saving = saving_line(c)
    start = saving[1] if saving is not None else answer_more.doing_line(c, ini)
    done = [
        ln
        for lines in rank_lines(c, ini.rank).values()
        for ln in lines
        if _SAVED.search(ln.text) and (start is None or (ln.source == start.source and ln.line > start.line))
    ]
    if done:
        said = tj.CKPT_WRITTEN.format(step=ini.last_step, ref=ref(done[0]))
        return ("" if said in text else said), done[:1]
    shown = start or ini.first_line
    said = tj.CKPT_CUT.format(step=ini.last_step, rank=ini.rank, ref=ref(shown) if shown else "its log")
    return ("" if said in text else said), [shown] if shown is not None else []


__all__ = ["CKPT_Q", "checkpoint_state"]
