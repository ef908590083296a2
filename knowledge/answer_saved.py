"""Whether a checkpoint was saved, on a job no line of which mentions a save: "did it manage to save a
checkpoint before it got killed?", "was any checkpoint written before the end?".

Why: the ask matched the phase intent and got the job's phase and last step, which never says whether
anything was saved. When no kept line of the job mentions a save or a checkpoint, the answer is that
the logs show none, then the last step the run logged.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_saved as tx
from knowledge import answer_grounds
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match

#: asks whether a checkpoint was saved ("did it manage to save a checkpoint", "was a ckpt written")
SAVED_Q = re.compile(
    r"\b(?:did|has|had|was|were|could)\b[^?]{0,40}\b(?:sav(?:e|ed|ing)|writ(?:e|ten)|wrote|dump(?:ed)?)\b"
    r"[^?]{0,20}\b(?:checkpoints?|ckpts?|weights|state ?dicts?)\b"
    r"|\b(?:did|was|were|has|have|is there) (?:a |any |the )?(?:checkpoints?|ckpts?)\b[^?]{0,30}"
    r"\b(?:saved|written|made|get saved|get written)\b"
)
#: the message asks how (a how-to, not a question about this run)
_HOW = re.compile(r"\bhow (?:do|can|would|should|could|to)\b|\bnext time\b|\bwhat should\b")
#: a line about a save or a checkpoint
_SAVE_LINE = re.compile(r"(?i)\b(?:sav(?:e|ed|ing)|checkpoint\w*|ckpt\w*|state_dict|torch\.save)\b")


def saved(c: Ctx, m: Match) -> Reply | None:
    """No: no line of this job shows a save, then its last logged step; None when a line mentions one
    (the phase and checkpoint answers say what it shows) or the message asks how to save."""
    if not SAVED_Q.search(m.text.lower()) or _HOW.search(m.text.lower()):
        return None
    if any(_SAVE_LINE.search(ln.text) for ln in answer_grounds.all_lines(c)):
        return None
    said = tx.NONE_SAVED
    shown = []
    last = max(
        (r for r in c.view.ranks.values() if r.last_step is not None),
        key=lambda r: r.last_step or 0,
        default=None,
    )
    if last is not None and last.last_step_line is not None:
        said += tx.LAST_STEP.format(
            step=last.last_step, line=f"{last.last_step_line.source}:{last.last_step_line.line}"
        )
        shown.append(last.last_step_line)
    return reply("phase", said, shown or c.view.key_line())


__all__ = ["SAVED_Q", "saved"]
