# ruff: noqa: E501 - realistic log lines are long
"""Three classes the engine missed on blind corpus logs (round 15a), on logs it had not seen.

1. NCCL's set-up warnings that are fallbacks, not failures, make no communication error. NCCL 2.4-2.11
   printed `misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]` and then used sockets (2.12
   made it an INFO line); 2.18's `misc/cudawrap.cc NCCL WARN Failed to find CUDA library libcuda.so`
   is ignored by `ncclCommInitRank` (`(void)ncclCudaLibraryInit()`); `graph/search.cc ... falling back
   to simple order`, `graph/xml.cc Could not open XML topology file` (returns ncclSuccess),
   `No NVML device handle. Skipping nvlink detection.`, `Cannot initialize CollNet, using
   point-to-point network instead` all go on. A log whose only NCCL lines are set-up and such warnings,
   and which then stops, is a hang (NVIDIA/nccl#257: an IOMMU blocked P2P and the allreduce never
   finished). The same warnings beside a real NCCL failure keep that failure.
2. ENOSPC inside NCCL's shared-memory set-up is the communicator failing to set up in a small
   /dev/shm (Docker's 64 MB), not a full disk: `include/shm.h:28 NCCL WARN Call to posix_fallocate
   failed : No space left on device` (2.4-2.11), `Error: failed to extend /dev/shm/nccl-X to N bytes`
   (shmutils.cc 2.12-2.22, with `, error: No space left on device (28)` from 2.23, os/linux.cc later),
   `Error: failed to create shared memory file`, and PyTorch's `Last error:` relay of them
   (dmlc/xgboost#5963). A checkpoint write that hits ENOSPC stays disk_full_or_io.
3. PyTorch's `DataLoader worker (pid N) is killed by signal: Killed.` as people retype it
   (`Dataloader`, `signaled`, `signal:Killed`, `pid(s)`, no final period) is the DataLoader-worker
   class, never the shell's bare `Killed` of a host OOM (mit-han-lab/bevfusion#351); with the kernel's
   OOM record beside it the corpus labels it host_oom (d-009), and that stays.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/opt/conda/lib/python3.10/site-packages"


def _nccl(host: str, pid: int, tid: int, dev: int, lines: list[str]) -> list[str]:
    """NCCL's own prefix (`host:pid:tid [cudaDev]`) on each line."""
    return [f"{host}:{pid}:{tid} [{dev}] {line}" for line in lines]


# --- 1. benign NCCL set-up warnings, then nothing: a hang ------------------------------------------

_HANG_TORCHRUN = [
    "[2025-03-02 10:14:03,118] torch.distributed.run: [WARNING] ",
    "[2025-03-02 10:14:03,118] torch.distributed.run: [WARNING] *****************************************",
    "[2025-03-02 10:14:03,118] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ",
    "[2025-03-02 10:14:03,118] torch.distributed.run: [WARNING] *****************************************",
    "loading model from /data/ckpt/base ...",
    *_nccl("trainer-0", 4411, 4411, 0, ["NCCL INFO Bootstrap : Using eth0:10.8.0.12<0>"]),
    *_nccl(
        "trainer-0",
        4411,
        4411,
        0,
        [
            "NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory",
            "NCCL INFO NET/Plugin : No plugin found, using internal implementation",
            "misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or directory",
            "NCCL INFO cudaDriverVersion 12020",
        ],
    ),
    "NCCL version 2.18.3+cuda12.1",
    *_nccl(
        "trainer-0",
        4412,
        4460,
        1,
        [
            "NCCL INFO Failed to open libibverbs.so[.1]",
            "NCCL INFO NET/Socket : Using [0]eth0:10.8.0.12<0>",
            "NCCL INFO Using network Socket",
            "NCCL INFO comm 0x55d0c1a0 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 3b000 commId 0x9e1f3c2a - Init START",
            "graph/search.cc:1036 NCCL WARN Could not find a path for pattern 4, falling back to simple order",
            "NCCL INFO Channel 00/02 :    0   1",
            "NCCL INFO Channel 00/0 : 1[3b000] -> 0[1a000] via P2P/IPC",
        ],
    ),
]

_HANG_SRUN = pre(
    "0: ",
    [
        *_nccl(
            "gpu-a07",
            91320,
            91320,
            0,
            [
                "NCCL INFO Bootstrap : Using ib0:172.20.4.7<0>",
                "NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
            ],
        ),
        "",
        *_nccl("gpu-a07", 91320, 91320, 0, ["misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]"]),
        *_nccl(
            "gpu-a07",
            91320,
            91320,
            0,
            ["NCCL INFO NET/Socket : Using [0]ib0:172.20.4.7<0>", "NCCL INFO Using network Socket"],
        ),
        "NCCL version 2.7.8+cuda11.0",
    ],
) + pre(
    "1: ",
    _nccl(
        "gpu-a07",
        91321,
        91321,
        1,
        [
            "NCCL INFO Bootstrap : Using ib0:172.20.4.7<0>",
            "NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
            "misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
            "NCCL INFO NET/Socket : Using [0]ib0:172.20.4.7<0>",
            "NCCL INFO Setting affinity for GPU 1 to ffff0000",
            "NCCL INFO Channel 00 : 1[41000] -> 0[1a000] via P2P/IPC",
        ],
    ),
)

_HANG_KUBECTL = "".join(
    line + "\n"
    for line in [
        "2024-11-20T08:01:12.402Z INFO  worker starting: world_size=4 rank=0 local_rank=0",
        *_nccl(
            "pytorchjob-llm-worker-0",
            57,
            57,
            0,
            [
                "NCCL INFO NCCL_TOPO_FILE set by environment to /etc/nccl/topo.xml",
                "graph/xml.cc:392 NCCL WARN Could not open XML topology file /etc/nccl/topo.xml : No such file or directory",
                "graph/xml.cc:732 NCCL WARN No NVML device handle. Skipping nvlink detection.",
                "init.cc:1190 NCCL WARN Cannot initialize CollNet, using point-to-point network instead",
                "NCCL INFO Channel 00/04 :    0   1   2   3",
                "NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1",
                "NCCL INFO Connected all rings",
            ],
        ),
    ]
)


# --- 1. lookalikes: the same warnings beside a real NCCL failure ------------------------------------

_BENIGN_THEN_IB_ERROR = pre(
    "[rank3]: ",
    _nccl(
        "node-12",
        2210,
        2210,
        3,
        [
            "NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
            "graph/search.cc:1036 NCCL WARN Could not find a path for pattern 4, falling back to simple order",
        ],
    )
    + _nccl(
        "node-12",
        2210,
        2290,
        3,
        [
            "transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.2.0.14<49012> with error 12, opcode 0, len 0, vendor err 129",
            "NCCL INFO transport/net.cc:1126 -> 6",
        ],
    )
    + tb(
        [
            ("/srv/train/pretrain.py", 288, "<module>", "main()"),
            ("/srv/train/pretrain.py", 241, "main", "dist.all_reduce(grad_norm)"),
            (f"{SP}/torch/distributed/distributed_c10d.py", 2219, "all_reduce", "work.wait()"),
        ],
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.19.3",
    ),
)

_BENIGN_THEN_OTHER_WARN = "".join(
    line + "\n"
    for line in [
        "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1",
        *_nccl("dgx-3", 8012, 8012, 0, ["NCCL INFO Bootstrap : Using enp1s0:10.0.0.3<0>"]),
        *_nccl("dgx-3", 8012, 8012, 0, ["misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]"]),
        *_nccl(
            "dgx-3",
            8012,
            8012,
            1,
            ["init.cc:521 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000"],
        ),
        *_nccl("dgx-3", 8012, 8012, 1, ["NCCL INFO init.cc:1067 -> 5"]),
        "dgx-3: Test NCCL failure common.cu:1005 'invalid usage'",
    ]
)


# --- 2. ENOSPC in NCCL's shared-memory set-up -------------------------------------------------------

_SHM_HEAD_FORM = pre(
    "[rank0]: ",
    _nccl(
        "vllm-tp-0",
        311,
        402,
        0,
        [
            "NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct",
            "os/linux.cc:780 NCCL WARN Error: failed to create shared memory file /dev/shm/nccl-Qw8Rt2, error No space left on device (28)",
        ],
    ),
) + pre(
    "[rank1]: ",
    _nccl(
        "vllm-tp-0",
        312,
        405,
        1,
        [
            "os/linux.cc:780 NCCL WARN Error: failed to create shared memory file /dev/shm/nccl-Lm3Vx9, error No space left on device (28)"
        ],
    ),
)

_SHM_LAST_ERROR = pre(
    "[rank1]: ",
    [
        *tb(
            [
                ("/workspace/train_ddp.py", 77, "<module>", "main()"),
                ("/workspace/train_ddp.py", 52, "main", "model = DDP(model, device_ids=[local_rank])"),
                (
                    f"{SP}/torch/nn/parallel/distributed.py",
                    822,
                    "__init__",
                    "_verify_param_shape_across_processes(self.process_group, parameters)",
                ),
                (
                    f"{SP}/torch/distributed/utils.py",
                    288,
                    "_verify_param_shape_across_processes",
                    "return dist._verify_params_across_processes(process_group, tensors, logger)",
                ),
            ],
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
        ),
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
        "Last error:",
        "Error: failed to extend /dev/shm/nccl-6NmnDk to 33554560 bytes, error: No space left on device (28)",
    ],
)

_SHM_MARKDOWN_PASTE = "".join(
    line + "\n"
    for line in [
        "mgpu tests just hang in the new CI container, with NCCL_DEBUG=INFO:",
        "",
        *_nccl(
            "3f1ab9e0c2d4",
            2211,
            2260,
            0,
            ["NCCL INFO Channel 00 : 1[1b0] -> 0[1a0] via direct shared memory"],
        ),
        *_nccl(
            "3f1ab9e0c2d4",
            2210,
            2262,
            0,
            ["include/shm.h:28 **NCCL WARN Call to posix_fallocate failed : No space left on device**"],
        ),
        *_nccl("3f1ab9e0c2d4", 2210, 2262, 0, ["NCCL INFO include/shm.h:41 -> 2"]),
    ]
)


# --- 2. lookalike: the disk really was full, on a checkpoint write ---------------------------------

_CKPT_DISK_FULL = pre(
    "[rank1]: ",
    _nccl(
        "gpu-b02",
        5120,
        5180,
        1,
        ["NCCL INFO Allocated 4194656 bytes of shared memory in /dev/shm/nccl-p2Yt7S"],
    ),
) + pre(
    "[rank0]: ",
    [
        *_nccl(
            "gpu-b02", 5119, 5177, 0, ["NCCL INFO Channel 00 : 0[18000] -> 1[3b000] via SHM/direct/direct"]
        ),
        "step 1990 | loss 2.113 | lr 2.9e-4",
        "step 2000 | loss 2.108 | lr 2.9e-4",
        "saving checkpoint to /ckpt/run7/step_2000",
        *tb(
            [
                ("/srv/run7/train.py", 402, "<module>", "main()"),
                ("/srv/run7/train.py", 377, "main", "torch.save(state, path)"),
                (
                    f"{SP}/torch/serialization.py",
                    651,
                    "save",
                    "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)",
                ),
            ],
            "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 1677856640 vs 1677856528",
        ),
        "OSError: [Errno 28] No space left on device: '/ckpt/run7/step_2000/model.pt'",
    ],
)


# --- 3. the DataLoader worker's kill, as people retype it -----------------------------------------

_MMDET_FRAMES = [
    ("tools/train.py", 87, "<module>", "main()"),
    ("tools/train.py", 83, "main", "train_model(model, datasets, cfg, distributed=False, validate=True)"),
    (
        "/home/nx/bevfusion/mmdet3d/apis/train.py",
        29,
        "train_model",
        "runner.run(data_loaders, [('train', 1)])",
    ),
    (
        f"{SP}/mmcv/runner/epoch_based_runner.py",
        50,
        "train",
        "for i, data_batch in enumerate(self.data_loader):",
    ),
    (f"{SP}/torch/utils/data/dataloader.py", 1186, "_next_data", "idx, data = self._get_data()"),
    (f"{SP}/torch/utils/data/_utils/signal_handling.py", 66, "handler", "_error_if_any_worker_fails()"),
]

_WORKER_RETYPED = "".join(
    line + "\n"
    for line in [
        "2024-05-11 09:12:44,310 - mmdet - INFO - Epoch [1][50/3517]\tlr: 2.000e-04, eta: 3 days, loss: 4.1123",
        *tb(_MMDET_FRAMES, "RuntimeError: Dataloader worker (pid 15623) is killed by signal: Killed"),
    ]
)

_WORKER_TORCHRUN = pre(
    "[rank2]: ",
    tb(
        [
            ("/opt/train/run.py", 199, "<module>", "trainer.fit()"),
            ("/opt/train/loop.py", 88, "fit", "for batch in self.train_loader:"),
            (
                f"{SP}/torch/utils/data/dataloader.py",
                1313,
                "_try_get_data",
                'raise RuntimeError(f"DataLoader worker (pid(s) {pids_str}) exited unexpectedly") from e',
            ),
        ],
        "RuntimeError: DataLoader worker (pid(s) 40117) is killed by signal:killed",
    ),
) + pre(
    "[rank0]: ",
    [
        "[E ProcessGroupNCCL.cpp:474] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1841, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600122 milliseconds before timing out."
    ],
)

_WORKER_KUBECTL = "".join(
    line + "\n"
    for line in [
        "Epoch 3:  41%|████      | 902/2200 [14:02<20:11,  1.07it/s, loss=0.318, v_num=7]",
        "ERROR: Unexpected exception in training loop",
        "RuntimeError: dataloader worker (pid 233) was killed by signaled: Killed",
    ]
)


# --- 3. lookalikes: the host's OOM ------------------------------------------------------------------

_WORKER_WITH_DMESG = {
    "train.log": "".join(
        line + "\n"
        for line in tb(
            _MMDET_FRAMES, "RuntimeError: Dataloader worker (pid 15623) is killed by signaled: Killed"
        )
    ),
    "node-nx01.dmesg": "[81234.551201] Out of memory: Killed process 15623 (python) total-vm:9123456kB, anon-rss:5412344kB, file-rss:1024kB, shmem-rss:0kB, UID:1000 pgtables:12000kB oom_score_adj:0\n",
}

_SHELL_KILLED = "".join(
    line + "\n"
    for line in [
        "building vocabulary from 48,000,000 sentences ...",
        "loaded 48000000 examples into memory",
        "./run_train.sh: line 14: 90211 Killed                  python train.py --config cfg/big.yaml",
    ]
)


CASES: dict[str, tuple[dict[str, str], str, int | None]] = {
    "hang-torchrun-cudawrap-search-fallback": (
        {"rank-logs.txt": "".join(x + "\n" for x in _HANG_TORCHRUN)},
        "hang_no_error",
        None,
    ),
    "hang-srun-ibvwrap": ({"slurm-81123.out": _HANG_SRUN}, "hang_no_error", None),
    "hang-kubectl-topology-xml-fallbacks": ({"worker-0.log": _HANG_KUBECTL}, "hang_no_error", None),
    "lookalike-benign-warn-then-ib-error": ({"rank3.log": _BENIGN_THEN_IB_ERROR}, "nccl_comm_error", None),
    "lookalike-benign-warn-then-duplicate-gpu": (
        {"nccl-tests.out": _BENIGN_THEN_OTHER_WARN},
        "nccl_comm_error",
        None,
    ),
    "shm-create-file-enospc-head": ({"tp.log": _SHM_HEAD_FORM}, "nccl_comm_error", None),
    "shm-last-error-extend-enospc": ({"ddp.log": _SHM_LAST_ERROR}, "nccl_comm_error", 1),
    "shm-markdown-posix-fallocate": ({"issue.txt": _SHM_MARKDOWN_PASTE}, "nccl_comm_error", None),
    "lookalike-checkpoint-disk-full-with-nccl-shm-info": (
        {"train.log": _CKPT_DISK_FULL},
        "disk_full_or_io",
        0,
    ),
    "worker-retyped-dataloader-no-period": (
        {"console.log": _WORKER_RETYPED},
        "dataloader_worker_killed",
        None,
    ),
    "worker-torchrun-pids-signal-killed": ({"train.log": _WORKER_TORCHRUN}, "dataloader_worker_killed", 2),
    "worker-kubectl-lowercase-signaled": ({"pod.log": _WORKER_KUBECTL}, "dataloader_worker_killed", None),
    "lookalike-worker-with-kernel-oom-record": (_WORKER_WITH_DMESG, "host_oom", None),
    "lookalike-shell-killed-main-process": ({"train.out": _SHELL_KILLED}, "host_oom", None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unseen_class_15a(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
