"""Texts of the post-incident review's figures ("how many GPU-hours did they burn waiting?").

Kept apart from `followups.py`: each sentence is filled with this job's times and rank counts by
`knowledge.answer_cost`, and says the assumption it rests on (one GPU per rank) once.
"""

from __future__ import annotations

#: the collateral ranks' wait for the failed rank, as GPU time
WAITED = (
    "The {n} collateral rank(s) ({ranks}) sat waiting {wait} each{span} before giving up: {n} × {wait_min} ≈ "
    "{gpu_min:.0f} GPU-min, about {gpu_h:.2f} GPU-hours (one GPU per rank)."
)
#: from the failed rank's failure to the others' watchdog, when both are logged
WAITED_SPAN = " (from rank {ini}'s failure{ini_at} to their timeout{coll_at})"
#: how far the run had got, from its last progress line ("step 2000/6000"), beside the GPU time
PROGRESS = (
    "The last progress line logged is step {step}/{total} (rank {rank}, {ref}): what that GPU time bought."
)
#: the whole run as GPU time: ranks × first to last log line
RAN = (
    "The whole run: {n} ranks × {span} ({start} to {end}, first to last log line) ≈ {gpu_min:.0f} "
    "GPU-min, about {gpu_h:.2f} GPU-hours (one GPU per rank)."
)

#: a silent rank's own output: what it wrote, and that none of it is an error
OWN_OUTPUT = (
    "Rank {rank} printed no error at all: its only saved lines are {count} line(s) of {where}, the last "
    "at {at} ({ref}): `{text}`."
)
#: no stderr output of the rank was kept, while the others' stderr holds their tracebacks
STALLED_TAIL = ": it stalled or died without a word."
NO_STDERR = (
    "Nothing from rank {rank}'s stderr is in the logs — no traceback, no error — while rank(s) {others} "
    "each left a stderr log with their traceback ({ref})" + STALLED_TAIL
)
#: the rank that started it wrote no error: a signal ended it, which the launcher (or kernel) reported
DIED_ON_SIGNAL = (
    "It did not stall: it was ended by a signal ({ref}: `{text}`), which leaves no Python traceback."
)
NATIVE_HOW_TO = (
    "To get a stack next time: `PYTHONFAULTHANDLER=1` (faulthandler prints the Python stack at the crash) "
    "and core dumps (`ulimit -c unlimited`, then `gdb $(which python) core` and `bt` for the native frames)."
)
#: no stderr of any rank was kept: the rank's error lines would be in its combined log
NO_ERROR_LINES = "None of rank {rank}'s lines is an error or a traceback: it went silent without a word."

#: where the other ranks were when they failed, from their tracebacks
IN_CALLS = "From their tracebacks: {rows}."

#: Slurm's JOB and STEP lines told apart: one event, printed once for the allocation, once per step
JOB_AND_STEP = (
    "Both are Slurm's, for one event: `JOB {job}` is the whole job (its allocation and batch script), "
    "`STEP {step}` is a job step inside it — a set of processes `srun` launched, numbered {job}.0, "
    "{job}.1, … in launch order. Both say {what} on {node} at {at} ({refs}): when the job is "
    "ended, Slurm ends every step still running in it, so each level prints its own line."
)

#: "where does it say X?": the words the reader looked for, found or not in any kept line
SAID_NOWHERE = "Nowhere in those words: {names} is not printed in any line Denpex kept."
SAID_HERE = "{name} is in {ref}: `{text}`."
#: what the verdict was read from instead: the failing rank's lines (its own, or the kernel's about it)
READ_FROM = "The verdict ({what}) on rank {rank} is read from: {quotes}."
#: nothing the reader named can be looked for: what the logs show is where the verdict is inferred from
READ_INFERRED = (
    "The logs do not print it as such: the verdict ({what}) on rank {rank} is inferred from: {quotes}."
)
#: the state the verdict infers is not in the logs: the command that shows it directly
SEE_IT = "To check it yourself: `{code}`."
#: an errno named by the reader, with the message a line would print for it
ERRNO_NAMED = "`{name}` (\u201c{message}\u201d)"
#: a config key named by the reader
KEY_NAMED = "`{name}`"

#: how an Xid is tied to a rank: by the GPU's PCI bus id on that node, not by the pid
XID_OWNER = (
    "The Xid names a GPU by its PCI bus id, not a rank: `PCI:{pci}` on {node} ({ref}). Rank {rank} is the "
    "rank on {node} whose GPU has that bus id (NCCL printed each rank's bus id at start-up){twin}."
)
XID_TWIN = "; rank(s) {ranks} have {pci} too, but on another node"
XID_OWN_ERROR = "Its own log agrees: rank {rank} logged `{text}` at {at} ({ref}), {gap} the Xid."
XID_PID = (
    "The pid ({pid}) is the process as the kernel saw it; no other kept line prints {pid}, so the pid cannot "
    "tie it to rank {rank} either way."
)
XID_PID_FOUND = "The pid {pid} is also in {ref}: `{text}`."
#: Xids in the node's kernel log before the failure's
XID_ONLY = (
    "No earlier Xid: the only Xid in {node}'s kernel log is this one ({ref}), and that log is kept from its "
    "first line ({first})."
)
XID_ONLY_PART = (
    "No earlier Xid in the lines kept from {node}'s kernel log: this one ({ref}) is the only Xid in them "
    "(they start at {first}, so an earlier one may have been cut)."
)
XID_EARLIER = "Yes: {node}'s kernel log has {n} earlier Xid line(s): {rows}."
