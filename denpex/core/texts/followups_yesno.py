"""Texts for yes/no checks of a figure or a time, changes asked after another ask, and a step the
reader states when asking what a rerun redoes."""

from __future__ import annotations

#: the claimed figure or time matches this job's fact
CLAIM_MATCHES = "Yes: {fact}."
#: the claimed figure or time is not this job's
CLAIM_DIFFERS = "No: {fact}, not {claimed}."
#: what to change, when the message also asked it
CHANGE_LEAD = "What to change before resubmitting: {step}"
#: the step the reader gave, with no save logged
REDO_NO_SAVE = (
    "You put it at step {said}{of}: no checkpoint save is logged in this job's logs, so a rerun starts "
    "from step 0 and redoes all {said} steps unless the script saved without logging it (look in its "
    "output directory); the logs' last step is {last} (rank {rank})."
)
#: the step the reader gave, with a save logged
REDO_SAVED = (
    "You put it at step {said}{of}: the last save logged is {name} ({save_ref}), so resuming from it "
    "redoes only the steps after that save, up to step {said}; the logs' last step is {last} (rank {rank})."
)
#: the step the reader gave, when the answer already says no save is logged
REDO_SHORT = "So from your step {said}{of}, a rerun redoes all {said} steps (the logs' last step is {last})."
