"""Round 34z: how long the others waited when the rank that started it printed nothing until it was
stopped — hang_before_collective, where rank 3 never reached the collective, ranks 0-2 hit gloo's own
10 s timeout at 21:43:47 and rank 3's first line (torchrun's SIGTERM) is 13 s after that.

Why: the wait used to be counted from rank 3's line to the others' failure, a window that ran
backwards ("from 21:44:00 … sat blocked until 21:43:47: 13 s"), and the gloo timeout was quoted as the
NCCL watchdog's `Timeout(ms)=10000`, a line no log printed.

And host_oom_kill, now diagnosed as the dataset held in RAM (rank 2's last line builds an in-memory
index of 1.2B samples): asked to confirm the kernel's OOM killer did it, the answer gives the kernel's
record on the node (the fix's own check measures RSS, which confirms nothing about the kill); the fix
keeps the killed pid and names DataLoader workers' copies.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "hang_before_collective",
        "how long did the other ranks wait before the timeout?",
        ["21:43:37", "Timed out waiting 10000ms", "21:44:00"],
        ["Timeout(ms)=10000", "sat blocked until"],
    ),
    (
        "hang_before_collective",
        "how long were ranks 0-2 stuck waiting for rank 3?",
        ["21:43:37|10 s", "printed nothing before"],
        ["Timeout(ms)=10000", "sat blocked until"],
    ),
    (
        "hang_before_collective",
        "how long did they sit idle before everything came down?",
        ["21:43:47", "10 s|10000ms"],
        ["Timeout(ms)=10000", "sat blocked until"],
    ),
    (
        "host_oom_kill",
        "one command to confirm the OOM killer got it",
        ["dmesg", "gpu-01", "killed process"],
        [],
    ),
    (
        "host_oom_kill",
        "how do i prove it was really host memory and not something else?",
        ["dmesg", "gpu-01"],
        [],
    ),
    (
        "host_oom_kill",
        "what should I change?",
        ["pid 51234", "61.25 GiB", "num_workers"],
        [],
    ),
]
