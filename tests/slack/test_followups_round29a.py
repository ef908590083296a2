"""Round 29a: a rank's blame questioned ("why rank 2 and not rank 0?", "torchrun says root cause is
rank 0, why rank 3?", "the traceback is from rank 0, why pin it on rank 2?") and the verdict's
confidence challenged ("how sure are you? it ran 2000 steps fine", "that line doesn't say disk full").

Why: a contrast of ranks is answered with the lines that separate them: the rank that started it, what
the launcher's "Root Cause (first observed failure)" names and why that is the first to exit, how the
other rank ended, and the launcher line tying a killed pid to its rank. A challenged confidence is
answered with the evidence the challenge asks for: the lines beside the key line, the collectives the
ranks were in, the step's own batch line, the pid tying the kill to the rank, what would show more.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "dataloader_worker_killed",
        "why rank 2 and not rank 0? torchrun lists rank 0 too",
        ["rank 2|rank2", "Root Cause|first observed failure|exitcode: 1|exitcode  : 1", "SIGTERM|-15"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "how come you blame rank 2 rather than rank 0?",
        ["rank 2|rank2", "Root Cause|first observed failure|exitcode: 1|exitcode  : 1", "SIGTERM|-15"],
        [],
    ),
    (
        "disk_full_save",
        "why rank 0 and not one of the others",
        ["rank 0|rank0", "save_checkpoint|torch.save|checkpoint-4", "Connection closed by peer|SIGTERM|-15"],
        [],
    ),
    (
        "nan_loss",
        "why rank 1 and not rank 0 which logged the losses",
        [
            "rank 1|rank1",
            "Connection closed by peer|SIGTERM|-15",
            "Root Cause|first observed failure|exitcode: 1",
        ],
        [],
    ),
    (
        "fsdp_cpu_save",
        "the traceback is from rank 0, so why are you pinning it on rank 2?",
        ["3312", "local_rank: 2|local_rank 2", "exitcode: -9|-9|SIGKILL"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "rank 0 is the one with the traceback, why blame rank 2?",
        ["3312", "local_rank: 2|local_rank 2", "exitcode: -9|-9|SIGKILL"],
        [],
    ),  # guard
    (
        "hang_before_collective",
        "torchrun says rank 0 exit code 1 is the root cause, why not go with that",
        [
            "rank 0|rank0",
            "first observed failure|first to exit|first process",
            "all_reduce|Timed out waiting",
        ],
        [],
    ),
    (
        "desync",
        "torchrun literally says root cause is rank 0. why are you saying rank 3?",
        [
            "rank 3|rank3",
            "broadcast|train.py, line 142|line 142",
            "first observed failure|first process|first to exit|21:36:22",
        ],
        [],
    ),
    (
        "desync",
        "the elastic summary names rank 0 as the root cause, so why rank 3?",
        ["rank 3|rank3", "first observed failure|first process|first to exit"],
        [],
    ),
    (
        "desync",
        "confidence 0.46 is a coin flip. how sure are you it's a desync and not just a slow rank?",
        ["broadcast", "all_reduce", "rank 3|rank3"],
        [],
    ),
    (
        "desync",
        "how confident are you this is a desync and not one slow rank?",
        ["broadcast", "all_reduce", "rank 3|rank3"],
        [],
    ),  # guard
    (
        "disk_full_save",
        "'unexpected pos 1088 vs 982' doesn't say disk full anywhere. how sure are you?",
        ["basic_ios::clear|iostream error", "write_record|torch.save|serialization.py"],
        [],
    ),
    (
        "disk_full_save",
        "nothing in there says no space left on device, how confident are you it's the disk?",
        ["basic_ios::clear|iostream error", "write_record|torch.save|serialization.py"],
        [],
    ),
    (
        "gpu_oom",
        "how sure r u? it ran 2000 steps fine, why would it suddenly OOM at 2001",
        ["16384", "packing disabled|longest sample|4 x 16384"],
        [],
    ),
    (
        "gpu_oom",
        "are you sure it's memory? 2000 steps went through without problems",
        ["16384", "packing disabled|longest sample|4 x 16384"],
        [],
    ),  # guard
    (
        "host_oom_kill",
        "how sure are you it's rank 2? the watchdog errors are all on 0, 1, 3",
        ["51234", "local_rank: 2|local_rank 2|rank 2", "-9|SIGKILL"],
        [],
    ),
    (
        "host_oom_kill",
        "ranks 0, 1 and 3 have the errors, how confident are you it was rank 2?",
        ["51234", "local_rank: 2|local_rank 2|rank 2", "-9|SIGKILL"],
        [],
    ),
    (
        "flight_recorder",
        "what would you need to see to actually know WHY rank 2 stalled? the logs don't say",
        ["dmesg|kernel log", "sacct|scheduler|py-spy|stack"],
        [],
    ),
]
