"""Words the verify command carries about itself (shown as a shell comment after it)."""

from __future__ import annotations

#: a verify that runs past the last step the job logged: from scratch it repeats every step before it
PAST_STEP = (
    "# runs past step {step}, the last one logged: resumed from the last checkpoint this is ~10 steps;"
    " from scratch it reruns all {until}"
)
#: joins it to a comment the entry's command already has
AND = "; "
