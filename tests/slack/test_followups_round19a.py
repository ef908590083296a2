"""Round 19a: facts a postmortem write-up asks for, each from this job's own lines.

Why: "who errored on their own vs got SIGTERM'd, did rank N error at all?" and "did torchrun SIGTERM the
rest or did they fail by themselves, exit codes?" are counts from each rank's own lines and the
launcher's summary (a rank may print a traceback and still be SIGTERM'd; on a desync every rank exits 1
on its own), not the verdict's roles; "both call sites with line numbers" / "file + line numbers, rank 3
vs the others" is each rank's user frame (train.py line 142 against line 144); "seqnum and when, vs
rank 0's OOM" beside a memory ask is the collaterals' watchdog line (SeqNum, OpType, time as printed,
how long it ran) against the first failure; "which frame/line" beside the OOM figures is the innermost
frame of the first rank's traceback; "how did rank 5's mem_alloc compare with the others" is each
rank's logged memory; a message that opens "postmortem timeline, times as printed: …" is the timeline,
its list naming the events (not a status update or a summary); "what were 1+3 doing" names ranks 1
and 3, and a terse "r0 err??" is its own ask.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # own error vs stopped by the launcher, from each rank's lines and the summary
    (
        "nan_loss",
        "who threw an error on their own and who got sigterm'd? did rank 2 error at all?",
        ["ranks 0, 2 and 3", "exited on their own: rank 1", "printed a python traceback"],
        ["rank 2 failed first"],
    ),
    (
        "desync",
        "did the launcher sigterm ranks 0-2 or did they all fail on their own? exit codes?",
        ["no rank got sigterm", "exitcode 1, pid 20606"],
        ["yes, torchrun sigterm"],
    ),
    (
        "dataloader_worker_killed",
        "r0 error?? n wat were 1+3 doing then",
        ["rank 0 printed no traceback", "exitcode -15", "all_reduce"],
        ["rank 0's worker was killed"],
    ),
    # each rank's call site with its line, the first rank against the others
    (
        "desync",
        "paste the two call sites with line numbers please",
        ["train.py line 142", "train.py line 144", "broadcast"],
        [],
    ),
    # the collaterals' watchdog line beside a memory ask
    (
        "zero3_save",
        "how short was rank 0 on memory, and the seq num + time of the collective ranks 1-7 timed out in",
        ["seqnum 4512", "03:18:20", "600012 ms"],
        [],
    ),
    # the raising frame beside the OOM figures
    (
        "zero3_save",
        "oom figures for the ticket + what frame/line raised it",
        ["2.00 gib", "_zero3_consolidated_16bit_state_dict", "line 3466"],
        [],
    ),
    # each rank's logged memory beside the OOM figures
    (
        "gpu_oom",
        "for the review: exact oom figures (requested, capacity, free). also how did rank 5 memory "
        "stack up vs the other ranks earlier on",
        ["3.91 gib", "69.4 gib", "60.8"],
        [],
    ),
    # a message that opens by asking for the timeline
    (
        "host_oom_kill",
        "timeline for our postmortem doc, times as printed: rank 2's last line, the oom-kill, the "
        "launcher's -9, the other ranks' watchdog. and how long until the job was truly dead",
        ["timeline (utc)", "03:14:06", "03:24:06", "exitcode -9"],
        [],
    ),
]
