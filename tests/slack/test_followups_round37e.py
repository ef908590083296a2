"""Round 37e: asks that order the ranks by when each logged one named line — "which rank was slowest to
log 'Starting training', and at what time", "which rank was the last one to print its 'Initializing
distributed' line", "which rank logged its step 40 line last"; and the count of ranks that timed out
naming the one rank that did not ("Rank 2 logged no timeout", not "Rank(s) 2"); which rank had the
lowest (highest) figure of a key at a named step ("lowest tokens/s at step 2000", "compare mem_alloc at
step 2000"), from each rank's own line of that step; whose own log holds a line the message quotes
("who printed `Connection closed by peer [127.0.0.1]:41668`?").

Why: the answer said which rank failed first (or quoted the culprit's last line), not the order of the
named line; each rank's own first line with those words (or that step) is compared by its printed
stamp, and the earliest or latest rank is named with its time and file:line, then the others' times.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "checkpoint_oom",
        "which rank was slowest to log 'Starting training', and at what time",
        ["rank 3|rank3", "22,323|22.323"],
        [],
    ),
    ("checkpoint_oom", "which rank was first to print 'Starting training'?", ["rank 0|rank0", "21,958"], []),
    (
        "desync",
        "which rank was the last one to print its 'Initializing distributed' line",
        ["rank 1|rank1", "55,155|55.155"],
        [],
    ),
    ("desync", "what rank was last to log Initializing distributed", ["rank 1|rank1", "55,155"], []),
    (
        "disk_full_save",
        "which rank was first to print 'Starting training' and when",
        ["rank 1|rank1", "51,953|51.953"],
        [],
    ),
    (
        "disk_full_save",
        "which rank was the slowest to log starting training?",
        ["rank 2|rank2", "51,964"],
        [],
    ),
    (
        "flight_recorder",
        "which rank logged its step 40 line last, and at what time",
        ["rank 3|rank3", "03:00:03"],
        [],
    ),
    ("flight_recorder", "which rank printed step 40 first", ["rank 0|rank0", "03:00:00"], []),
    ("nan_loss", "which rank was last to print 'Starting training'", ["rank 2|rank2", "34,112|34.112"], []),
    (
        "segfault",
        "which rank was the last to print 'Initializing distributed'",
        ["rank 1|rank1", "56,004|56.004"],
        [],
    ),
    (
        "segfault",
        "which rank was earliest to log its Initializing distributed line",
        ["rank 0|rank0", "55,984"],
        [],
    ),
    (
        "flight_recorder",
        "how many ranks hit the watchdog timeout? which one is missing from that list",
        ["3|three", "rank 2|rank2"],
        [],
    ),
    (
        "host_oom_kill",
        "how many ranks timed out vs how many got oom killed (which one)",
        ["3|three", "rank 2|rank2"],
        [],
    ),
    ("xid", "which rank had the lowest tokens/s at step 2000", ["rank 4|rank4", "3060"], []),
    ("xid", "what rank had the highest mem_alloc on step 2000?", ["rank 5|rank5", "69.4GiB"], []),
    (
        "gpu_oom",
        "Was rank 5 already using more GPU memory than the other ranks before it OOMed, yes/no? Compare"
        " mem_alloc at step 2000.",
        ["69.4GiB|69.4", "61.0GiB|61.3GiB|60.8GiB|61.5GiB"],
        [],
    ),
    ("gpu_oom", "which rank had the most mem_alloc at step 2000", ["rank 5|rank5", "61.5GiB"], []),
    (
        "checkpoint_oom",
        "who printed `Connection closed by peer [127.0.0.1]:41668`? thats not the one that ran out of"
        " memory right",
        ["rank 0|rank0"],
        [],
    ),
    ("nan_loss", "`Connection closed by peer [127.0.0.1]:18345` who's that from", ["rank 2|rank2"], []),
    (
        "checkpoint_oom",
        "Connection closed by peer [127.0.0.1]:41668 - who printed that one?",
        ["rank 0|rank0"],
        [],
    ),
]
