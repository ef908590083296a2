"""Round 10b (facts and job-fitted commands, held-out batch 30), answered by class in new phrasings.

The versions a job prints at start-up (`torch 2.5.1+cu124, deepspeed 0.16.2, NCCL 2.21.5`) are kept as
run facts and said when asked, with the driver from the node's kernel log; a version never printed is
said to be missing. "When did it actually get stuck" gets the stalled rank's last line (time and step)
and when the watchdog's wait began. A rank whose node no line names gets how to find it, and what to
grep in dmesg there. The meaning of a collective's `#N`, asked with where the others were on it, gets
the Flight Recorder dumps' states. "Pid … and what was it doing" gets the launcher's pid and the phase.
"What do I rerun to see more" gets the category's switch (`num_workers=0`, `set_detect_anomaly`,
`PYTHONFAULTHANDLER=1` and gdb) and the rank whose log to watch; "which dir do I df" the save's
directory in a `df -h` command.
Each answer must state the job's fact, and never the opposite.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # 1. versions the ranks printed, and the node's driver
    ("gpu_oom", "what torch/deepspeed version was the image on?", ["2.5.1", "0.16.2"], ["No PyTorch"]),
    ("gpu_oom", "nccl ver?", ["2.21.5"], ["No NCCL"]),
    ("gpu_oom", "what driver and cuda versions is gpu-02 on", ["550.90.07", "12.4"], []),
    ("nan_loss", "which deepspeed version did this run", ["No DeepSpeed version"], ["0.16"]),
    # 2. when the hang began: the stalled rank's last line, and the watchdog's wait start
    (
        "flight_recorder",
        "the watchdog fired at 03:10, but since when was it actually hung?",
        ["03:00:02", "step 40", "began waiting at about 03:00:00"],
        [],
    ),
    # 3. a rank on an unnamed node: how to find it, and the dmesg to grep there
    (
        "flight_recorder",
        "what machine was r2 running on, need to check the kernel log there",
        ["don't say which node", "NodeList", "dmesg -T"],
        [],
    ),
    # 4. `#N` with where the others were on it: the dumps' states
    (
        "flight_recorder",
        "what's #5 in 'never entered all_reduce #5' and the state the other ranks were in on it?",
        ["sequence number", "started", "#4 in default_pg (completed)"],
        [],
    ),
    (
        "flight_recorder",
        "explain the #5 in 'never entered all_reduce #5' and the state everyone else was in on it",
        ["sequence number", "(started)"],
        [],
    ),
    # 5. the failing process's pid with what it was doing
    ("checkpoint_oom", "what was the dying process's pid and what was it doing", ["23264", "saving"], []),
    # 6. what to rerun with to see more, and whose log to watch
    (
        "dataloader_worker_killed",
        "how do i relaunch so the worker's actual exception surfaces",
        ["num_workers=0", "rank 2"],
        [],
    ),
    (
        "nan_loss",
        "how do I turn on autograd anomaly detection for the rerun",
        ["set_detect_anomaly", "rank 1"],
        [],
    ),
    (
        "segfault",
        "rerun with what so I can see the actual crash stack?",
        ["PYTHONFAULTHANDLER=1", "gdb", "watch rank 3's log"],
        [],
    ),
    # 7. where to check the free space: the save's directory
    ("disk_full_save", "where should I run df to see if the disk is full", ["df -h", "/checkpoints"], []),
]
