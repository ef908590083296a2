"""Follow-up sentences for yes/no answers about the job's limits and its hardware, and for a guess
put against the user's code.

"What was the time limit set to?", "reboot anything?", "network or our code?": each says its verdict
first (not logged, no need, your code), then the job's facts. `knowledge.answer_time_limit`,
`knowledge.answer_node` and `knowledge.answer_checks` fill them in. Kept apart from `followups.py`,
which is full.
"""

from __future__ import annotations

LIMIT_AT_LEAST = "The limit was at least that long: the scheduler ended the job when it ran out."
LIMIT_NOT_REACHED = (
    "The time limit is not in the logs (`sacct -j <jobid> -o JobID,Elapsed,Timelimit` shows it), and it is "
    "not what ended this job: rank {rank} failed first, with {what}."
)
LIMIT_MORE = "How much longer it needs depends on the steps still to run:"
NOT_HARDWARE = (
    "No sign of hardware: not a hardware problem — this job failed with {what}, and no Xid (GPU fault) "
    "is in its evidence."
)
NO_HW_ACTION = "No need to {act} anything: nothing in this job's evidence points at {node}'s hardware."
HW_ACTION_UNSURE = (
    "Not on this evidence: nothing in it points at {node}'s hardware yet; {act} only if its kernel log "
    "shows an Xid (the check below)."
)
XID_ACTION = "Yes: {step}"
CODE_NOT_NETWORK = "Your code, not the network or the hardware. {why}"
