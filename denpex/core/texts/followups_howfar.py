"""Texts of the progress and proof answers: how far a job got and how fast, what the failing step's
own line logged, the failed write's error text, the scheduler's kill line, a silent rank's activity."""

from __future__ import annotations

#: the furthest step line reports that step's failure: the one before it was the last to finish
HOW_FAR_FAILED = "That line reports step {step} failing, so step {done} was the last to finish."
HOW_FAR = "It got as far as step {step}{of}: the last step line any rank logged (rank {rank}, {ref}{at})."
HOW_FAR_OF = " of {total} ({step}/{total})"
NO_BATCH_LINE = (
    "No line of rank {rank} describes the batch of the step it failed in (its size, sequence length, "
    "samples): the logs don't show what was different about that step."
)
STEP_DIFF = "What the logs show about the failing step itself: {batch}"
ERROR_TEXT = "Rank {rank}'s own error text, as printed:"
ERROR_LINE = "`{text}` ({ref})"
ERRNO_ABSENT = "None of these lines says `{token}`: the printed error text does not name an errno."
ERRNO_PRESENT = "The text does say `{token}`."
KILL_LINE = "The scheduler's own line ({ref}): `{text}`. It is Slurm's line, not a rank's error: {why}"
KILL_WHY_NO_RANK = "no rank logged an error of its own before it, so nothing crashed first."
KILL_WHY_RANK = "rank {rank} had already failed on its own{at} ({ref}), before this line."
SILENT_DOING = (
    "The logs don't show what rank {rank} was doing inside its code: it printed no stack or traceback "
    "of its own, so a Python loop, blocked I/O or a deadlock cannot be told apart from these lines; "
    "only its last line and when it went quiet are known."
)
