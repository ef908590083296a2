"""Round 34c: held-out asks (batches 91-100) on host_oom_kill, xid, dataloader_worker_killed and
segfault — a pid the kernel printed held against the rank's own NCCL pid, the rank's own error line
when the kernel's is not wanted, a term and whether it is the user's code, the launch set-up (launcher,
MASTER_ADDR/PORT, versions, ZeRO config, world size, steps), the order of the launcher's lines with
their exact times, the pids the launcher SIGTERMed, where the collateral ranks were in the loop and
what shows they waited, a restructure of the data code tied to the line that shows the cause.

Why: each of these asks was answered by a neighbouring kind (the initiating rank's summary, a term's
glossary line, the node's kernel lines, the help text) that left out the one fact the asker reads:
the answer now quotes this job's lines for it.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # xid
    ("xid", "xid pid is 45121 - is that actually rank 5s proc?", ["4521"], ["45121 is rank 5"]),
    (
        "xid",
        "the Xid line says pid=45121. does that pid belong to rank 5?",
        ["4521", "bus id"],
        ["45121 is rank 5"],
    ),
    (
        "xid",
        "couldn't it be a CUDA kernel bug, illegal memory access type thing? rank 5 just says launch failure",
        ["unspecified launch failure", "79"],
        [],
    ),
    (
        "xid",
        "rank 5 only logged a CUDA error. could that be a bug in our kernels rather than the hardware?",
        ["unspecified launch failure", "79"],
        [],
    ),
    (
        "xid",
        "what is 'Xid 79'? is it something in my code",
        ["fallen off the bus|fell off the bus", "hardware|PCIe"],
        [],
    ),
    (
        "xid",
        "Xid 79 - does that point at my training code?",
        ["fallen off the bus|fell off the bus", "hardware|PCIe"],
        [],
    ),
    ("xid", "rank 5 own log say what error? not dmesg, the rank log", ["unspecified launch failure"], []),
    ("xid", "what error did rank 5 itself print in its own log?", ["unspecified launch failure"], []),
    ("xid", "launcher, master addr/port for the relaunch on healthy nodes?", ["deepspeed", "29500"], []),
    (
        "xid",
        "which MASTER_ADDR and port did the ranks rendezvous on?",
        ["gpu-01", "29500"],
        ["No port appears in this job's kept lines", "MASTER_ADDR is not shown"],
    ),
    (
        "xid",
        "what do I run to make sure the gpu is healthy before putting gpu-02 back in the pool",
        ["dcgmi diag|dcgmi", "nvidia-smi"],
        [],
    ),
    (
        "xid",
        "how do I test gpu-02 before it goes back into service?",
        ["dcgmi diag|dcgmi", "nvidia-smi"],
        [],
    ),
    # host_oom_kill
    (
        "host_oom_kill",
        "Rank 2 was building an index right before the kill. Why is that a problem and how should I"
        " restructure the dataset code?",
        ["1.2B", "memory-map|stream"],
        [],
    ),
    (
        "host_oom_kill",
        "how should I rewrite the data loading so that index doesn't blow up host RAM again?",
        ["1.2B", "memory-map|stream"],
        [],
    ),
    (
        "host_oom_kill",
        "Which collective were the surviving ranks stuck in, and why did they take ten minutes to notice?",
        ["ALLGATHER", "600000|600012"],
        [],
    ),
    (
        "host_oom_kill",
        "why did it take 10 minutes for ranks 0, 1 and 3 to notice rank 2 was gone?",
        ["600000|600012"],
        [],
    ),
    (
        "host_oom_kill",
        "are you sure it isn't dataloader workers? those alternatives weren't far behind. what points"
        " at something else",
        ["in-memory index|1.2B", "0.6"],
        [],
    ),
    (
        "host_oom_kill",
        "why not the too-many-dataloader-workers one? it scored close",
        ["in-memory index|1.2B", "scored 0."],
        [],
    ),
    ("host_oom_kill", "only one nó in this job? which", ["gpu-01"], []),
    ("host_oom_kill", "was this a single node job? which host", ["gpu-01"], []),
    (
        "host_oom_kill",
        "how many ranks is this job even?? the launch lines say one thing and the NCCL init line says"
        " another",
        ["world_size=4", "world 8"],
        [],
    ),
    (
        "host_oom_kill",
        "4 ranks or 8? the logs don't agree on the number of processes",
        ["world_size=4", "world 8"],
        [],
    ),
    (
        "host_oom_kill",
        "versions + deepspeed config this run had?",
        [
            "2.5.1",
            "stage3_gather_16bit_weights_on_model_save=true|offload_optimizer=none|zero_optimization.stage=3",
        ],
        [],
    ),
    (
        "host_oom_kill",
        "torch version and zero settings of this run?",
        ["2.5.1", "zero_optimization.stage=3"],
        [],
    ),
    (
        "host_oom_kill",
        "what MASTER_ADDR and MASTER_PORT did it use",
        ["gpu-01", "29500"],
        ["MASTER_ADDR is not shown"],
    ),
    (
        "host_oom_kill",
        "rendezvous host and port?",
        ["gpu-01", "29500"],
        ["No port appears in this job's kept lines"],
    ),
    # segfault
    (
        "segfault",
        "Where were the surviving ranks in the training loop when they lost their peer?",
        ["backward", "209"],
        [],
    ),
    (
        "segfault",
        "what were ranks 0 and 2 executing in train.py when rank 3 crashed?",
        ["backward", "209"],
        [],
    ),
    (
        "segfault",
        "order of events pls. In the agent log, do the SIGTERMs come before or after the line"
        " reporting rank 3's -11? exact timestamps",
        ["21:39:04.331|04.331|04,331", "21:39:04.729|04.729"],
        [],
    ),
    (
        "segfault",
        "exact times: when did torchrun send the SIGTERMs and when did it log rank 3's failure?",
        ["21:39:04.331|04.331|04,331", "21:39:04.729|04.729"],
        [],
    ),
    (
        "segfault",
        "Blast radius: pids of the workers torchrun SIGTERMed after the segfault, and their exit codes.",
        ["24100|24101|24102", "-15|SIGTERM"],
        [],
    ),
    (
        "segfault",
        "which worker pids did the agent terminate, and with what exit code?",
        ["24100|24101|24102", "-15|SIGTERM"],
        [],
    ),
    (
        "segfault",
        "Are you sure rank 3 segfaulted first? The SIGTERM lines show up before its failure line in the log.",
        ["04.331|21:39:04.331", "04.729|21:39:04.729"],
        [],
    ),
    (
        "segfault",
        "the launcher terminated the others before it even logged rank 3's -11, so how is rank 3 first?",
        ["04.331|21:39:04.331", "04.729|21:39:04.729"],
        [],
    ),
    # dataloader_worker_killed
    (
        "dataloader_worker_killed",
        "Ranks 1 and 3 died inside reduce_metric. Do I need to change that function, or are they just"
        " victims?",
        ["all_reduce", "rank 2|rank2"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "should I fix reduce_metric? ranks 1 and 3 crashed in it",
        ["all_reduce", "rank 2|rank2"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "whats the evidence ranks 1 and 3 were waiting on rank 2 and not the other way round?",
        ["all_reduce|reduce_metric", "Connection closed by peer|closed by peer"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "how do you know rank 2 wasn't the one waiting on ranks 1 and 3?",
        ["all_reduce|reduce_metric", "Connection closed by peer|closed by peer"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "rank 0 has nothing in stderr but it did log steps. what's rank 0's last line compared to what"
        " rank 2 died with?",
        ["step 1/10", "killed by signal: Killed|DataLoader worker (pid 22194)"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "what was the last thing rank 0 logged, next to rank 2's error?",
        ["step 1/10", "killed by signal: Killed|DataLoader worker (pid 22194)"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "which ranks were stuck in the allreduce and which one was somewhere else when it died",
        ["rank 1|rank1|ranks 1|1 and 3|1,3|1, 3", "backward", "all_reduce|allreduce"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "who was in all_reduce and where was rank 2 at that point?",
        ["rank 1|rank1|ranks 1|1 and 3|1,3|1, 3", "backward", "all_reduce|allreduce"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "launch details for the repro: launcher, world size, number of steps?",
        ["torchrun", "world size 4|4 ranks|nproc_per_node 4|nproc_per_node=4|4 processes|four", "10 steps"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "to reproduce: how was it launched, how many processes and how many steps?",
        ["torchrun", "world size 4|4 ranks|nproc_per_node 4|nproc_per_node=4|4 processes|four", "10 steps"],
        [],
    ),
]
