"""Round 28b: the ranks side by side — "did every rank see it or just one?", "what did rank 0 do
differently?", "how is rank 3 any different?", "what does rank 2's log show that theirs don't?",
"which rank's log ends last?", "did they all start saving at once?".

Why: a comparison is answered by each rank's role, first failure line and time, and its last line of
work before it (the step, batch or save), grouped; the collectives their tracebacks stop in; and that
the initiating rank's own lines have no watchdog timeout when the others' do.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "dataloader_worker_killed",
        "was the dataloader worker error on all ranks or only one of them?",
        ["rank 2", "ranks 1,3"],
        ["all ranks saw the dataloader"],
    ),  # guard
    (
        "dataloader_worker_killed",
        "how does rank 0 differ from ranks 1 and 3?",
        ["SIGTERM", "step 1"],
        [],
    ),  # guard
    (
        "desync",
        "every rank timed out — what makes rank 3 different from the rest?",
        ["broadcast", "all_reduce"],
        ["rank 0 was in broadcast"],
    ),  # guard
    (
        "flight_recorder",
        "the other ranks hit the watchdog; what's in rank 2's log that isn't in theirs?",
        ["step 40", "no watchdog"],
        [],
    ),
    (
        "gpu_oom",
        "anything different about rank 5 compared to the other ranks just before the oom?",
        ["16384", "2001"],
        [],
    ),
    (
        "host_oom_kill",
        "which rank's log finishes latest, and why that much later than rank 2?",
        ["03:24:06", "timeout"],
        [],
    ),
    (
        "nan_loss",
        "did all the other ranks see nan too, or just rank 1?",
        ["rank 1", "connection closed"],
        ["all ranks got nan"],
    ),
    (
        "segfault",
        "neither rank 1 nor rank 3 has a traceback: how do they differ?",
        ["SIGSEGV", "SIGTERM"],
        [],
    ),
    (
        "zero3_save",
        "were all the ranks saving at the same time or only rank 0?",
        ["03:08:20", "Ranks 1-7"],
        [],
    ),
]
