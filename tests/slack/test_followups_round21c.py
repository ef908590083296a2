"""Round 21c: asks whose answer of the right kind left out the fact asked, or gave a false one.

Why: each class is answered from this job's own lines. "the command to check the volume it was
saving to" on a job that never saved must say no kept line names such a path (never a source file's
`api.py:1028` read as a port); "their last completed work?" is the watchdog's own counters (`last
enqueued NCCL work: 4512, last completed NCCL work: 4511`); the NCCL version asked beside "rank 2's last
enqueued collective" also gets the dumps' word on rank 2 (or, with no dumps, the watchdog's counters);
"what line actually points at a full disk?" quotes the lines the verdict was read from; "rank 2's log
is clean, so it's healthy?" says where that clean log stops, and when; "you say rank0_only=True fixes
it, how sure?" names that step of the fix and the fix's other steps (save sharded, DCP).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the volume to check on a job that was not saving: no path, no port
    ("nan_loss", "what's the command to check the volume it was saving to?", ["not saving"], ["Port 1028"]),
    ("desync", "which volume do I clean up, and the command to check it?", ["no volume"], ["Port ", "df -h"]),
    # the watchdog's work counters
    (
        "zero3_save",
        "Ranks 1-7: which SeqNum timed out, what was their last completed work, and what op?",
        ["4512", "4511", "ALLREDUCE"],
        [],
    ),
    ("gpu_oom", "what was the last completed work on the ranks that timed out?", ["48212", "48213"], []),
    # the version asked beside the last collective
    (
        "flight_recorder",
        "What NCCL version do the flight recorder dumps report, and what's rank 2's last enqueued "
        "collective compared to the other ranks?",
        ["2.21.5", "#4"],
        [],
    ),
    (
        "gpu_oom",
        "what nccl version was this, and what's rank 3's last completed collective?",
        ["2.21.5", "48212"],
        [],
    ),
    # the line that points at the verdict, asked as "what line shows"
    (
        "disk_full_save",
        "I don't see ENOSPC or 'No space left' anywhere. "
        "What line in the logs actually points at a full disk?",
        ["basic_ios::clear", "unexpected pos 1088 vs 982"],
        [],
    ),
    (  # guard: the memory answer already quoted the allocator's line at HEAD
        "checkpoint_oom",
        "which line actually shows it ran out of host RAM? I don't see oom-killer anywhere",
        ["DefaultCPUAllocator", "console.log:84"],
        [],
    ),
    # a clean log offered as a healthy rank: where it stops, and when
    (
        "flight_recorder",
        "ranks 0,1,3 all threw watchdog errors and rank 2's log is clean, so rank 2 is the healthy one? "
        "which rank do I actually go look at",
        ["rank 2", "03:00:02"],
        ["rank 2 is healthy"],
    ),
    ("flight_recorder", "rank 2's log is clean, so it's fine? which rank do I look at", ["step 40"], []),
    # a fix step doubted: that step, and the fix's other steps
    (
        "fsdp_cpu_save",
        "You say adding rank0_only=True fixes it. How sure are you? "
        "Rank 0 still has to hold the whole model in RAM.",
        ["rank0_only", "SHARDED_STATE_DICT"],
        [],
    ),
    (
        "checkpoint_oom",
        "Are you sure a bigger --mem node fixes it? we already have 512G",
        ["--mem", "save sharded"],
        [],
    ),
    # a signal the reader names is looked for like an errno: the launcher's summary prints SIGSEGV,
    # so the answer quotes it instead of saying the logs do not print it (found while fixing round 21)
    (
        "segfault",
        "I don't see SIGSEGV anywhere, where does it say that?",
        ["`SIGSEGV` is in console.log:93"],
        ["do not print it as such"],
    ),
    # the same ask on another job: SIGKILL is not printed in host_oom_kill's lines (exitcode -9 is)
    (
        "host_oom_kill",
        "i don't see SIGKILL anywhere, where does it say that?",
        ["`SIGKILL` is not printed"],
        [],
    ),
]
