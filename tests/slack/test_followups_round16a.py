"""Round 16a: times and rates, each read from its own line (a perf engineer and an SRE accounting
for the time of a failure).

Why: "s/step and what step were we at", "tokens/s per rank", "how long was rank 0 in the save before
it threw", "last step line to torchrun's failure report", "how long did the others wait after the
save" are answered from the step lines' and the events' own timestamps, to the millisecond where the
line gives them. A rate asked outright is a pace ask even beside "what step", and a failing rank that
logs no steps is timed from the rank that does. A failure line with no time of its own is never given
one: a span ending at it is a bound ("at most"), and a wait whose ends are bounds says so.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # a rate named outright ("seconds per step", "sec/step", "tokens/s"), even beside "which step"
    (
        "zero3_save",
        "seconds per step before it stopped, and which step was it on?",
        ["4 s a step", "step 100"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "sec/step for this run?",
        ["28 ms a step", "rank 0's step lines"],
        ["0 s a step"],
    ),
    (
        "gpu_oom",
        "tokens/s per rank right before it went down - was rank 5 behind?",
        ["3083 tokens/s", "not slower than the rest"],
        [],
    ),
    # the span between two named events, from their own lines' times
    (
        "segfault",
        "how long was it between the last step line and torchrun logging the failure?",
        ["0.7 s", "21:39:04.067", "within one second"],
        [],
    ),
    (
        "nan_loss",
        "how many seconds from the last step line to the failure report?",
        ["2.4 s", "21:36:34.184"],
        [],
    ),
    # a failure line with no time of its own: a bound, never a time
    (
        "dataloader_worker_killed",
        "how long after the last step did rank 2 die? is its line timed?",
        ["no time of its own", "at most"],
        [],
    ),
    # how long the other ranks waited after a named event, and where
    (
        "checkpoint_oom",
        "how long after the save began were ranks 0, 2 and 3 stuck waiting?",
        ["waited at most", "4.7 s"],
        [],
    ),
]
