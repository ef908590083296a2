"""Round 28a: questions about the summary's own wording, answered with this job's facts.

Why: "why is the confidence only 0.63 for a clear SIGSEGV?", "why 'at or after' and not an exact
time?", "the victims' ≥ time is earlier than the cause's?", "what does 'Also possible: X' mean here,
why wasn't it picked?", "how does it tie the OOM kill to rank 2?", "the Verify command: what should I
expect?", "why no node for rank 0?". The reader looks at the summary and asks why it says what it
says: the answer quotes the figure (the confidence, the runner-up's score, the borrowed time) and what
in this job makes it so (no error of its own, no native stack, no kernel log, no hostname).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the confidence: the figure, the runner-up, what the logs lack
    (
        "segfault",
        "how come it's only 0.63 confident when the SIGSEGV is right there?",
        ["0.63", "no native stack"],
        [],
    ),
    (
        "hang_before_collective",
        "why so low a confidence on this one, 0.36?",
        ["0.36", "never reported an error"],
        [],
    ),
    (
        "desync",
        "it names the collective on every rank, so why is the confidence just 0.46?",
        ["0.46", "Watchdog"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "0.93 confidence seems high when the missing evidence"
        " lists stuff — what's missing and why still so sure?",
        ["0.93", "kernel log", "0.07"],
        [],
    ),
    # 'at or after': a borrowed lower bound
    (
        "checkpoint_oom",
        "why 'at or after' 21:38:30 for rank 1 and not the exact time it died?",
        ["has no time of its own", "borrow"],
        [],
    ),
    (
        "nan_loss",
        "ranks 0,2 show ≥21:36:34.102 but rank 1 at or after 21:36:34.184"
        " — how can the victims come before the cause?",
        ["34.102", "34.184", "lower bound"],
        [],
    ),
    # 'Also possible': its score, why it lost, what tells them apart
    (
        "checkpoint_oom",
        "why wasn't the fsdp-full-state-dict-cpu-oom under 'Also possible' picked instead?",
        # it is the verdict since the tenth session (0.74; it was the 0.57 runner-up before)
        ["0.74", "checkpoint-cpu-alloc-oom", "DefaultCPUAllocator"],
        [],
    ),
    (
        "disk_full_save",
        "'Also possible: filesystem-io-error', what does that"
        " mean for me, and how do I tell it from a full disk?",
        ["df -h", "Read-Only", "0.32"],
        [],
    ),
    (
        "xid",
        "why is cuda-illegal-memory-access listed as also possible, and why did it rank lower?",
        ["Launch Failure", "0.24", "score 2.0"],
        [],
    ),
    (
        "host_oom_kill",
        "of the two 'Also possible' entries, dataloader workers"
        " or dataset-in-RAM, which fits these logs better?",
        # dataset-in-RAM is the verdict since the in-memory index line counts (0.60 as an alternative before)
        ["0.75", "1.2B samples", "Dataset Into RAM"],
        [],
    ),
    # a kill tied to a rank: the pid and the launcher's local_rank line
    (
        "host_oom_kill",
        "how did you link the kernel's oom kill to rank 2?",
        ["51234", "local_rank 2"],
        [],
    ),
    # the Verify command: what to expect
    (
        "time_limit",
        "what should I expect to see from the verify command's Elapsed vs Timelimit?",
        ["TIMEOUT", "Elapsed equal to Timelimit"],
        [],
    ),
    (
        "disk_full_save",
        "the verify command runs df -h and df -i, what should I expect in the output?",
        ["Use%", "inodes"],
        [],
    ),
    (
        "zero3_save",
        "what does the zero_to_fp32.py part of verify have to do with this failure?",
        ["stage3_gather_16bit_weights_on_model_save", "offline"],
        [],
    ),
    # no node named
    (
        "zero3_save",
        "how come the summary doesn't name a host for rank 0?",
        ["don't name the host", "NodeList"],
        [],
    ),
    # a verdict without its usual words: the lines it was read from
    (
        "disk_full_save",
        "I can't find ENOSPC in any log, so why does it say the disk was full?",
        ["unexpected pos 1088", "iostream error"],
        [],
    ),
]
