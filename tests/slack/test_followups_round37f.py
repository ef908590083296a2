"""Round 37f: standup / status-line asks ("standup: steps done out of how many, which rank blew up",
"status line pls - steps done, how many ranks, which rank died and why") and "start and end times?".

Why: a standup line names the rank that failed first and the step reached, but only "status update:"
opened the status answer, and "which rank blew up" / "cause in a few words" counted as no part of it,
so the ask went to the rank count or the first-failure answer, without the step of its total or the
error; the step was said as a bare number ("Step reached: 100"). "start and end times" / "start time
and death time?" matched no intent (the help text), and a job whose first rank went silent was told
the others' failure time without the logs' own start and end. Now a standup is a status update (the
rank, its own error line quoted, the step of the total), and start-and-end asks get the logs' span.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "dataloader_worker_killed",
        "status line pls - steps done, how many ranks, which rank died and why",
        ["1/10|step 1", "rank 2|rank2", "DataLoader worker|dataloader worker"],
        [],
    ),
    (
        "gpu_oom",
        "standup: steps done out of how many, which rank blew up",
        ["2001|2000", "6000", "rank 5|rank5"],
        [],
    ),
    ("gpu_oom", "stand-up update - which rank died, step reached?", ["2001", "6000", "rank 5|rank5"], []),
    (
        "nan_loss",
        "standup line: step reached, which rank, what happened",
        ["6/10|step 6", "rank 1|rank1", "nan|NaN"],
        [],
    ),
    ("dataloader_worker_killed", "standup - which rank, step reached?", ["step 1 of 10|1/10", "rank 2"], []),
    (
        "zero3_save",
        "standup: step reached, which rank, cause in a few words",
        ["step 100", "rank 0|rank0", "out of memory|OOM"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "start and end timestamps? trying to say how long it lasted",
        ["21:37:04", "21:37:15|21:37:16"],
        [],
    ),
    ("hang_before_collective", "start time and death time?", ["21:43:40", "21:44:00"], []),
    ("hang_before_collective", "start timestamp and kill timestamp pls", ["21:43:40", "21:44:00"], []),
    ("nan_loss", "start and end times", ["21:36:28", "21:36:36"], []),
    ("segfault", "start time and crash time?", ["21:38:55|21:38:56", "21:39:04"], []),
    ("gpu_oom", "start time & end time?", ["02:00:41", "03:24:05"], []),
]
