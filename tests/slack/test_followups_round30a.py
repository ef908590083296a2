"""Round 30a: the on-call's routing asks — "platform issue or ours, who needs to hear about it?",
"should I take the host out of rotation?", "torchrun's summary blames rank 0, do we ignore that?",
"anything else in these logs to worry about, security?", "next time how do we get proof where rank 3
is stuck?".

Why: an infrastructure engineer or a manager asks whose side a failure is on (platform, scheduler, node,
box against the job's own code) and whom to tell; the answer is the hardware verdict with the job's
own line and whose move it is, not the help reply or the runner-up list. Taking a node out of rotation
is the drain question. A launcher that "blames" a rank is the launcher's first-observed rank, checked
against the rank that failed first. A security worry is the secrets check. Proof of a hang next time is
a stack dump of the silent rank.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # whose side: platform / scheduler / node against the job
    (
        "nan_loss",
        "is any of this a platform thing or purely on the modeling side? who needs to hear about it",
        ["Loss is nan|ValueError", "rank 1|rank1"],
        [],
    ),
    (
        "time_limit",
        "our problem or the scheduler's — need to tell the HPC team anything?",
        ["time limit|TIME LIMIT|--time", "991|gpu-01"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "platform issue or ours? who actually killed the worker",
        ["22194", "dmesg|kernel log"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "gpu-01 dmesg shows an oom kill at 03:05 — node problem or job problem?",
        ["rank0_only|rank0_only=True", "3312"],
        [],
    ),
    (
        "checkpoint_oom",
        "is this a too-small box problem or our save code? point me at the line",
        ["174", "full_state_dict|get_state_dict"],
        [],
    ),
    (
        "gpu_oom",
        "infra problem or ours? does the platform team need to know",
        ["out of memory|OOM", "rank 5"],
        [],
    ),
    ("xid", "cluster problem or ours?", ["Xid", "gpu-02"], []),
    (
        "disk_full_save",
        "do we need to tell the storage team or is this on us?",
        ["inline_container|unexpected pos|disk", "rank 0"],
        [],
    ),
    # out of rotation = drain
    (
        "dataloader_worker_killed",
        "should i take the host out of rotation",
        ["DataLoader worker|dataloader worker|22194", "Killed|SIGKILL|signal 9"],
        [],
    ),
    ("xid", "do we pull gpu-02 out of rotation?", ["Xid", "gpu-02"], []),
    # the launcher's blame
    (
        "desync",
        "torchrun blamed rank 0, pid 20603. is that the one i should look at",
        ["rank 3|rank3", "broadcast|train.py:142|line 142"],
        [],
    ),
    (
        "hang_before_collective",
        "torchrun's failure summary blames rank 0, do we ignore that?",
        ["rank 3|rank3", "first observed|first process|exited first|first to exit|first it saw"],
        [],
    ),
    (
        "hang_before_collective",
        "the launcher points at rank 0 — should we chase that one?",
        ["rank 3|rank3", "first observed|first process|first to exit|first it saw"],
        [],
    ),
    # security worry
    (
        "gpu_oom",
        "anything else in these logs I should be worried about, security or otherwise? need to know if "
        "another team gets told",
        ["HF_TOKEN|token", "rank5.log|rank 5|rank5|03:13:58"],
        [],
    ),
    ("gpu_oom", "any security concerns in these logs?", ["HF_TOKEN|token", "rank5.log"], []),
    # proof of a hang next time
    (
        "hang_before_collective",
        "next time how do we get proof of where rank 3 is stuck, and how long would that test take",
        ["py-spy|TORCH_DISTRIBUTED_DEBUG|faulthandler|stack", "rank 3|rank3"],
        [],
    ),
    (
        "hang_before_collective",
        "how do we prove where rank 3 hangs next time?",
        ["py-spy|faulthandler|stack", "rank 3|rank3"],
        [],
    ),
    # someone else holding the port
    (
        "rendezvous_port_in_use",
        "whose fault is this — someone else's job squatting on our port? how do I find out",
        ["54661", "ss -ltnp|ss -ltn|lsof|netstat"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "is another process holding our port?",
        ["54661", "ss -ltnp|lsof"],
        [],
    ),  # guard
    # the kernel log before the node goes back
    (
        "disk_full_save",
        "should i check dmesg on the box for I/O errors before putting it back",
        ["dmesg -T|kernel log|dmesg", "df -h|df -i|quota"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "do i need to look at dmesg before returning gpu-01 to the pool?",
        ["dmesg", "3312", "rank0_only"],
        [],
    ),
    (
        "nan_loss",
        "is this us or the cluster, who do i ping",
        ["Loss is nan|ValueError", "job owner"],
        [],
    ),  # guard
]
