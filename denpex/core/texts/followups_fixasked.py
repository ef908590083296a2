"""Texts of the answers to a fix's own setting, resume point and rerun length
(knowledge/answer_fix_asked.py): kept apart so their wording is reviewed in one place."""

from __future__ import annotations

SETTING = "From this job's fix: {step}"
SETTING_LINE = "The line to use: `{line}`."
RESUME = "Checkpoint to resume from: {step}"
REPRO = (
    "It failed at step {step} of the run (the last step line logged, {ref}), so a short run of "
    "{until} steps reproduces it: `{cmd}`."
)
REPRO_NOCMD = (
    "It failed at step {step} of the run (the last step line logged, {ref}): a run of {until} steps "
    "gets past that point."
)
