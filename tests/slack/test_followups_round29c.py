"""Round 29c: a skeptic's "couldn't it be <another cause> instead? what rules it out / what would change
your mind / show me the line", and "when did it die relative to training progress".

Why: a challenge is answered with this job's evidence against the alternative it names — the exit code
a kernel kill would have left, the file the save was writing and the check that tells a full disk from a
flaky mount, the save frames and time that a training-step leak would not have, the one node the ranks
shared, the frame the bind failed in, the scheduler's own reason and the sacct fields that confirm it,
the failing rank's own error — and what would change the verdict; not a ranking or the help reply.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "checkpoint_oom",
        "did the kernel OOM killer fire here? what would change your mind about the diagnosis",
        ["dmesg", "exitcode: 1|exit code 1|exitcode  : 1|MaxRSS|sacct"],
        [],
    ),
    (
        "checkpoint_oom",
        "are you sure the oom killer didn't just kill it?",
        ["exitcode: 1|exit code 1|exitcode  : 1|MaxRSS|sacct"],
        [],
    ),
    (
        "disk_full_save",
        "couldn't it be a flaky NFS / network filesystem instead of a full disk? what would change your mind",
        ["df -h|df|quota|dmesg", "checkpoint-4.pt|/tmp/realjob-disk_full_save"],
        [],
    ),
    (
        "disk_full_save",
        "how do you know it's not a flaky nfs mount?",
        ["df -h|quota", "checkpoint-4.pt|/tmp/realjob-disk_full_save"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "couldn't it be a normal training-step leak that happened to coincide with the save? timing?",
        [
            "saving checkpoint at step 50|step 50",
            "03:05:38|03:05:39|03:05:00",
            "offload_to_cpu=True|FULL_STATE_DICT",
        ],
        [],
    ),
    (
        "fsdp_cpu_save",
        "how do you know it was the save and not a memory leak in training?",
        ["step 50", "offload_to_cpu=True|FULL_STATE_DICT"],
        [],
    ),
    (
        "hang_before_collective",
        "couldn't it be the network? everything timed out on recv",
        ["127.0.0.1|localhost|single node|one node", "rank 3|rank3"],
        [],
    ),
    (
        "desync",
        "couldnt it be the network instead?",
        ["rank"],
        ["I can answer from this job's facts"],
    ),  # guard
    (
        "rendezvous_port_in_use",
        "is this the master port clash in the TCPStore or something in NCCL init?",
        ["TCPStore|static_tcp_rendezvous|next_rendezvous", "54661"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "could it be nccl init failing rather than the tcpstore?",
        ["TCPStore|static_tcp_rendezvous|next_rendezvous", "54661"],
        [],
    ),
    (
        "segfault",
        "how sure are you, given there's no native stack at all? what would change your mind",
        ["faulthandler|gdb|core dump|coredump|PYTHONFAULTHANDLER|catchsegv", "dmesg"],
        [],
    ),
    ("segfault", "how far into training was it when it crashed?", ["step 1|first step"], []),  # guard
    (
        "time_limit",
        "how do you know it wasn't a hang that just ran into the limit? last step to kill time?",
        ["03:10:00|step 150", "03:11:40"],
        [],
    ),
    (
        "time_limit",
        "show me the line that says it was slurm. was any rank at fault?",
        ["slurm-991.log|DUE TO TIME LIMIT", "no rank|none of the ranks|not a rank|scheduler"],
        [],
    ),
    (
        "time_limit",
        "couldn't a node failure on gpu-01 cause the cancel instead?",
        ["TIME LIMIT|time limit", "sacct|Timelimit|Elapsed"],
        [],
    ),
    (
        "time_limit",
        "are you sure gpu-01 didn't just die? a node crash?",
        ["TIME LIMIT|time limit", "sacct|Timelimit|Elapsed"],
        [],
    ),
    (
        "xid",
        "couldn't this be a network issue between gpu-01 and gpu-02? what rules that out",
        ["node-gpu-02.dmesg|dmesg", "0000:3b:00|3b:00", "unspecified launch failure"],
        [],
    ),
    (
        "zero3_save",
        "couldn't this just be a regular training-step OOM on rank 0? how sure are you it's the save",
        [
            "_zero3_consolidated_16bit_state_dict|save_model|Saving model checkpoint",
            "03:08:20",
            "p.clone()|param_list",
        ],
        [],
    ),
    (
        "zero3_save",
        "how do you know it wasn't an ordinary training step oom?",
        ["p.clone()|param_list|_zero3_consolidated_16bit_state_dict"],
        [],
    ),  # guard
]
