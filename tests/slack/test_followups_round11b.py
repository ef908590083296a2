"""Round 11b: an incident status update that lists what it needs ("ranks, step, owner, progress lost")
gets each part in this job's numbers, in one short paragraph; "is it fp16 overflow?" is checked against
the job's lines; a silent rank's traceback asked for is said to be absent, then its last line; and a
save the failure cut short with no earlier save logged means no completed checkpoint to resume from."""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # status updates: counts, step reached, time, progress lost and owner, each told
    (
        "gpu_oom",
        "incident update — world size, last step, and whose fault (us or the cluster)?",
        ["8 ranks", "2001", "training code", "rank 5"],
        ["Xid"],
    ),
    (
        "host_oom_kill",
        "status update: which node, step reached, owner",
        ["gpu-01", "2000", "not infra"],
        ["gpu-02"],
    ),
    (
        "checkpoint_oom",
        "sitrep: number of ranks, how far it got, what we lost",
        ["4 ranks", "checkpoint-6", "rank 1", "step 6"],
        ["gpu-01"],
    ),
    (
        "segfault",
        "for the status update: runtime, step reached, owner",
        ["step 1", "8.0 s", "owner"],
        [],
    ),
    (
        "xid",
        "IC update: gpu count, step, and owner",
        ["8 ranks", "2000", "infra", "gpu-02"],
        ["training code"],
    ),
    (
        "hang_before_collective",
        "status update: nodes, step reached, timeout",
        ["4 ranks", "step 3", "10 s"],
        [],
    ),
    # "is it fp16 overflow?": checked against the job's lines, alone or after the update's owner
    (
        "nan_loss",
        "for the incident update: owner? also could this be an fp16 overflow",
        ["training code", "no fp16 loss-scale or overflow line"],
        [],
    ),
    ("gpu_oom", "was this a loss scale overflow?", ["no fp16 loss-scale", "out-of-memory"], []),
    # a silent rank's traceback: none, said so, then its last line
    (
        "hang_before_collective",
        "can you paste the stack trace from rank 3",
        ["no traceback", "Starting training"],
        ["ValueError"],
    ),
    ("flight_recorder", "rank 2 traceback pls", ["no traceback", "rank 2"], []),
    # a cut save and no earlier one logged: no completed checkpoint to resume from
    (
        "fsdp_cpu_save",
        "do we have an older checkpoint to fall back to?",
        ["did not finish", "no earlier save", "step 50"],
        ["step 100"],
    ),
]
