# ruff: noqa: E501
"""Round 33a: a skeptical engineer challenges what a conclusion rests on, and a newcomer asks what a
term or line means in THIS job — "desync and timeout both 0.46, why desync?", "no 'No space left'
line, why a full disk?", "do the logs show stage3_gather_16bit_weights_on_model_save or are you
guessing?", "was this job using 29500?", "why dmesg for a port clash?", "how do you tie PCI 3b:00 to
rank 5?", "what's a collateral rank?", "'Loss is nan' — who raised it?", "what's basic_ios::clear?",
"what's a core dump, do we have one?".

Why: the verdict's answer restated the conclusion; a challenge needs the line under it and, when it is
an inference (a setting not printed, a full disk with no ENOSPC line, a GPU's local index with no NCCL
init line kept), that it is one and what would confirm it (knowledge/answer_grounds.py). A term's
answer needs where it shows in this job: the collective the collateral ranks waited in, the frame that
raised the error, the library call a quoted error came from, the crashed pid and host
(knowledge/answer_terms_job.py).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "desync",
        "Desync is at 0.46 and the watchdog-timeout alternative is also 0.46. Why pick desync over a plain timeout?",
        ["broadcast", "all_reduce"],
        [],
    ),
    (
        "desync",
        "How long did the ranks wait before giving up? Could this just be slow loopback networking?",
        ["15000ms|15000 ms|15 s|15s|15 seconds", "broadcast"],
        [],
    ),
    (
        "desync",
        "the two top scores are tied, so why call it a desync rather than a timeout?",
        ["broadcast", "all_reduce"],
        [],
    ),
    (
        "disk_full_save",
        "I see no 'No space left on device' anywhere. What evidence do you have it's a full disk rather than some other I/O error?",
        ["1088 vs 982|unexpected pos", "basic_ios::clear|iostream error", "inference"],
        [],
    ),
    (
        "disk_full_save",
        "nothing says ENOSPC — how do you know the disk was full?",
        ["unexpected pos", "df -h"],
        [],
    ),
    (
        "zero3_save",
        "You claim stage3_gather_16bit_weights_on_model_save is true. Do the logs show that config, or are you guessing?",
        ["_zero3_consolidated_16bit_state_dict|line 3466|engine.py:3466", "not printed"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "Your write-up talks about the 29500 default. Was this job actually using 29500?",
        ["54661"],
        ["port 29500 was in use", "port: 29500"],
    ),
    (
        "rendezvous_port_in_use",
        "You ask for dmesg here. What would a kernel log tell you about a port clash? What should I run instead?",
        ["ss -ltnp"],
        [],
    ),
    (
        "xid",
        "How do you tie PCI 0000:3b:00 to rank 5? Rank 1 on gpu-01 uses bus 3b:00 too.",
        ["gpu-02", "3b000|cudaDev 1|local_rank=1|local_rank 1|local rank 1|local_rank: 1"],
        [],
    ),
    (
        "disk_full_save",
        "what's a 'collateral rank'? why are 1-3 in that table",
        ["barrier", "rank 0|rank0"],
        [],
    ),
    (
        "hang_before_collective",
        "what does 'Root Cause (first observed failure)' mean in the torchrun box? it says rank 0",
        ["rank 3|rank3", "all_reduce|allreduce"],
        [],
    ),
    (
        "nan_loss",
        "what does 'Loss is nan, stopping training' mean - who raised it and where?",
        ["207", "rank 1|rank1"],
        [],
    ),
    (
        "disk_full_save",
        "what's 'basic_ios::clear: iostream error'? never seen that",
        ["torch.save|serialization.py|write_record", "rank 0|rank0"],
        [],
    ),
    ("segfault", "what's a core dump and do we have one for this crash?", ["24103", "localhost"], []),
    ("segfault", "is there a core file for the segfault somewhere?", ["24103", "localhost"], []),
]
