"""Texts of the answers that bring the figure an ask names (`knowledge.answer_absent` and its kin).

Kept apart from the bigger `followups_*` modules so each sentence sits beside the others of its kind:
a rank whose log lacks the symptom asked about, and the facts a ticket or a check asks for.
"""

# "rank0 log dont show any nan": that rank only failed after the first, with another error
NOT_ITS_LOG = (
    "Rank {rank}'s log is not where it started: rank {rank} only failed after rank {ini}, with {what}. "
    "Rank {ini} failed first, with {ini_what} ({ref})."
)

# the backend asked on a gloo job whose rank table says `nccl_*`: the tag names a kind, not the backend
BACKEND_TAG = (
    "The `{category}` tag on rank{many} {ranks} only names the kind of failure (an error in a collective, "
    "on whichever backend), so it does not change who started it: rank {ini}, with {what} ({ref})."
)

# "last step logged before the crash, and when?": that step's line, then the first failure after it
FIRST_FAIL_AFTER = "Rank {rank} failed first{at}, {gap} after that step line."

# the grace between the scheduler's SIGTERM and its SIGKILL (Slurm's KillWait), from srun's own line
GRACE_LOGGED = (
    "The grace period was {secs} seconds: srun waited up to {secs} s for the step to finish after the "
    "signal ({ref}), then kills what is left with SIGKILL (Slurm's `KillWait`)."
)
GRACE_UNLOGGED = (
    "The grace period is not in the logs (no srun `Waiting up to N seconds` line): it is Slurm's "
    "`KillWait` between SIGTERM and SIGKILL, shown by `scontrol show config | grep KillWait`."
)

# the Xid's own time, asked beside the versions for a vendor ticket
XID_AT = "The Xid {code} was logged at {at}{node} ({ref})."
XID_NONE = "No Xid line is in the logs Denpex read (no `NVRM: Xid` in a kernel log), so there is no Xid time."
