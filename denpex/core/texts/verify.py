"""Words the verify command carries about itself (shown as a shell comment after it)."""

from __future__ import annotations

#: a verify that runs past the last step the job logged: from scratch it repeats every step before it
#: (whether the job saved a checkpoint to resume from is not known here: the note does not assume one)
PAST_STEP = (
    "# runs past step {step}, the last one logged: {until} steps from scratch,"
    " fewer only if the script resumes from a checkpoint"
)
#: joins it to a comment the entry's command already has
AND = "; "
