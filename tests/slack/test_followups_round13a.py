"""Round 13a: the facts a post-incident review and an on-call engineer ask for, from this job's lines.

Why: "how many GPU-hours did they burn waiting?", "is there anything in rank 2's stderr?", "what were
the others doing then?", "the whole loss curve", "is rank 0 healthy?", "what does exitcode -15 mean and
which procs?", "JOB vs STEP line?", "why do the others all show watchdog timeouts?", "where does it say
ENOMEM?", "earlier Xids on that node?", "did this even use NCCL?" each ask one fact of the job (a wait
times the ranks that waited, a rank's own files, the launcher's summary, the kept kernel log, the
backend's own line), not the verdict told again.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # GPU time: the collateral ranks' wait times the ranks that waited, and the whole run
    ("zero3_save", "gpu-hours burned while the other ranks waited?", ["70 GPU-min", "1.17 GPU-hours"], []),
    ("fsdp_cpu_save", "how many gpu hours did this run cost in total?", ["8 ranks", "0.75 GPU-hours"], []),
    # a silent rank's own output: what it wrote, and that no error of it was kept
    ("flight_recorder", "did rank 2 write anything to stderr?", ["printed no error", "step 40/100"], []),
    # what the other ranks were doing: their own ending (the launcher's SIGTERM, their error)
    (
        "nan_loss",
        "what were the other ranks doing at that point?",
        ["stopped it with SIGTERM", "Connection closed by peer"],
        [],
    ),
    # the loss curve asked for whole: every kept value, not the last five
    ("time_limit", "paste the whole loss curve you have", ["2.4472", "2.4400"], []),
    # a named rank's health: collateral, stopped by the launcher, not sick
    ("segfault", "is rank 0 healthy?", ["collateral", "exitcode -15"], []),
    # an exit code's meaning and whose processes exited with it
    ("dataloader_worker_killed", "what does exitcode -15 mean? which procs got it", ["22026", "22029"], []),
    # Slurm's JOB and STEP lines: one event, printed per level
    ("time_limit", "is the STEP 991.0 line a second failure or the same one?", ["job step", "one event"], []),
    # why the others show watchdog errors: the timeout they waited out for the failed rank
    ("zero3_save", "why do the other ranks all show watchdog timeouts?", ["Timeout(ms)=600000"], []),
    # where the logs say what the verdict claims: the named words looked for, the lines it came from
    (
        "checkpoint_oom",
        "where does it say the host ran out of memory? i don't see ENOMEM anywhere",
        ["is in console.log:84", "Cannot allocate memory"],
        [],
    ),
    ("xid", "has gpu-02 thrown xids before this one?", ["No earlier Xid", "node-gpu-02.dmesg:1"], []),
    # the backend a run used, asked whether NCCL was in it at all
    ("hang_before_collective", "was nccl in use at all?", ["gloo"], []),
    ("checkpoint_oom", "was nccl used at all in this one?", ["gloo"], []),
]
