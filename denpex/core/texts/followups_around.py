"""Texts of the answers about a rank's lines around an event and the steps it completed."""

from __future__ import annotations

BEFORE = "Right before {event} (`{anchor}`), rank {rank} printed (oldest first): {listed}."
AFTER = "Right after {event} (`{anchor}`, {at}), rank {rank} printed (oldest first): {listed}."
NOTHING_AFTER = "Rank {rank} printed nothing after {event} (`{anchor}`) in the lines kept."
NOTHING_BEFORE = "No line of rank {rank} before {event} (`{anchor}`) was kept."
LISTED = "`{text}` ({ref}{at})"
NOT_A_STEP = "Rank {rank} logs no step lines of its own. For the job as a whole: {said}"
STEPS_DONE = "{said} The steps up to that line completed; the next one did not finish."

# "ranks 1-3 died in barrier — a separate comm failure?": no, they waited on the rank that failed first
NOT_SEPARATE = "No separate failure to chase:"
COLLATERAL = (
    "No separate failure to chase: rank(s) {ranks} were collateral of rank {ini}: they {why}. Rank {ini} "
    "failed first ({ref}); "
    "when its process went, the collective the others sat in ended with an error of their own ({their})."
)
# "which error code did the socket return?": the code as the line prints it
CODE_IN_LINE = "The line prints `{code}` ({ref}): {meaning}"
CODE_MEANINGS = {
    "98": "errno 98 is EADDRINUSE, address already in use: another process held the port.",
    "99": "errno 99 is EADDRNOTAVAIL: the address to bind is not on this host.",
    "111": "errno 111 is ECONNREFUSED: nothing listened at that address.",
    "110": "errno 110 is ETIMEDOUT: the connection timed out.",
    "28": "errno 28 is ENOSPC: no space left on device.",
}
CODE_UNKNOWN = "the code as the system returned it."
# "confidence is only 0.46 — what would push you to another call?": the figure first
CONFIDENCE = "The confidence is {conf:.2f} ({pct}%) for {title}."
# "what would slurm show if this were preemption or OOM?": the states and lines each would leave
SLURM_OTHERS = (
    "Had Slurm preempted it, `sacct` would show State PREEMPTED and the log `*** JOB <id> ON <node> "
    "CANCELLED AT <time> DUE TO PREEMPTION ***`; had it run out of host memory under `--mem`, State "
    "OUT_OF_MEMORY and `slurmstepd: error: Detected 1 oom_kill event(s)` (the kernel's `Killed process` "
    "line in dmesg); a GPU OOM leaves State FAILED with exit code 1 and `torch.OutOfMemoryError` in the "
    "rank's own log. This job shows none of those: {this} ({ref})."
)
SLURM_THIS_TIMEOUT = "State TIMEOUT, from `{text}`"
SLURM_THIS = "its failing line is `{text}`"
