"""Round 33f: asks about the job's set-up lines — "which model was this?", "world size 4 vs 8, which
is it?", "rank 5's NCCL init pid / busId / cudaDev", "rank 5's launch line / local_rank", "driver
version on gpu-02".

Why: these lines come long before the failure, so no other answer kept them; the diagnosis now keeps
the first of each set-up kind per log (`Diagnosis.facts.setup`) and the answer quotes the asked one
with its file and line, and both lines with where each comes from when two disagree.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "gpu_oom",
        "which model was this?",
        ["meta-llama/Llama-3.1-8B", "rank0.log:4"],
        [],
    ),
    (
        "gpu_oom",
        "what model did it load",
        ["meta-llama/Llama-3.1-8B", "Loading model"],
        [],
    ),
    (
        "host_oom_kill",
        "the launch line says world_size=4 but I thought this was 8 GPUs — world size 4 vs 8, which is it?",
        ["world_size=4", "world 8", "rank0.log:1", "rank0.log:5", "launch line", "ProcessGroupNCCL"],
        [],
    ),
    (
        "gpu_oom",
        "what was the world size",
        ["8", "world_size=8|world 8"],
        ["disagree"],
    ),
    (
        "xid",
        "rank 5's NCCL init: pid, busId, cudaDev?",
        ["4521", "3b000", "cudaDev 1", "rank5.log:6"],
        [],
    ),
    (
        "xid",
        "what busId was rank 5 on",
        ["3b000", "rank5.log:6"],
        [],
    ),
    (
        "gpu_oom",
        "show me rank 5's launch line",
        ["local_rank=1", "rank5.log:1"],
        [],
    ),
    (
        "gpu_oom",
        "what was rank 5's local_rank",
        ["local_rank=1|local_rank 1", "rank5.log:1"],
        [],
    ),
    (
        "xid",
        "driver version on gpu-02?",
        ["550.90.07", "node-gpu-02.dmesg:1"],
        [],
    ),
    (
        "gpu_oom",
        "which nvidia driver was gpu-02 running",
        ["550.90.07", "node-gpu-02.dmesg:2"],
        [],
    ),
    (
        "gpu_oom",
        "driver version on gpu-01?",
        ["No driver line for gpu-01", "node-gpu-02.dmesg:2"],
        ["The NVIDIA driver 550.90.07 on gpu-01"],
    ),
]
