"""Round 35a: audit asks that name one line of the job and want it quoted — "what does the WARNING
line at step 2001 say?", "which folder was it writing the checkpoint to", "which source line does the
FullStateDictConfig call come from?", "seq id, op, last completed work for ranks 1-7", "rank 1's pid
from the launcher summary"; asks where a borrowed initiating time comes from; "timeout or hang?" /
"stuck at the end?" on a time-limit job; "node + rank"; per-rank values at a named step.

Why: the answer for the ask's first intent left out the line the message names; each step quotes the
job's own line (file:line, time) the message points at, and nothing when the job has no such line.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("gpu_oom", "cuda oom where - node + rank pls", ["gpu-02", "rank 5|rank5"], []),
    ("gpu_oom", "which host and rank hit the oom?", ["gpu-02", "rank 5|rank5"], []),
    (
        "gpu_oom",
        "Looking at the step lines, rank 5's mem_alloc seems higher than the other ranks' the whole"
        " run. What values do you see for rank 5 vs e.g. rank 0 at step 2000?",
        ["69.4", "61.0"],
        [],
    ),
    (
        "gpu_oom",
        "What does the WARNING line at step 2001 say about the batch shape and packing?",
        ["4 x 16384", "packing disabled"],
        [],
    ),
    ("gpu_oom", "quote the warning rank 5 printed before the oom", ["4 x 16384"], []),
    (
        "gpu_oom",
        "Cite file:line and timestamp for the OOM and for the batch-shape warning immediately preceding it.",
        ["rank5.log:222|line 222", "rank5.log:207|line 207|03:14:01"],
        [],
    ),
    (
        "nan_loss",
        "Rank 1's ValueError has no timestamp. Where does the 21:36:34.184 initiating time come from?",
        ["step 6|6/10", "rank 0|rank0"],
        [],
    ),
    (
        "nan_loss",
        "Cite file:line for the NaN ValueError and its timestamp. If it has none, which line's"
        " timestamp did you borrow, and from which rank?",
        ["console.log:21|stderr.log:9|line 21|line 9", "21:36:34", "rank 0|rank0|step 6"],
        [],
    ),
    (
        "nan_loss",
        "the failure time has no stamp on rank 1's line, which line did the time come from",
        ["step 6|6/10", "rank 0|rank0"],
        [],
    ),
    (
        "nan_loss",
        "Give me the peer ports in the gloo errors on ranks 0 and 2, and rank 1's pid from the"
        " launcher summary.",
        ["23686", "18345", "21428"],
        [],
    ),
    ("nan_loss", "what pid did rank 1 have in the launcher summary", ["21428"], []),
    (
        "time_limit",
        "timeout or hang? need to know before i bump --time",
        ["03:10:00|step 150", "03:11:40"],
        [],
    ),
    ("time_limit", "wait was it stuck at the end? looks like theres a gap", ["100 s|100s|03:10:00"], []),
    ("time_limit", "was it hung before slurm killed it?", ["03:10:00|step 150"], []),
    (
        "time_limit",
        "Confidence 0.95. Given the 100 s of silence before the kill, what distinguishes slow from"
        " hung, and is that evidence in the packet?",
        ["0.95", "03:10:00|100 s|100s"],
        [],
    ),
    (
        "time_limit",
        "compare job_991_0.out and job_991_3.out — any difference between ranks at the end?",
        ["2.4400|2.44", "150"],
        [],
    ),
    (
        "time_limit",
        "'No rank failed on its own': show the last lines and timestamps per rank that back that up.",
        ["step 150", "death signal", "03:11:40"],
        [],
    ),
    (
        "time_limit",
        "what would --signal=USR1@600 have changed here? would we have a checkpoint?",
        ["USR1"],
        [],
    ),
    (
        "zero3_save",
        "compare rank 0 vs rank 7 — what was each doing when things died?",
        ["4512", "OutOfMemoryError|out of memory"],
        [],
    ),
    ("zero3_save", "which folder was it writing the checkpoint to", ["out/"], []),
    ("zero3_save", "where was the checkpoint being saved, what dir?", ["out/"], []),
    (
        "zero3_save",
        "The OOM line (rank0.log:111) has no timestamp, yet initiating time 03:08:20 isn't flagged"
        " as borrowed. Which line is it from?",
        ["rank0.log:101|line 101|Saving model checkpoint", "03:08:20"],
        [],
    ),
    (
        "zero3_save",
        "Collateral evidence for ranks 1-7: give seq id, op, last completed work, and file:line.",
        ["4512", "4511", "ALLREDUCE"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "For the initiating claim (rank 2 on gpu-01), list each supporting line with file:line and"
        " timestamp, in chronological order.",
        ["03:05:38", "03:05:39", "03:05:40"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "You quote a FullStateDictConfig(offload_to_cpu=True) call. Which user source file and line"
        " does it come from per the traceback, and which rank logged that traceback?",
        ["301", "/workspace/train.py|train.py", "rank 0|rank0"],
        [],
    ),
]
