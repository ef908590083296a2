"""Round 25a: parts of a multi-part ask that the answer dropped, and asks routed to a narrower answer.

Why: "when did the other ranks time out, which SeqNum, what to change" and "how long from the Xid to
the rest dying" need the time the other ranks went down, whatever intent the first part matched;
"what step, and would a plain rerun help or what should I capture first" needs the rerun verdict and
what to capture, not the step alone; "which rank does torchrun's summary list as the root cause, and
is that the rank to look at?" needs the summary's rank (its first observed failure) next to the rank
that failed first; "what distinguishes it from a plain hang, what do I grep for?" on a desync names
the different collectives the ranks' tracebacks stop in; "the pg timeout and how long the allreduce
actually ran" is the watchdog's `Timeout(ms)` and `ran for` figures; "compare rank 0 with rank 3,
which is the cause?" says which started it and what the other one was (collateral, what it waited on).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the other ranks' time, in a multi-part ask or a "how long from X to the rest" ask
    (
        "gpu_oom",
        "When did the other ranks time out, on which collective sequence number, and what should I "
        "change before rerunning?",
        ["03:24", "48213", "micro-batch"],
        [],
    ),
    (
        "xid",
        "how long from the Xid to the rest of the job dying on the watchdog?",
        ["03:14:03", "03:24:03"],
        [],
    ),
    ("zero3_save", "how long between rank 0's OOM and the rest timing out?", ["03:18:20"], []),  # guard
    (
        "checkpoint_oom",
        "when did the other ranks die, and on which collective?",
        ["rank"],
        [],
    ),  # guard
    # a rerun verdict and what to capture, asked with the step
    (
        "segfault",
        "What step did it crash at, and would a plain rerun help or what should I capture first?",
        ["step 1", "faulthandler"],
        [],
    ),
    (
        "segfault",
        "which step was it on and would just a retry fix it?",
        ["step 1", "gdb"],
        [],
    ),
    # torchrun's root-cause rank vs the rank to look at
    (
        "hang_before_collective",
        "Which rank does torchrun's summary list as the root cause, and is that actually the rank to "
        "look at?",
        ["rank 0 as the root cause", "rank 3"],
        [],
    ),
    (
        "hang_before_collective",
        "the launcher summary names a root cause rank - should I trust it?",
        ["rank 0 as the root cause", "rank 3"],
        [],
    ),
    # a desync: the different collectives
    (
        "desync",
        "runbook step 1 for this: what distinguishes it from a plain hang? what do I grep for?",
        ["broadcast", "all_reduce"],
        [],
    ),
    ("desync", "how do I tell this apart from a normal hang?", ["broadcast", "all_reduce"], []),  # guard
    # the configured timeout and how long the collective ran
    (
        "flight_recorder",
        "whats the pg timeout set to & how long did the allreduce actually run b4 it gave up",
        ["600000", "600012"],
        [],
    ),
    (
        "zero3_save",
        "what timeout was configured and how long did the collective actually run on rank 3?",
        ["600000", "600012"],
        [],
    ),  # guard
    # compare two ranks: which is the cause
    (
        "zero3_save",
        "compare rank 0 with rank 3 — which is the cause?",
        ["rank 0 is the one", "waited"],
        ["rank 3 is the cause"],
    ),
    (
        "gpu_oom",
        "rank 5 vs rank 2, which one do I blame?",
        ["rank 5", "rank 2 was"],
        [],
    ),  # guard
]
