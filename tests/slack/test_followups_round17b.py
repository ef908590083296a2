"""Round 17b: judgement asks that were answered with the wrong kind of fact (an SRE and an ML engineer
checking the diagnosis before filing it).

Why: "which code path raised, static or c10d, and the exception class" defined "c10d" instead of
naming the traceback's innermost frame (a launcher's rendezvous failure has no rank and no frame of
the user's code); "why 10 min of nothing after rank 5 died" answered why rank 5 died, not why the
others only failed when their watchdog timed out; "drain rank 2's node" said no without saying the
logs never name that node; "the box's RAM or a cgroup limit?" repeated "host RAM, not GPU memory"
instead of naming the records that decide it (dmesg, sacct/MaxRSS) and whether the job has them;
"num_workers=0: a fix or a debug step?" said "likely, yes"; "hung at step 150 for an hour?" said yes
to the step and let the hour stand against the lines' own times; a terse " n " between two asks hid
the second one.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # which code raised: the innermost frame, its statement and the exception class; the path offered
    (
        "rendezvous_port_in_use",
        "did the static rendezvous or c10d throw this, and which exception class was it?",
        ["The static path, not c10d", "static_tcp_rendezvous.py", "line 67", "TCPStore", "DistNetworkError"],
        ["`c10d`: PyTorch's distributed core"],
    ),
    (
        "nan_loss",
        "show me the guard that raised and its message",
        ["line 207", "ValueError", "Loss is nan"],
        ["To check it, run this"],
    ),
    # why the others went on for the whole timeout, and what async error handling does not change
    (
        "xid",
        "rank 5 was gone at 03:14, why 10 minutes of silence before the rest died? async errors were on",
        ["Timeout(ms)=600000", "600 s", "raised no error on the others", "does not shorten"],
        [],
    ),
    (
        "host_oom_kill",
        "how long until the other ranks gave up?",
        ["ALLGATHER", "Timeout(ms)=600000", "03:24:06", "raised no error on the others"],
        [],
    ),
    # " n " joins two asks: the second is answered too
    (
        "xid",
        "what's an xid 79 n how long till the rest timed out",
        ["fallen off the bus", "600 s"],
        [],
    ),
    # a drain asked for a rank whose node no line names
    (
        "flight_recorder",
        "which box was rank 2 on? we want to drain it",
        ["don't name rank 2's node", "NodeList"],
        [],
    ),
    # the node's RAM against a cgroup limit: what decides it, and which record the job has
    (
        "checkpoint_oom",
        "how would we tell the node running out of memory from a slurm mem limit? is that in these logs?",
        ["Memory cgroup out of memory", "MaxRSS", "no dmesg", "No sacct or MaxRSS line"],
        [],
    ),
    (
        "host_oom_kill",
        "cgroup limit or did the host itself run out of ram?",
        ["names no memory cgroup", "node-gpu-01.dmesg:2"],
        [],
    ),
    # a debug setting weighed as the fix
    (
        "dataloader_worker_killed",
        "dropping to zero dataloader workers: real fix or a workaround?",
        ["A debug step, not the fix", "serial", "The fix for this job"],
        ["Likely, yes"],
    ),
    # a stall's length claimed against the lines' own times
    (
        "time_limit",
        "so it was stuck at step 150 for two hours until the time limit?",
        ["No, not two hours", "100 s", "step 150"],
        ["Yes: the last step"],
    ),
]
