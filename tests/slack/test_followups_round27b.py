"""Round 27b: a rank's lines around an event, steps and spans from the last step, other failure kinds.

Why: "what was printed on rank 5 right before the OOM?", "the last line before rank 2's traceback",
"what did rank 5 print right after the Xid?" ask for the rank's few lines next to the event with their
file:line, including its other files (its stdout beside its stderr, its own error after the kernel's
Xid) and the job's last step line when the rank logs none; "did it print anything" for a rank whose
own log holds no error says so. "How many steps completed", "the last step logged and how long from
there to the teardown", "between the step 2 line and the failure, how long were the ranks stuck" get
the step line, both times and the wait's own timeout. "A separate comm failure?" for ranks that waited
on the failing rank, "which error code did the socket return", "confidence only 0.46 — what would
push you to X", "what would slurm show for preemption or OOM" are answered with this job's figures.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # lines right before / after an event on a rank
    ("gpu_oom", "what was printed on rank 5 right before the OOM?", ["16384", "2001", "rank5.log:207"], []),
    (
        "gpu_oom",
        "show me the lines rank 5 logged just before its traceback",
        ["16384", "rank5.log:207"],
        [],
    ),  # guard
    ("xid", "what did rank 5 print right after the Xid?", ["unspecified launch failure", "03:14:03"], []),
    ("xid", "anything logged by rank 5 following the xid in dmesg?", ["unspecified launch failure"], []),
    (
        "dataloader_worker_killed",
        "which pid got killed and what's the last line printed before rank 2's traceback?",
        ["22194", "step 1/10", "Starting training"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "what did rank 2 output right before the error?",
        ["Starting training", "stdout.log:2", "1.0193"],
        [],
    ),
    # a rank with no error of its own
    (
        "segfault",
        "what was rank 3 doing when it died — did it print anything?",
        ["stderr", "21:39:04"],
        ["py-spy"],
    ),
    (
        "segfault",
        "did rank 3 write anything before it segfaulted?",
        ["no error", "Starting training"],
        [],
    ),  # guard
    # steps completed, spans from the last step
    ("segfault", "how many training steps completed before the crash?", ["step 1/10", "21:39:04"], []),
    ("desync", "how many steps got done before it died?", ["step 2/10"], []),  # guard
    (
        "hang_before_collective",
        "what's the last training step logged and how long from there to the launcher teardown?",
        ["step 3", "21:43:47", "21:44:00"],
        [],
    ),
    (
        "desync",
        "between the step 2 log line and the failure, how long were the ranks stuck?",
        ["15 s", "21:36:04"],
        [],
    ),
    ("desync", "how long from the last step to the timeout?", ["21:36:04", "step 2"], []),  # guard
    # other failure kinds
    (
        "disk_full_save",
        "ranks 1-3 died in dist.barrier — is that a separate comm failure I should chase?",
        ["rank 0", "waited", "closed by peer"],
        [],
    ),
    (
        "disk_full_save",
        "the connection closed by peer on 1,2,3: a second problem?",
        ["rank 0", "collateral"],
        [],
    ),
    ("rendezvous_port_in_use", "which error code did the socket return?", ["-98", "EADDRINUSE"], []),
    ("rendezvous_port_in_use", "what errno did the bind give back?", ["98"], []),
    (
        "desync",
        "confidence is only 0.46 — what would push you to call it a hang or hardware problem instead of a "
        "desync?",
        ["0.46", "broadcast"],
        [],
    ),
    ("desync", "what would make you call this a plain watchdog timeout instead?", ["0.46", "watchdog"], []),
    (
        "time_limit",
        "what would slurm show if this were preemption or OOM instead?",
        ["PREEMPTED", "OUT_OF_MEMORY", "TIME LIMIT"],
        [],
    ),
    ("time_limit", "if it had been preempted, what would sacct say?", ["PREEMPTED", "TIMEOUT"], []),
]
