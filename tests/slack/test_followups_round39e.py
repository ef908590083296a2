"""Round 39e: a team lead on a phone — ultra-terse asks in chat abbreviations with no verb: "ts?", "tmo",
"timeout ts", "sigterm ts", "others ts", "ckpt step", "err line exact", "ds ver", "how much it tried".

Why: the matcher spelled out `r3`, `ckpt`, `mem`, `pls`, but not `ts`, `tmo`, `err`, `ds`, `ver`, `func`;
and a bare noun ("timestamp please", "timeout?") scores no intent. The abbreviations are now phrases of
`intents.toml` (so every intent reads the full word), and the terse rewrite maps a bare noun to the ask
a reader means for this job: the time it failed, the timeout in force, when the named thing happened.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("checkpoint_oom", "ts?", ["21:38:30|21:38:35"], []),
    ("checkpoint_oom", "ts plz", ["21:38:30|21:38:35"], []),
    ("host_oom_kill", "ts please", ["03:14:05"], []),
    ("host_oom_kill", "tstamp pls", ["03:14:05"], []),
    ("segfault", "ts??", ["21:39:04"], []),
    ("segfault", "ts pls", ["21:39:04"], []),
    ("dataloader_worker_killed", "SIGTERM ts?", ["21:37:15"], []),
    ("dataloader_worker_killed", "sigterm ts pls", ["21:37:15"], []),
    ("desync", "tmo", ["15000|15 s|15s"], []),
    ("desync", "tmo pls", ["15000|15 s|15s"], []),
    ("hang_before_collective", "tmo?", ["10000|10 s|10s"], []),
    ("hang_before_collective", "t/o?", ["10000|10 s|10s"], []),
    ("flight_recorder", "timeout ts?", ["03:10:01"], []),
    ("flight_recorder", "tmo ts", ["03:10:01"], []),
    ("zero3_save", "others ts?", ["03:18:20"], []),
    ("zero3_save", "others ts pls", ["03:18:20"], []),
    ("disk_full_save", "ckpt step?", ["checkpoint-4|step 4|4/10"], ["checkpoint-6"]),
    ("disk_full_save", "chkpt step pls", ["checkpoint-4|step 4|4/10"], ["checkpoint-6"]),
    ("disk_full_save", "exact err line", ["1088 vs 982"], []),
    ("disk_full_save", "err line pls", ["1088 vs 982"], []),
    ("host_oom_kill", "ds ver?", ["0.16.2"], []),
    ("host_oom_kill", "ds version pls", ["0.16.2"], []),
    ("gpu_oom", "how much did it try", ["3.91 GiB|3.91GiB"], []),
    ("gpu_oom", "how much it tried to allocate", ["3.91 GiB|3.91GiB"], []),
]
