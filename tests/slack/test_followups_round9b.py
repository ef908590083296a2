"""Round 9b: a figure quoted from the thread gets the line and field it comes from ("where does the
10 min come from?"); the other ranks get their own errors quoted, not the first rank's cause again; a
collective's `#N` is its sequence number, not a step; a doubted rank gets the pid that ties it; a
setting's value in this job; whether a message is literally logged (a path is not a message); which
number to change; and what a restart can resume from when the only save logged was cut short."""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # a figure's origin: the watchdog's Timeout(ms), gloo's wait, a collateral rank's time, the fix's option
    ("gpu_oom", "where did the 10 min in the watchdog lines come from?", ["Timeout(ms)=600000", "600 s"], []),
    ("desync", "where does the 15 s timeout come from", ["Timed out waiting 15000ms", "timeout="], []),
    ("zero3_save", "where does the 600012 come from?", ["ran for 600012", "Timeout(ms)=600000"], []),
    (
        "gpu_oom",
        "where does 03:24:02 come from? rank 5 died at 03:14",
        ["600 s", "Timeout(ms)=600000", "rank 5"],
        [],
    ),
    ("host_oom_kill", "where does the 03:24:06 timestamp come from?", ["600 s", "Timeout(ms)=600000"], []),
    (
        "time_limit",
        "where does the USR1@600 in the fix come from?",
        ["600 s", "before the time limit"],
        ["is in job_991"],
    ),
    # the other ranks' own errors, quoted, and that they are not the first rank's error
    (
        "disk_full_save",
        "what about ranks 1 to 3, did they hit the disk too?",
        ["Connection closed by peer", "rank 0"],
        [],
    ),
    ("xid", "and the rest of the ranks?", ["Watchdog caught collective operation timeout", "rank 5"], []),
    (
        "segfault",
        "ok and what about 0 and 2, segfault too?",
        ["Connection reset by peer", "rank 3"],
        ["ranks 0,2 logged their own error, `segmentation"],
    ),
    ("host_oom_kill", "did ranks 0 and 1 also get oom killed?", ["not the same error", "Watchdog"], []),
    # a collective's number is its sequence number, not a step
    (
        "flight_recorder",
        "the #4 in 'its last collective there was #4', is that step 4?",
        ["sequence number", "not a training step"],
        [],
    ),
    # the rank doubted: the OOM killer's pid and the launcher's line that maps it
    (
        "fsdp_cpu_save",
        "the stack trace is on rank 0 though — why is the failing rank 2?",
        ["3312", "local_rank: 2"],
        [],
    ),
    # a setting's value in this job, from its lines
    ("fsdp_cpu_save", "rank0_only — was that set in this run?", ["False", "FullStateDictConfig"], []),
    (
        "zero3_save",
        "was stage3_gather_16bit_weights_on_model_save even enabled here?",
        ["true", "_zero3_consolidated_16bit_state_dict"],
        [],
    ),
    # a message literally in the logs: a path holding the words is not the message
    (
        "disk_full_save",
        "does any log say disk_full anywhere?",
        ["not in any line", "basic_ios"],
        ["Yes:"],
    ),
    (
        "checkpoint_oom",
        "was out of memory actually logged by rank 1?",
        ["not in any line", "can't allocate"],
        [],
    ),
    # which number to change: the failing step's batch shape
    ("gpu_oom", "which setting should I lower for the rerun?", ["16384"], []),
    # what a restart resumes from: the cut save is the only one logged
    ("disk_full_save", "which step should we resume from?", ["checkpoint-4", "partial", "scratch"], []),
    (
        "checkpoint_oom",
        "is checkpoint-6.pt any good?",
        ["partial", "scratch"],
        ["resume from the one before"],
    ),
    ("time_limit", "did the job save any checkpoint at all?", ["no checkpoint"], []),
]
