"""Round 26a: the gap between any two events a question names, each from the job's own timed lines.

Why: "how long after 'Starting training' did the launcher tear down the others?", "how long after
'saving checkpoint at step 50' did the OOM killer fire?", "from launch to the watchdog timeouts",
"between the kernel's OOM kill and torchrun noticing it", "from training start to the NaN and the
launcher failing", "from step 1 to the cancellation", "the Xid and rank 5's CUDA error" all name two or
more events; each must be found at the kept line that shows it (a quoted phrase, the job's first line
of its own, the start of training, the launcher's failure line, the first watchdog timeout, the
rank's own error line, the kernel's line even when it is the first failure itself) and the answer
gives both times and the gap. A line the diagnosis did not keep (step 1's) is said as such and
bounded by the logs' first line, never given a time of its own.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # a quoted log phrase as one end
    (
        "dataloader_worker_killed",
        "how long after 'Starting training' did the launcher start tearing down the other ranks?",
        ["21:37:11", "21:37:15", "4.1 s"],
        [],
    ),
    (
        "nan_loss",
        "time between 'Starting training' and torchrun sending SIGTERM to the others?",
        ["21:36:34", "21:36:36"],
        [],
    ),  # guard
    (
        "fsdp_cpu_save",
        "how long after 'saving checkpoint at step 50' did the oom killer fire?",
        ["03:05:00", "03:05:38", "38"],
        [],
    ),
    # the kernel's line when it is the first failure itself, then the launcher noticing
    (
        "host_oom_kill",
        "how many seconds between the kernel oom kill and torchrun noticing it? and between that and the "
        "watchdog timeouts on 0,1,3?",
        ["03:14:05", "03:14:06", "03:24:06"],
        [],
    ),
    (
        "host_oom_kill",
        "gap between the oom killer in dmesg and the launcher noticing?",
        ["03:14:05", "03:14:06.001"],
        [],
    ),
    # the launch and the watchdog timeouts
    (
        "gpu_oom",
        "how long did the job run in total before dying, from launch to the watchdog timeouts?",
        ["02:01:13", "03:24:02", "83 min"],
        [],
    ),
    (
        "xid",
        "how long had the job been up when the GPU fell off the bus?",
        ["02:01:13", "03:14:03", "73 min"],
        [],
    ),
    (
        "host_oom_kill",
        "how long from launch to the watchdog timeouts on ranks 0,1,3?",
        ["03:24:06", "83 min"],
        [],
    ),
    # training start, the NaN, the launcher failing
    (
        "nan_loss",
        "how long from training start to the NaN and the launcher failing?",
        ["21:36:34", "21:36:36", "2.5 s"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "how long from the start of training to the launcher failing?",
        ["21:37:11", "exitcode"],
        [],
    ),
    # step 1 (not kept) to the cancellation, with the step rate
    (
        "time_limit",
        "how long did each step take, and how long from step 1 to the cancellation?",
        ["4 s a step", "03:00:04", "03:11:40", "696 s"],
        [],
    ),
    (
        "time_limit",
        "how long from step 1 until the job was cancelled?",
        ["03:00:04", "696 s", "not kept"],
        [],
    ),
    # the Xid, the rank's own error line, the others' watchdog
    (
        "xid",
        "gap between the Xid in dmesg and rank 5's CUDA error, and then until the others' watchdog fired?",
        ["03:14:03", "03:14:03.518", "same second", "03:24:03"],
        [],
    ),
]
