"""Round 9 (routing side, held-out batches 28 and 29), answered by class in new phrasings.

A node action asked about (reboot, power-cycle, swap) gets yes or no first: no for a software failure,
not yet for a failure the hardware may be behind, yes with the reboot step for a hardware Xid; "is it
hardware?" for a software failure says "not a hardware problem" and "no Xid" plainly; a bare "which setting?"
after a statement of what broke gets the fix; "was the checkpoint saved?" about a save the failure cut
short says it did not complete; "what was the time limit?" says the limit is not logged, how to read
it and how long the job ran; "what's wrong in my <function>" gets the cause with the code line;
named ranks that "show errors too" are said to be collateral; a bare "network? the switch?" or
"network or our code?" is checked against the verdict (the desync: your code); "did rank N print
anything?" gets what it printed and that no error was among it.
Each answer must state the job's fact, and never the opposite.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # 1. a node action for a software failure: no, and not hardware
    (
        "gpu_oom",
        "cuda oom on rank 5. power cycle gpu-02?",
        ["no need to power-cycle", "not a hardware problem"],
        [],
    ),
    (
        "checkpoint_oom",
        "host ran out of ram. swap the node?",
        ["no need to swap", "not a hardware problem"],
        [],
    ),
    ("disk_full_save", "do we need to reboot the box after this?", ["no need to reboot"], ["yes"]),
    # ... for a rank that went silent the hardware is still open: not yet, check for an Xid first
    ("hang_before_collective", "reboot localhost?", ["not on this evidence", "xid"], ["no need to"]),
    # ... for a hardware Xid: yes, with the entry's reboot step
    ("xid", "does gpu-02 need a reboot before it goes back?", ["yes: reboot", "burn-in"], ["no need"]),
    ("xid", "gpu fell off the bus. power-cycle it?", ["power-cycle", "xid 79"], ["no need"]),
    # 2. "is it hardware?" for a software failure: plainly not, no Xid
    ("zero3_save", "is gpu 0 faulty? any xid?", ["not a hardware problem", "no xid"], ["likely hardware"]),
    ("checkpoint_oom", "hardware problem on the host?", ["not a hardware problem"], ["likely hardware"]),
    # 3. a bare "which setting?" after what broke: the fix
    ("fsdp_cpu_save", "it trained 50 steps then died saving. which setting?", ["rank0_only"], []),
    ("gpu_oom", "it ran 2000 steps then oomed. what flag?", ["micro-batch"], []),
    ("host_oom_kill", "host ram blew up mid epoch - which setting", ["num_workers", "--mem"], []),
    # 4. was the checkpoint the failure cut short saved?
    (
        "checkpoint_oom",
        "did checkpoint-6 get saved or do I fall back to an earlier one?",
        ["checkpoint-6", "did not finish", "partial"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "did the step 50 checkpoint get persisted, or should I roll back?",
        ["step 50", "did not finish", "partial"],
        [],
    ),
    # 5. the time limit's value: not logged; where to read it; how long the job ran
    (
        "time_limit",
        "how long was the walltime we asked for?",
        ["not in the logs", "timelimit", "11 min 36 s"],
        [],
    ),
    (
        "time_limit",
        "whats the --time value on this job, and how much longer do we need?",
        ["not in the logs", "sacct -j 991", "step 150"],
        ["out-of-memory"],
    ),
    ("gpu_oom", "what was the --time on this one?", ["not in the logs", "not what ended"], []),
    # 6. what is wrong in the user's code: the cause, with the code line
    (
        "fsdp_cpu_save",
        "what is wrong with my save code?",
        ["rank0_only", "train.py line 301", "8 copies"],
        [],
    ),
    ("checkpoint_oom", "what's broken in save_checkpoint?", ["full copy", "4 copies", "line 174"], []),
    # 7. named ranks that show errors too: collateral
    ("desync", "ranks 0-2 also have tracebacks, should I dig into them?", ["collateral"], []),
    ("nan_loss", "rank 0 and 2 show errors as well, do they matter?", ["collateral"], []),
    # 8. a bare network guess, or the network against the code
    ("desync", "gloo recv timed out on every rank. the fabric?", ["not the network", "all_reduce"], []),
    ("flight_recorder", "every rank timed out after 600s. fabric? check cables?", ["not the network"], []),
    ("desync", "the interconnect or our own code?", ["your code", "broadcast", "all_reduce"], []),
    # 9. did the silent rank print anything?
    ("flight_recorder", "rank 2 went quiet — did it log anything at all?", ["step 40", "no error"], []),
    (
        "hang_before_collective",
        "did rank 3 write anything before it stopped?",
        ["starting training", "no error"],
        [],
    ),
]
