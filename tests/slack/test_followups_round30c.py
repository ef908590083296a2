"""Round 30c: a fast typist's short asks with typos and shorthand ("wich step", "realy", "nxt time",
"when n on which op", "can resume?? which ckpt") and a manager's factual asks ("resubmit unchanged, same
save again?", "did the log literally say disk full", "single config change, exactly").

Why: common misspellings of short words (`wich`, `realy`, `nxt`, `n` for "and") are below the typo
corrector's length floor, so they are spelled out where questions are normalised; the asks they carry
then reach the answer that holds the fact (the step, the signal, the dump command, the volume).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "disk_full_save",
        "disk full realy? i dont see no space left anywhere in log",
        ["basic_ios::clear|iostream error", "unexpected pos|1088 vs 982|inline_container.cc:672"],
        [],
    ),
    (
        "disk_full_save",
        "is it realy a full disk? wich line says so",
        ["basic_ios::clear|iostream error", "unexpected pos|1088 vs 982|inline_container.cc:672"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "wat is exit -9 on local_rank 2",
        ["SIGKILL|signal 9|kill -9", "OOM|out of memory|oom-killer"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "wut does exit code -9 mean on rank 2",
        ["SIGKILL|signal 9", "OOM|out of memory|oom-killer"],
        [],
    ),
    ("segfault", "when crash, wich step", ["step 1|1/10", "21:39:04"], []),
    ("segfault", "wen did it crash n at wich step", ["step 1|1/10", "21:39:04"], []),
    ("nan_loss", "can resume?? which ckpt", ["step 6|6/10", "checkpoint|ckpt"], []),
    ("nan_loss", "resume possible? wich checkpoint to use", ["step 6|6/10", "checkpoint|ckpt"], []),
    ("segfault", "how get core dump nxt time", ["ulimit -c|coredumpctl|gdb"], []),
    ("segfault", "how do we get a core file next time it segfaults", ["ulimit -c|coredumpctl|gdb"], []),
    (
        "host_oom_kill",
        "other ranks timeout when n on which op",
        ["03:24:06", "ALLGATHER|allgather|all_gather", "9120"],
        [],
    ),
    (
        "disk_full_save",
        "did the log literally say disk full / out of space or is that an inference",
        ["1088 vs 982|basic_ios|iostream", "df -h|df -i|quota|No space left|ENOSPC"],
        [],
    ),
    (
        "disk_full_save",
        "do we need to ping the storage folks? which volume filled up",
        ["/tmp/realjob-disk_full_save|/tmp", "df -h|df -i|df "],
        [],
    ),
    (
        "disk_full_save",
        "which filesystem ran out of space",
        ["/tmp/realjob-disk_full_save|/tmp", "df -h|df -i|df "],
        [],
    ),
    (
        "zero3_save",
        "single config change to make, exactly",
        ["stage3_gather_16bit_weights_on_model_save", "false"],
        [],
    ),
    (
        "zero3_save",
        "the one setting to flip, exactly?",
        ["stage3_gather_16bit_weights_on_model_save", "false"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "bot say default 29500 collide but we not use 29500 i think?",
        ["54661", "EADDRINUSE|-98|address already in use"],
        [],
    ),  # guard
    (
        "checkpoint_oom",
        "if we resubmit unchanged does it just die at the same save again?",
        ["step 6|checkpoint-6", "full_state_dict|rank 0 only|rank0_only|sharded|mmap"],
        [],
    ),
    (
        "checkpoint_oom",
        "it only asked for 16MB and failed?? do i need to loop in infra about the node's memory",
        ["16777216|16 MiB|16 MB|16MB", "sacct|MaxRSS|dmesg|--mem|free -g"],
        [],
    ),
    (
        "host_oom_kill",
        "how big was the proc when the oom killer got it, and what limit was it up against?",
        ["64223412|61 GiB|61.2|64 GB|~61|61G", "sacct|ReqMem|MaxRSS|--mem|limit"],
        [],
    ),
]
