"""Round 12a: "what does <a phrase of the summary> mean here?" from someone new to the team.

The answer says what the words mean in plain terms and what they mean for THIS job (whose fault, which
rank, when), in one or two sentences with the job's facts, not the glossary line alone.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "xid",
        "newbie q: 'fallen off the bus' -- what does that even mean, did our training script do it?",
        ["not your code", "Rank 5", "0000:3b:00"],
        [],
    ),
    (
        "zero3_save",
        "can someone explain what a zero-3 checkpoint save means for this run? it only blew up when saving",
        ["saving", "Rank 0", "full copy"],
        [],
    ),
    (
        "flight_recorder",
        "so what's a flight recorder, and what does it mean for us?",
        ["ring buffer", "rank 2", "all_reduce #5"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "what does 'System Memory OOM' mean here? gpu memory looked ok to me",
        ["RAM", "not the GPUs", "239.60 GiB"],
        [],
    ),
    (
        "checkpoint_oom",
        "what does 'Host RAM Exhausted' in the title mean? our gpus weren't full",
        ["RAM", "not the GPUs", "Rank 1"],
        [],
    ),
    (
        "time_limit",
        "im new, what does 'time limit' mean for our job, was something actually broken?",
        ["Nothing broke", "job 991", "not a crash"],
        [],
    ),
    (
        "desync",
        "what does hang mean in this case? nobody errored first",
        ["never reached", "Rank 3"],
        [],
    ),
    (
        "hang_before_collective",
        "whats a hang exactly, in our run? no rank threw anything",
        ["stuck", "Rank 3", "watchdog"],
        [],
    ),
    (
        "segfault",
        "what does SIGSEGV mean for us and why is there no python traceback?",
        ["native code", "C/C++", "Rank 3"],
        ["Rank 3 started it"],
    ),
    (
        "nan_loss",
        "what does the nan in the loss mean for us, new to training",
        ["learning rate", "clipping", "Rank 1"],
        [],
    ),
]
