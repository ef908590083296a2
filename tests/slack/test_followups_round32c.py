"""Round 32c: asks for the launcher's, the scheduler's and the GPU's own ids and times — "torchrun agent
pid + time of the teardown", "give me the pids", "what exit codes did the 4 procs get", "static rdzv or
c10d?", "node + job/step id so i can sacct it", "how long did srun wait", "which local gpu index was
rank 5 on", "dmesg pid=45121 vs 4521 - same process?", "anything in dmesg before the xid?".

Why: these facts sit in torchrun's glog lines (`W1201 21:44:00.641000 32010 torch/distributed/elastic/…
Sending process … closing signal SIGTERM`), its failure summary, the rendezvous frames of its traceback,
slurmstepd's and srun's lines and the node's kernel log, not in any rank's error, so the answer about
the failure left them out (knowledge/answer_agent.py, knowledge/answer_gpu_ids.py add them when asked).
A local GPU index no kept line prints is inferred from the node's contiguous ranks and said to be so.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "checkpoint_oom",
        "give me the pids. which one died on its own and which ones did torchrun SIGTERM",
        ["23264", "23263", "23266"],
        [],
    ),
    ("disk_full_save", "torchrun agent pid and the failing child pid?", ["21741", "21749"], []),
    ("hang_before_collective", "torchrun agent pid + time of the teardown", ["32010", "21:44:00"], []),
    (
        "rendezvous_port_in_use",
        "static rdzv or c10d? where exactly did it blow up",
        ["static_tcp_rendezvous|static", "TCPStore"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "which rendezvous backend was torchrun using, static or c10d?",
        ["static_tcp_rendezvous|static TCP|static rendezvous|static_tcp|static tcp"],
        [],
    ),
    ("time_limit", "node + job/step id so i can sacct it", ["991.0", "gpu-01"], []),
    (
        "time_limit",
        "what signal did the torchrun agent get and how long did srun wait for the step",
        ["15|SIGTERM", "32 seconds|32 s|32s"],
        [],
    ),
    ("dataloader_worker_killed", "what time did torchrun start SIGTERMing the other ranks", ["21:37:15"], []),
    (
        "desync",
        "when did the launcher give up and what exit codes did the 4 procs get",
        [
            "21:36:22",
            "exitcode: 1|exit code 1|exitcode 1|exit code: 1|exited with 1|exit 1",
        ],
        [],
    ),
    (
        "xid",
        "bus id / index of the dead gpu?",
        ["0000:3b:00|3b000|3b:00", "nvmlDev 1|cudaDev 1|index 1|GPU 1|local_rank 1|local_rank=1|device 1"],
        [],
    ),
    (
        "xid",
        "dmesg says pid=45121 but the NCCL init line for rank 5 shows 4521 - same process?",
        ["45121", "4521"],
        [],
    ),
    (
        "xid",
        "driver version on gpu-02, and anything in dmesg before the xid?",
        ["550.90.07", "fallen off the bus|Xid 79|79"],
        [],
    ),
    (
        "gpu_oom",
        "which node + local gpu index was rank 5 on",
        ["gpu-02", "local_rank=1|local_rank 1|local rank 1|local_rank: 1|cuda:1|local_rank=1"],
        [],
    ),
    (
        "nan_loss",
        "could a flaky gpu be spitting nans? which rank/pid threw, any hw evidence at all?",
        ["rank 1|rank1", "21428"],
        [],
    ),
    (
        "nan_loss",
        "bot has rank 3 as hang_no_error. was it actually hung? what happened to it",
        ["SIGTERM|-15|signal 15", "21430"],
        [],
    ),
    ("segfault", "what was the torchrun agent's pid", ["23978"], []),
    ("dataloader_worker_killed", "when did the launcher start tearing the job down", ["21:37:15"], []),
    ("checkpoint_oom", "exit codes for each rank?", ["23263", "23264", "23265", "23266"], []),
    ("gpu_oom", "which local gpu index was rank 2 on", ["local_rank 2"], []),
    ("xid", "anything in the kernel log before the Xid?", ["02:00:42|loading NVIDIA"], []),
    ("time_limit", "give me the step id for sacct", ["991.0"], []),
]
