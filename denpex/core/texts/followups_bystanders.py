"""Follow-up sentences about the ranks around the one that started a failure: what the others were
doing (waiting, not failing the same way), what a named rank printed right before it died, where the
launcher itself failed, what evidence is missing (used by `knowledge.answer_bystanders`).

Kept apart so the answer module holds no user-facing wording; each is a format string filled with this
job's facts (rank numbers, quoted lines with file:line, times).
"""

from __future__ import annotations

#: the others' own words and times against the initiating rank's: why they are collateral
OTHERS_WAITED = (
    "Rank(s) {ranks} did not fail the same way, they were waiting on rank {ini}: each {what}; their own "
    "line is `{quote}` ({ref}{at})."
)
#: the initiating rank's own failure, against which the others' times are read
INI_FIRST = "Rank {ini}'s own failure came first ({ref}{at}); the others only failed once it was gone."

#: what a named rank printed right before it died: its last own lines, then its failure line
BEFORE_LINES = "Right before it died, rank {rank} printed: {quotes}."
BEFORE_QUOTE = "`{words}` ({ref}{at})"
BEFORE_FAILED = "Then it failed with `{words}` ({ref}{at})."
#: a collateral rank's saved lines keep no frame of the user's code: the shared phase's code, from the
#: initiating rank's traceback
SAME_PHASE = (
    "Rank {rank} was in the same phase as rank {ini} ({phase}); rank {ini}'s traceback shows that code: "
    "`{func}` ({path} line {number})."
)

#: a launcher failure: where in torchrun it failed, the innermost frame of its traceback
LAUNCHER_WHERE = (
    "It failed inside torchrun itself, not in your training code: the launcher's traceback ends in "
    "`{func}` ({path} line {number}, {ref}): `{code}`, before any worker (your code) started."
)

#: no kernel log was given: the hardware evidence that is missing
NO_KERNEL_LOG = (
    "No hardware evidence in these logs: no kernel log (dmesg) from {nodes} was provided and no line "
    "shows an Xid or GPU error. What is missing is the kernel log around {at}: run "
    "`dmesg -T | grep -iE 'xid|nvrm|oom|segfault'` on {nodes}, and `nvidia-smi -q -d ECC,PAGE_RETIREMENT`."
)

#: a kill signal with no kernel log: the kill is shown, its reason (the OOM killer) is not confirmed
KILL_UNCONFIRMED = (
    "The line says only that it was killed (`{words}`, {ref}): SIGKILL, signal 9, which the OOM killer "
    "sends; a segfault would say SIGSEGV (signal 11). No kernel log (dmesg) is in these logs, so the OOM "
    "killer is not confirmed: check `dmesg -T | grep -i 'killed process'` on {nodes}."
)
#: the deciding line: the initiating rank's last own line before its failure
DECIDING_LINE = "The deciding line is rank {rank}'s last own line before it failed: `{words}` ({ref}{at})."
