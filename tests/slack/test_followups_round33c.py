"""Round 33c: asks about what a rank was doing or last logged — "you said 1 and 3 'waited on rank 2',
what were they actually doing when they died, which line", "ranks 1-3, where were they in the code
when rank 0 blew up", "what train.py line was rank 2 on vs ranks 1 and 3", "rank 2 went quiet - when
was the last thing it logged?", "the gpu-01 ranks, what was their last step and mem_alloc", "time of
the segv vs last training step logged", "last step line the ranks printed before 'saving checkpoint'".

Why: the answers described the rank that started it (its phase, its last line before the failure
phase) and missed the asked ranks: ranks quoted from an earlier answer ("waited on rank 2") were taken
as the asked ones, "what were they doing" / "where were they in the code" did not ask for frames, a
named script's frames stopped at the deepest one (not the caller line the ranks differ on), and no
answer gave a rank's last logged line or the job's last step line with its time. Now the collateral
ranks' frames (with the script's caller line) are added, and a new step (`answer_lastlog`) quotes
the asked ranks' last own timestamped line and the furthest step line with its time.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "dataloader_worker_killed",
        "what train.py line was rank 2 on vs ranks 1 and 3 when they failed?",
        ["209", "213"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "you said 1 and 3 'waited on rank 2' — what were they actually doing when they died, which line",
        ["all_reduce|reduce_metric", "train.py:144|line 144"],
        [],
    ),
    (
        "nan_loss",
        "you said 0 and 2 'waited on rank 1' — what were they doing when they errored",
        ["backward", "Connection closed by peer|pair.cc:553"],
        [],
    ),
    (
        "disk_full_save",
        "ranks 1-3, where were they in the code when rank 0 blew up",
        ["barrier", "train.py:177|line 177"],
        [],
    ),
    (
        "disk_full_save",
        "what were ranks 1-3 doing while rank 0 was writing the ckpt",
        ["barrier", "pair.cc:553|Connection closed by peer"],
        [],
    ),
    (
        "disk_full_save",
        "you said 1 and 2 'waited on rank 0' — what were they doing",
        ["barrier", "line 177|train.py:177"],
        [],
    ),
    (
        "flight_recorder",
        "rank 2 went quiet - when was the last thing it logged? and which host is it on,"
        " i want dmesg for xids",
        ["03:00:02", "step 40|40/100"],
        [],
    ),
    (
        "flight_recorder",
        "which rank do i look at and what was the last line it logged (time pls)",
        ["rank 2|rank2", "03:00:02"],
        [],
    ),
    (
        "flight_recorder",
        "what was the last thing rank 3 logged",
        ["03:00:03"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "rank 0 shows hang_no_error. what was the last thing it logged and how did it exit",
        ["step 1|1/10", "-15|SIGTERM"],
        [],
    ),
    (
        "segfault",
        "time of the segv vs last training step logged",
        ["21:39:04", "step 1|1/10"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "what's the last step line the ranks printed before 'saving checkpoint'?",
        ["2.4800", "03:03:20"],
        [],
    ),
    (
        "gpu_oom",
        "the gpu-01 ranks, what was their last step and mem_alloc before it went sideways",
        ["2000"],
        [],
    ),
    (
        "xid",
        "the gpu-01 ranks: their last step line before the hang?",
        ["2000"],
        [],
    ),
]
