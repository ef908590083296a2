"""Round 30b: the job's configuration asked as such — launcher and its command line, interpreter and
venv, script name and total steps, environment variables, core dump / faulthandler output, the last
step / loss / lr, which node ran which ranks, DataLoader workers, the other ranks' timeout time, a
ZeRO setting's value ("4 procs via torchrun, right?", "python binary / venv path?", "which env vars
were set?", "num_workers=4 I thought").

Why: these asks got the usual cause, a verify command or the rank count, and left the value out.
Each value comes from the diagnosis (run facts: launcher, world size, ranks' nodes and last step
lines; a kept traceback's paths: interpreter, script; the step lines: total steps, lr; the settings
lines: ZeRO stage, offload); a value no kept line shows is said to be missing, with where to read it.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "checkpoint_oom",
        "sanity check before I rerun: this was 4 procs on one box via torchrun, right? what world size did "
        "the script actually report",
        ["4", "torchrun", "localhost|single node|one node|1 node"],
        [],
    ),
    (
        "checkpoint_oom",
        "was this nccl or gloo? and can u paste the exact torchrun cmdline we launched with",
        [
            "gloo",
            "not in the logs|not logged|not shown|not recorded|not printed",
            "shell history|job script|launch script|submit script|sbatch",
        ],
        ["backend was nccl", "used nccl", "nccl backend"],
    ),
    ("segfault", "what launcher started this, torchrun or srun?", ["torchrun"], []),
    (
        "dataloader_worker_killed",
        "how many dataloader workers were we running per rank? I thought num_workers=4",
        [
            "not in the logs|not logged|not shown|not recorded|not printed",
            "DataLoader(|train.py|dataloader config",
        ],
        [],
    ),
    (
        "dataloader_worker_killed",
        "python binary / venv path the launcher used? want to confirm it wasnt the system python",
        ["/work/main/.venv"],
        [],
    ),
    ("segfault", "python version for the venv? traceback paths should show it", ["3.11|python3.11"], []),
    ("disk_full_save", "which interpreter ran this, a venv or the system one?", ["/work/main/.venv"], []),
    (
        "disk_full_save",
        "script name + total steps configured? want to make sure this was the 10-step smoke test "
        "and not the real run",
        ["train.py", "10 steps|/10"],
        [],
    ),
    (
        "hang_before_collective",
        "what was the script name and how many steps in total?",
        ["train.py", "10 steps"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "step number + lr at the time of the checkpoint?",
        ["step 50|50", "3.0e-04|3e-4|0.0003"],
        [],
    ),
    (
        "time_limit",
        "last step / loss / lr logged before cancel? want to know where to resume",
        ["150", "2.4400|2.44", "3.0e-04|3e-4|0.0003"],
        [],
    ),
    (
        "hang_before_collective",
        "which backend + world size, and whats the last step rank0 printed",
        ["gloo", "4", "step 3"],
        [],
    ),
    ("segfault", "step reached + world size?", ["step 1|1/10", "4"], []),
    ("zero3_save", "what step were we at, and the lr?", ["step 100", "3.0e-04"], []),  # guard
    (
        "gpu_oom",
        "we ran 8 ranks on 2 nodes, 4 per node right? which node had which ranks",
        ["gpu-01", "gpu-02", "4"],
        [],
    ),
    ("xid", "which ranks were on which node?", ["gpu-01", "0-3", "gpu-02", "4-7"], []),
    (
        "zero3_save",
        "whats the world size and node layout? rank logs dont seem to say how many nodes",
        [
            "8",
            "not in the logs|not logged|not shown|not recorded|not printed",
            "sacct|scontrol|hostfile|NodeList",
        ],
        [],
    ),
    (
        "hang_before_collective",
        "which env vars were set for this job? NCCL_DEBUG, TORCH_DISTRIBUTED_DEBUG etc",
        [
            "not in the logs|not logged|not shown|not recorded|not printed",
            "/proc/|printenv|launch script|job script",
        ],
        [],
    ),
    (
        "desync",
        "was NCCL_DEBUG set for this run?",
        [
            "NCCL_DEBUG",
            "not in the logs|not logged|not shown|not recorded|not printed",
        ],
        [],
    ),
    (
        "xid",
        "confirm: 8 ranks, NCCL timeout 10min, async error handling on?",
        ["8", "600000|600 s|10 min", "ASYNC_ERROR_HANDLING"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "what rdzv backend + nnodes were passed? want to see the full torchrun args",
        [
            "not in the logs|not logged|not shown|not recorded|not printed",
            "launch script|job script|shell history|submit script|sbatch",
        ],
        [],
    ),
    (
        "segfault",
        "is there a core dump path or faulthandler output in the logs?",
        ["no core|no faulthandler", "coredumpctl|PYTHONFAULTHANDLER|gdb"],
        [],
    ),
    ("nan_loss", "did it leave a core dump anywhere?", ["no core", "ulimit -c"], []),
    (
        "host_oom_kill",
        "deepspeed zero stage + model in this job? and was optimizer offload on (would explain host ram)",
        ["stage=3", "offload_optimizer=none"],
        [],
    ),
    ("gpu_oom", "what zero stage was this, any offload?", ["stage=3", "offload_optimizer=none"], []),
    (
        "zero3_save",
        "was stage3_gather_16bit_weights_on_model_save on? the trace goes through "
        "_zero3_consolidated_16bit_state_dict",
        ["_zero3_consolidated_16bit_state_dict|consolidat", "implies|must be|true"],
        [],
    ),
    ("zero3_save", "timeout that the other ranks hit, and when?", ["600000|600 s|10 min", "03:18:20"], []),
]
