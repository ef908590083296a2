"""Texts of the answers to a cause challenged: a GPU out-of-memory error's step, its batch and the
event the asker puts forward instead (`knowledge.answer_challenged`)."""

STEP_BATCH = (
    "The step that failed printed its batch just before the error: `{text}` ({ref}); the memory a step "
    "needs grows with the tokens in its batch."
)
BEFORE_ERROR = (
    "That line is rank {rank}'s `{text}` ({ref}), logged before its error; the error itself was raised "
    "{where} ({eref}), in another call."
)

# a challenge that names another cause (`knowledge.answer_challenge_alt`): the evidence against it
NOT_KILLER = (
    "The kernel's OOM killer did not end rank {rank}: its kill is a SIGKILL (signal 9), and the launcher "
    "reported exit code {code} for rank {rank} ({ref}): the process raised its own out-of-memory error and "
    "exited. What would change my mind: a kernel OOM-kill line naming its pid in `dmesg -T` on {node}, "
    "or `sacct -j <jobid> -o JobID,State,MaxRSS,ReqMem` showing MaxRSS at the limit."
)
FLAKY_FILE = (
    "The write that failed was the checkpoint `{name}` ({ref}). What would change my mind: free space on "
    "that volume (`df -h {folder}`, `quota -s`), or NFS/I/O errors (`dmesg -T | grep -iE 'nfs|i/o error'`) "
    "at that time."
)
NOT_STEP = (
    "Not a training-step {what}: rank {rank}'s last line before it failed was the save, `{doing}` ({ref}), "
    "and it failed {fail} inside it: the traceback printed at the failure runs through `{frame}` "
    "({frame_ref}). A leak in the training steps would have hit during a step, with memory climbing over "
    "the steps before. What would change my mind: a per-step memory log "
    "(`torch.cuda.max_memory_allocated()`, `free -g`) climbing before the save, or the same failure "
    "in a run that does not save."
)
NOT_NODE = (
    "Not a node failure: Slurm prints its reason on the cancel line, and here it says {reason} ({ref}); a "
    "node that failed is logged `DUE TO NODE FAILURE` and the job's state is NODE_FAIL. Confirm with "
    "`sacct -j {job} -o JobID,State,Elapsed,Timelimit,NodeList`: State TIMEOUT with Elapsed equal to "
    "Timelimit settles it."
)
NO_RANK = (
    "No rank was at fault: the scheduler ended the job ({reason}, {ref}); none of the ranks failed on its "
    "own, they were all stopped by Slurm."
)
NOT_HANG_END = "Slurm cancelled it at {end} ({ref})."
OWN_ERROR = "Rank {rank}'s own process error: `{text}` ({ref}) — a local failure, not a peer's link."
STORE_NOT_NCCL = (
    "The TCPStore, not NCCL init: the bind failed in `{frame}` ({frame_ref}) while the launcher set up "
    "its rendezvous store, before any worker or NCCL communicator existed — {error} ({ref})."
)
