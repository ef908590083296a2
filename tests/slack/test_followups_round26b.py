"""Round 26b: records the job lacks.

Classes: (1) a kernel-log ask ("any dmesg? was it the OOM killer? did the kernel kill it?") on a job
with no node log: say none was collected and what the job's own lines show (SIGTERM: the launcher);
(2) a value no line prints (node RAM / memory limit, free space, lr / warmup, GPU temperature): say it
is not in the logs, with the command that shows it, keeping the figures the logs do hold. Why: these
were answered with the usual cause story or a help text, never saying the record is missing.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "checkpoint_oom",
        "was this the kernel OOM killer? give me the dmesg line",
        ["no kernel log", "alloc_cpu"],
        ["Killed process"],
    ),
    (
        "checkpoint_oom",
        "did the kernel kill rank 1? show me dmesg",
        ["no kernel log", "Error code 12"],
        ["Killed process"],
    ),
    (
        "hang_before_collective",
        "rank 3 got signal 15 — did the kernel kill it? OOM?",
        ["SIGTERM", "launcher", "no kernel log"],
        [],
    ),
    (
        "hang_before_collective",
        "any dmesg for localhost? was it the oom killer",
        ["no kernel log", "SIGTERM"],
        [],
    ),
    (
        "segfault",
        "any kernel log for the node? is it a GPU Xid or memory error before i drain localhost",
        ["no kernel log", "dmesg"],
        ["Xid 79"],
    ),
    ("nan_loss", "anything in dmesg on that box?", ["no kernel log", "dmesg -T"], []),
    (
        "disk_full_save",
        "did the kernel log anything when the save failed? dmesg?",
        ["no kernel log", "disk-full"],
        [],
    ),
    (
        "xid",
        "what was the GPU temperature and power draw before the Xid?",
        ["not in the logs", "nvidia-smi"],
        [],
    ),
    ("gpu_oom", "what temperature was gpu 5 running at?", ["not in the logs", "nvidia-smi"], []),
    ("nan_loss", "what learning rate and warmup was this run using?", ["not in the logs", "warm-up"], []),
    (
        "host_oom_kill",
        "how much resident memory did the killed process hold, and what was the node's memory limit?",
        ["61.25 GiB", "not in the logs"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "how much RAM was the killed process using? how much RAM does gpu-01 have in total?",
        ["239.60 GiB", "not in the logs"],
        [],
    ),
    (
        "disk_full_save",
        "how much free space was left on /tmp when the save failed?",
        ["not in the logs", "df -h"],
        [],
    ),
    ("checkpoint_oom", "how much disk space was left for the checkpoint?", ["not in the logs", "df -h"], []),
    ("host_oom_kill", "what lr was this run using?", ["learning rate 1.9e-05", ".log:205"], []),
]
