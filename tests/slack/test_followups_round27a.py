"""Round 27a: yes/no checks of a figure, a time or a fate; a change asked after another ask; the steps
a rerun redoes in the reader's own step.

Why: "the recv timeout was 10 seconds?", "did ranks 0,1,3 hang about ten minutes before timing out?",
"job 991 was killed at 03:10?", "did any rank actually start?" matched no intent and got the list of
example questions: each is asked again as the open question it checks, yes or no first on the figure
or time the reader gave. "The worker on rank 3 segfaulted, right?" on a collateral rank says who did.
"…, and what's the one line I flip in ds_config?", "which config flag is missing?", "what port setting
do I change?" dropped the change: this job's own fix step, naming its setting, is added. "I was at
step 40 of 100, redo everything?" gets the redo counted in the reader's step and whether a save is
logged.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # yes/no on a figure or a time
    ("hang_before_collective", "was the timeout 10 s?", ["Yes", "10 s"], []),
    ("hang_before_collective", "so the watchdog timeout was 30 seconds?", ["No", "10 s"], []),
    ("host_oom_kill", "did ranks 0,1,3 sit for about 10 min before timing out?", ["Yes", "600 s"], []),
    ("time_limit", "slurm cancelled it at 03:05, right?", ["No", "03:11:40"], ["cancelled at 03:05"]),
    ("time_limit", "the job was killed at 03:11?", ["Yes", "03:11:40"], []),
    ("rendezvous_port_in_use", "did a single worker even start?", ["No worker started"], []),
    # a crash put on a collateral rank
    (
        "dataloader_worker_killed",
        "rank 3's dataloader crashed, correct?",
        ["No", "rank 2", "killed"],
        ["rank 3's worker"],
    ),
    # the change asked after another ask
    (
        "zero3_save",
        "is the out/ checkpoint any good, and which ds_config setting do I change before rerunning?",
        ["stage3_gather_16bit_weights_on_model_save", "false"],
        [],
    ),  # guard
    ("fsdp_cpu_save", "what flag was missing in the save config?", ["rank0_only"], []),
    (
        "nan_loss",
        "when did the loss blow up, and what should I change in the config before the rerun?",
        ["step 6", "learning rate"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "anything lost? what do I set in the launch script for the port?",
        ["54661", "--master_port"],
        [],
    ),
    (
        "disk_full_save",
        "what should I add to the job setup so the disk doesn't fill up next time?",
        ["larger volume"],
        [],
    ),
    # the redo, in the reader's step
    (
        "flight_recorder",
        "we were at step 40/100 — do I lose all of it, and which rank do I check first?",
        ["rank 2", "step 40", "redoes all 40"],
        [],
    ),
    (
        "gpu_oom",
        "it reached step 2000 of 6000; how many steps would a rerun redo?",
        ["2000", "no checkpoint save is logged"],
        [],
    ),
]
