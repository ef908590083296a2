# ruff: noqa: E501, RUF005
"""Multi-rank job logs written from realistic lines, for the golden scenario tests.

Each builder writes one job's files into a folder and returns it. The lines follow what PyTorch,
torchrun, NCCL, DeepSpeed, Slurm and the NVIDIA driver really print; the numbers are made up.
"""

from __future__ import annotations

from pathlib import Path

BUS = ["1b000", "1c000", "18000", "3d000", "9b000", "a0000", "c5000", "ca000"]


def ts(sec: int, ms: int = 0) -> str:
    """`[2026-11-20 03:MM:SS,mmm]` counted from 03:00:00."""
    h, rem = divmod(3 * 3600 + sec, 3600)
    m, s = divmod(rem, 60)
    return f"[2026-11-20 {h:02d}:{m:02d}:{s:02d},{ms:03d}]"


def training(rank: int, steps: int, start: int = 0, every: int = 4) -> list[str]:
    return [
        f"{ts(start + i * every)} [INFO] [trainer.py:2241:_inner_training_loop] step {i} "
        f"loss {2.5 - i * 0.0004:.4f} lr 3.0e-04 grad_norm 0.91"
        for i in range(1, steps + 1)
    ]


def nccl_init(rank: int, world: int, host: str) -> list[str]:
    dev = rank % 8
    return [
        f"{host}:{2000 + rank}:{2000 + rank} [{dev}] NCCL INFO cudaDriverVersion 12040",
        f"{host}:{2000 + rank}:{2100 + rank} [{dev}] NCCL INFO comm 0x5581f2c0 rank {rank} nranks {world} "
        f"cudaDev {dev} nvmlDev {dev} busId {BUS[dev]} commId 0x9a1c2d3e4f - Init COMPLETE",
    ]


def watchdog(rank: int, when: str, seq: int = 4512, op: str = "ALLREDUCE") -> list[str]:
    return [
        f"[rank{rank}]:[E{when} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation "
        f"timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) "
        "ran for 600012 milliseconds before timing out.",
        f"[rank{rank}]:[E{when} ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {rank}] Exception (either an "
        f"error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {seq}, last "
        f"completed NCCL work: {seq - 1}.",
        f"[rank{rank}]:[E{when} ProcessGroupNCCL.cpp:630] [Rank {rank}] Some NCCL operations have failed or "
        "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
        "corrupted/incomplete data.",
        f"[rank{rank}]:[E{when} ProcessGroupNCCL.cpp:636] [Rank {rank}] To avoid data inconsistency, we are "
        "taking the entire process down.",
    ]


def gpu_oom(rank: int, frames: list[str] | None = None) -> list[str]:
    frames = frames or ['  File "/workspace/train.py", line 412, in training_step', "    loss.backward()"]
    return [
        f"[rank{rank}]: Traceback (most recent call last):",
        *(f"[rank{rank}]: {f}" for f in frames),
        f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {rank % 8} "
        "has a total capacity of 79.15 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this "
        "process has 78.11 GiB memory in use. Of the allocated memory 74.20 GiB is allocated by PyTorch.",
    ]


def write(folder: Path, name: str, lines: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def oom_then_watchdog(folder: Path, ranks: int = 8, culprit: int = 5) -> Path:
    """Rank `culprit` OOMs at 03:14:02; every other rank hits the NCCL watchdog at 03:24:02."""
    for r in range(ranks):
        lines = training(r, 200)
        if r == culprit:
            lines += [f"{ts(842, 100)} [INFO] [trainer.py:2241:_inner_training_loop] step 211 forward"]
            lines += gpu_oom(r)
        else:
            lines += [f"{ts(841)} [INFO] [trainer.py:2241:_inner_training_loop] step 211 forward"]
            lines += watchdog(r, "1120 03:24:02.123456")
        write(folder, f"rank{r}.log", lines)
    return folder


def xid_cascade(folder: Path) -> Path:
    """64 ranks on 8 nodes; gpu-03's GPU at 0000:18:00 (rank 26) falls off the bus; NCCL errors everywhere."""
    for r in range(64):
        host = f"gpu-{r // 8:02d}"
        lines = nccl_init(r, 64, host) + training(r, 100)
        if r == 26:
            lines += [
                f"[rank{r}]: RuntimeError: CUDA error: unspecified launch failure",
                f"[rank{r}]: CUDA kernel errors might be asynchronously reported at some other API call.",
            ]
        lines += [
            f"{ts(845, r)} [ERROR] [rank{r}] NCCL communicator error",
            f"[rank{r}]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
            "NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
            f"[rank{r}]: ncclUnhandledCudaError: Call to CUDA function failed.",
        ]
        write(folder, f"job_4242_{r}.out", lines)
    write(
        folder,
        "node-gpu-03.dmesg",
        [
            "[Fri Nov 20 03:13:58 2026] nvidia-nvswitch0: open (major=508)",
            "[Fri Nov 20 03:14:02 2026] NVRM: GPU at PCI:0000:18:00: GPU-5a3c1b7e-2f1d-4c1e-9d8a-1b2c3d4e5f60",
            "[Fri Nov 20 03:14:02 2026] NVRM: Xid (PCI:0000:18:00): 79, pid=48211, name=python, "
            "GPU has fallen off the bus.",
            "[Fri Nov 20 03:14:02 2026] NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.",
        ],
    )
    for n in (0, 1, 2, 4, 5, 6, 7):
        write(
            folder, f"node-gpu-{n:02d}.dmesg", ["[Fri Nov 20 02:00:00 2026] Linux version 5.15.0-105-generic"]
        )
    return folder


def desync(folder: Path, odd: int = 3) -> Path:
    """Rank `odd` waits in ALLGATHER while the others wait in REDUCE_SCATTER; all time out."""
    for r in range(8):
        op = "ALLGATHER" if r == odd else "REDUCE_SCATTER"
        lines = training(r, 120) + watchdog(r, f"1120 03:24:0{r}.123456", seq=7311, op=op)
        write(folder, f"rank{r}.log", lines)
    return folder


def straggler(folder: Path, slow: int = 6) -> Path:
    """Every rank times out in the same collective; rank `slow` logged its last step long before."""
    for r in range(8):
        lines = training(r, 90 if r == slow else 120) + watchdog(r, f"1120 03:24:0{r}.123456", seq=2410)
        write(folder, f"rank{r}.log", lines)
    return folder


def sigkill_reported(folder: Path) -> Path:
    """torchrun names SIGKILLed local rank 3 as the first observed failure; rank 6 hit CUDA OOM before."""
    lines = []
    for r in range(8):
        lines += [f"[default{r}]:[rank{r}]:{line}" for line in training(r, 3)]
    lines += [f"[default6]:[rank6]:{ts(842, 5)} [INFO] [trainer.py:2241:_inner_training_loop] step 4"]
    lines += [f"[default6]:{line}" for line in gpu_oom(6)]
    lines += [
        f"{ts(843, 512)} torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 1231 closing "
        "signal SIGTERM",
        f"{ts(843, 900)} torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
        "local_rank: 3 (pid: 1234) of binary: /usr/bin/python3",
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "[1]:",
        "  time      : 2026-11-20_03:14:03",
        "  host      : gpu-01",
        "  rank      : 6 (local_rank: 6)",
        "  exitcode  : 1 (pid: 1237)",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-11-20_03:14:03",
        "  host      : gpu-01",
        "  rank      : 3 (local_rank: 3)",
        "  exitcode  : -9 (pid: 1234)",
        "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 1234",
        "============================================================",
    ]
    write(folder, "combined.log", lines)
    return folder


def time_limit(folder: Path, kill_at: int = 700, steps: int = 150) -> Path:
    """Slurm cancelled the job at its time limit (`kill_at` seconds after 03:00) and the ranks were torn
    down. With the default, no rank failed: training logged a step every 4 s until 100 s before the
    kill. A later `kill_at` leaves a silent gap after the last step: the job had hung."""
    h, rem = divmod(3 * 3600 + kill_at, 3600)
    at = f"2026-11-20T{h:02d}:{rem // 60:02d}:{rem % 60:02d}"
    for r in range(4):
        lines = training(r, steps) + [
            f"{ts(kill_at)} torch.distributed.elastic.agent.server.api: [INFO] Received 15 death signal, "
            "shutting down workers",
        ]
        write(folder, f"job_991_{r}.out", lines)
    write(
        folder,
        "slurm-991.log",
        [
            "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
            f"slurmstepd: error: *** JOB 991 ON gpu-01 CANCELLED AT {at} DUE TO TIME LIMIT ***",
            f"slurmstepd: error: *** STEP 991.0 ON gpu-01 CANCELLED AT {at} DUE TO TIME LIMIT ***",
        ],
    )
    return folder


ZERO3_FRAMES = [
    '  File "/workspace/train.py", line 530, in <module>',
    "    trainer.train()",
    '  File "/usr/lib/python3/site-packages/transformers/trainer.py", line 2386, in _save_checkpoint',
    "    self.save_model(output_dir, _internal_call=True)",
    '  File "/usr/lib/python3/site-packages/transformers/trainer.py", line 2914, in save_model',
    "    state_dict = self.accelerator.get_state_dict(self.deepspeed)",
    '  File "/usr/lib/python3/site-packages/deepspeed/runtime/engine.py", line 3466, in '
    "_zero3_consolidated_16bit_state_dict",
    "    param_list = [p.clone() for p in params]",
]


def zero3_save(folder: Path) -> Path:
    """Rank 0 OOMs gathering the 16-bit ZeRO-3 weights at a checkpoint; the others wait and time out."""
    for r in range(8):
        lines = training(r, 100) + [
            f"{ts(500)} [INFO] [trainer.py:3012:save_model] Saving model checkpoint to out/"
        ]
        lines += gpu_oom(r, ZERO3_FRAMES) if r == 0 else watchdog(r, "1120 03:18:20.000001")
        write(folder, f"rank{r}.log", lines)
    return folder


FSDP_FRAMES = [
    '  File "/workspace/train.py", line 301, in save',
    "    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, FullStateDictConfig(offload_to_cpu=True)):",
    '  File "/usr/lib/python3/site-packages/torch/distributed/fsdp/_state_dict_utils.py", line 343, in '
    "_full_post_state_dict_hook",
]


def fsdp_cpu_save(folder: Path) -> Path:
    """Every rank builds a full CPU state dict at save time; the kernel's OOM killer ends them."""
    lines = []
    for r in range(8):
        lines += [f"[default{r}]:[rank{r}]:{line}" for line in training(r, 50)]
        lines += [f"[default{r}]:[rank{r}]:{ts(300)} [INFO] saving checkpoint at step 50"]
    lines += ["[default0]:[rank0]: Traceback (most recent call last):"]
    lines += [f"[default0]:[rank0]:{f}" for f in FSDP_FRAMES]
    lines += [
        f"{ts(340)} torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 2 "
        "(pid: 3312) of binary: /usr/bin/python3",
    ]
    write(folder, "combined.log", lines)
    write(
        folder,
        "node-gpu-01.dmesg",
        [
            "[Fri Nov 20 03:05:38 2026] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|"
            "__GFP_COMP), order=0, oom_score_adj=0",
            "[Fri Nov 20 03:05:39 2026] Out of memory: Killed process 3312 (python3) total-vm:402113232kB, "
            "anon-rss:251234120kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:492412kB oom_score_adj:0",
        ],
    )
    return folder


def host_oom(folder: Path) -> Path:
    """The dataset is loaded into RAM on every rank; the OOM killer ends one mid-epoch (no checkpoint)."""
    lines = []
    for r in range(4):
        lines += [f"[default{r}]:[rank{r}]:{line}" for line in training(r, 80)]
    lines += [
        f"{ts(400)} torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 1 "
        "(pid: 7712) of binary: /usr/bin/python3",
    ]
    write(folder, "combined.log", lines)
    write(
        folder,
        "node-gpu-01.dmesg",
        [
            "[Fri Nov 20 03:06:38 2026] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|"
            "__GFP_COMP), order=0, oom_score_adj=0",
            "[Fri Nov 20 03:06:39 2026] Out of memory: Killed process 7712 (python3) total-vm:302113232kB, "
            "anon-rss:201234120kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:392412kB oom_score_adj:0",
        ],
    )
    return folder


def xid_without_bus_ids(folder: Path) -> Path:
    """Rank logs say nothing of their GPU's bus id; rank 5's CUDA error inherits an earlier time."""
    for r in range(8):
        lines = training(r, 100)
        if r == 5:
            lines += [f"[rank{r}]: RuntimeError: CUDA error: unspecified launch failure"]
        else:
            lines += watchdog(r, "1120 03:24:02.123456")
        write(folder / "gpu-01", f"rank{r}.log", lines)
    write(
        folder,
        "node-gpu-01.dmesg",
        [
            "[Fri Nov 20 03:09:30 2026] NVRM: Xid (PCI:0000:9b:00): 79, pid=48211, name=python, "
            "GPU has fallen off the bus.",
        ],
    )
    return folder
