"""Round 38a: postmortem two-event deltas — "ts of rank 0's 'Saving checkpoint' line vs when torchrun
logged rank 1 as failed, delta?", "oom-killer invoked when vs torchrun noticed when", "last logged step
vs the launcher's failure record, delta in s", "launcher SIGTERM time and delta from rank 0's last step",
"startup between 'Initializing distributed' and 'Starting training'".

Why: these asks name two lines and want both times (each with its file:line) and the seconds between
them. They fell to a whole timeline (opened by "timeline"), to the memory answer (a kernel word), or to
the phase answer (a last-step word): each left one time or the delta out. A quoted log phrase is lost
in the normalised text (quotes dropped), so it is found by the line's own opening words; the launcher's
failure record is its `failed (exitcode: …)` line, else its summary's root-cause time (whole second);
the kernel's OOM event names both its lines (invoked, killed).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "fsdp_cpu_save",
        "precise time the kernel killed the process vs when torchrun noticed?",
        ["03:05:39", "03:05:40"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "when did the oom-killer get invoked vs when the launcher noticed",
        ["03:05:38", "03:05:40"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "oom killer time vs launcher failure record time, delta?",
        ["03:05:38", "03:05:40", "2 s"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "whats the delta between the 'saving checkpoint at step 50' line and the oom-killer?",
        ["03:05:00", "03:05:38", "38"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "time of 'saving checkpoint at step 50' vs time of the dmesg oom-killer line",
        ["03:05:00", "03:05:38"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "kernel killed it when vs torchrun logged the failure when? delta",
        ["03:05:39", "03:05:40"],
        [],
    ),
    (
        "checkpoint_oom",
        "timestamp of rank 0's 'Saving checkpoint' line vs when torchrun recorded rank 1 as failed — delta?",
        ["21:38:30", "21:38:35", "5 s|5.2|~5"],
        [],
    ),
    (
        "checkpoint_oom",
        "postmortem: save line ts vs launcher failure record ts, delta in seconds",
        ["21:38:30", "21:38:35", "5 s|5.2"],
        [],
    ),
    (
        "checkpoint_oom",
        "how long was startup on rank 0, between 'Initializing distributed' and 'Starting training'?",
        ["21:38:11", "21:38:21", "10.1"],
        [],
    ),
    (
        "checkpoint_oom",
        "last logged step time vs time the launcher recorded the failure, delta?",
        ["21:38:30", "21:38:35"],
        [],
    ),
    (
        "desync",
        "timeline pls: last logged step vs when the launcher recorded the failure. delta in s",
        ["21:36:04", "21:36:22", "18"],
        [],
    ),
    (
        "desync",
        "ts of the last step line vs the launcher's failure record, delta?",
        ["21:36:04", "21:36:22", "18"],
        [],
    ),
    (
        "desync",
        "between 'Initializing distributed' and 'Starting training' on rank 0, how long?",
        ["21:35:55", "21:36:04"],
        [],
    ),
    (
        "hang_before_collective",
        "sigterm time from the launcher and the delta from rank 0's last step line",
        ["21:43:47", "21:44:00", "13"],
        [],
    ),
    (
        "hang_before_collective",
        "rank 0 last step vs torchrun SIGTERM: both times and the delta",
        ["21:43:47", "21:44:00", "13"],
        [],
    ),
    (
        "hang_before_collective",
        "last logged step vs the time torchrun logged the failure, delta?",
        ["21:43:47", "21:44:00"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "time of the last logged step and the time torchrun started sending SIGTERM to the rest?",
        ["21:37:12", "21:37:15"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "last step vs sigterm, delta in s",
        ["21:37:12", "21:37:15", "3.7"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "how soon after 'Starting training' did torchrun send SIGTERM?",
        ["21:37:11", "21:37:15"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "last logged step vs when the launcher recorded the failure. delta?",
        ["21:37:12", "21:37:16"],
        [],
    ),
]
