"""Round 12b: how each rank's log ended, quoted and per rank (a senior engineer verifying the verdict).

Why: "last step on each rank and when", "quote rank 5's own error", "paste its last seconds", "quote
the slurm line and the gap", "time to the last rank dying", "same error everywhere, so why one
cause?", "the native backtrace" each need the ranks' own lines and times, not the verdict again.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("xid", "paste rank 5's own error message it logged, verbatim", ["unspecified launch failure"], []),
    (
        "gpu_oom",
        "all ranks log the same timeout error so how is rank 5 the cause?",
        ["out-of-memory error while training"],
        [],
    ),
    ("time_limit", "each rank's final logged step, and the time?", ["150", "03:10:00"], []),
    ("zero3_save", "for all ranks: last step line before it started saving?", ["100", "03:06:40"], []),
    (
        "time_limit",
        "quote the scheduler line, and how long between the last step and the kill?",
        ["DUE TO TIME LIMIT", "100 s"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "how many seconds between the first failure and the last rank dying?",
        ["about 4 s", "rank 0"],
        [],
    ),
    ("gpu_oom", "dump rank 5's final lines before it died", ["16384", "hub mirror"], []),
    (
        "desync",
        "both ranks 0 and 3 show the identical error — how can rank 3 be the cause?",
        ["broadcast", "all_reduce"],
        [],
    ),
    (
        "segfault",
        "is there a C++ stack trace for the crashed rank anywhere?",
        ["no native backtrace", "gdb"],
        [],
    ),
    # an entry's first sentence is whole: the dot of "e.g." does not end it
    ("segfault", "why did rank 3 fail?", ["without the GIL"], ["(e.g. It ended"]),
]
