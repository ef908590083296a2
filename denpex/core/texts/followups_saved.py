"""Texts for whether a checkpoint was saved (knowledge/answer_saved.py)."""

from __future__ import annotations

NONE_SAVED = (
    "No checkpoint save shows in the logs: no line of this job mentions saving or a checkpoint, so"
    " nothing says one was written (check the output directory to be sure)."
)
LAST_STEP = " The last step it logged was {step} ({line}); work after the last save you have on disk is lost."
