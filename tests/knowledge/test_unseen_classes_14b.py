# ruff: noqa: E501 - realistic log lines are long
"""A version mismatch whose surface is a crash or a communication failure, not an ImportError
(env_version_mismatch), against the same surfaces with no version fact in the logs (segfault,
nccl_comm_error, nccl_timeout, cudnn_or_cublas_error, cuda_illegal_access).

Version side, each with the fact that decides it: ranks that print two releases of one library (the
torch banner of two images, ProcessGroupNCCL's `NCCL version:` line, torch's `NCCL version 2.x.y` in
its error next to NCCL's own `NCCL version` line), NCCL 2.23+'s `Mismatched NCCL version detected`,
the dynamic linker's `symbol lookup error … undefined symbol`, xFormers' `was built for: PyTorch …
(you have …)`, pip's `… requires nvidia-cublas-cu12==…, but you have … which is incompatible`, a
`Successfully installed torch-…` line before a native crash, torch.utils.cpp_extension's CUDA
mismatch warning before an illegal access in the extension it built, Triton's `device kernel image is
invalid`. Lookalikes keep their surface: the same NCCL release written two ways, a before/after paste
of one rank, a pip line that installed only pure-Python packages, a build line without a mismatch.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/opt/conda/lib/python3.10/site-packages"
DP = "/usr/local/lib/python3.10/dist-packages"


def watchdog(rank: int, ts: str, seq: int = 1, op: str = "ALLREDUCE") -> list[str]:
    """torch 2.1/2.2's watchdog lines for one rank (ProcessGroupNCCL.cpp)."""
    return [
        f"[rank{rank}]:[E ProcessGroupNCCL.cpp:475] [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600118 milliseconds before timing out.",
        f"[rank{rank}]:[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        f"[rank{rank}]:[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.",
        f"[rank{rank}]:[E ProcessGroupNCCL.cpp:916] [Rank {rank}] NCCL watchdog thread terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600118 milliseconds before timing out.",
    ]


_BARRIER = [
    ("/workspace/pretrain/train.py", 204, "<module>", "main()"),
    ("/workspace/pretrain/train.py", 71, "main", "dist.barrier()"),
    (f"{DP}/torch/distributed/c10d_logger.py", 72, "wrapper", "return func(*args, **kwargs)"),
    (f"{DP}/torch/distributed/distributed_c10d.py", 3439, "barrier", "work = default_pg.barrier(opts=opts)"),
]

CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- env_version_mismatch
# 1 a container rollout reached one node: each rank's banner names its torch, then the first
#   all-reduce never completes (collective timeouts on every rank, no other error)
CASES["torch_banner_differs_between_nodes_then_timeout"] = (
    {
        "node0.log": pre(
            "",
            [
                "[2024-03-02 10:00:01,102] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.",
                *[
                    f"2024-03-02 10:00:04,5{r}1 INFO train.py:58 rank={r} host=gpu-a01 torch 2.1.2+cu121 cuda 12.1"
                    for r in range(4)
                ],
                "2024-03-02 10:00:09,877 INFO train.py:97 building model: llama-7b, zero stage 2",
                *[line for r in range(4) for line in watchdog(r, "10:10:11")],
                "[2024-03-02 10:10:13,409] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 4102 closing signal SIGTERM",
                "[2024-03-02 10:10:14,733] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 0 (pid: 4101) of binary: /usr/bin/python",
            ],
        ),
        "node1.log": pre(
            "",
            [
                *[
                    f"2024-03-02 10:00:05,2{r}3 INFO train.py:58 rank={r + 4} host=gpu-a02 torch 2.2.1+cu121 cuda 12.1"
                    for r in range(4)
                ],
                *[line for r in range(4, 8) for line in watchdog(r, "10:10:12")],
                "[2024-03-02 10:10:15,021] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 0 (pid: 3310) of binary: /usr/bin/python",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 2 srun -l, two nodes: rank 0 prints NCCL 2.18.1 (only a communicator's rank 0 prints the version up
#   to NCCL 2.21); the other node's torch error carries 2.19.3; both sides fail the first barrier
_SRUN2 = [
    "0: NCCL version 2.18.1+cuda12.1",
]
for _r, _v, _peer in (
    (0, "2.18.1", "10.10.1.12<41338>"),
    (1, "2.18.1", "10.10.1.12<41340>"),
    (2, "2.19.3", "10.10.1.11<52102>"),
    (3, "2.19.3", "10.10.1.11<52106>"),
):
    _SRUN2 += pre(
        f"{_r}: ",
        [
            *tb(
                _BARRIER,
                f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version {_v}",
            ),
            "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
            "Last error:",
            f"socketProgress: Connection closed by remote peer {_peer}",
        ],
    ).splitlines()
_SRUN2 += [
    "srun: error: gpu-b01: tasks 0-1: Exited with exit code 1",
    "srun: error: gpu-b02: tasks 2-3: Exited with exit code 1",
]
CASES["nccl_release_differs_in_error_lines_srun"] = (
    {"slurm-88123.out": "\n".join(_SRUN2) + "\n"},
    "env_version_mismatch",
    None,
)


# 3 a PyTorchJob (kubectl logs --timestamps): TORCH_CPP_LOG_LEVEL=INFO prints each rank's NCCL in
#   ProcessGroupNCCL's environment line; master on 2.20.5, worker on 2.21.5; then the first all-reduce
#   times out everywhere
def _pg_env(rank: int, ver: str, stamp: str) -> list[str]:
    return [
        f"{stamp} I0415 08:01:12.118231 140231 ProcessGroupNCCL.cpp:869] [PG 0 Rank {rank}] ProcessGroupNCCL initialization options: size: 4, global rank: {rank}, TIMEOUT(ms): 1800000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 0",
        f"{stamp} I0415 08:01:12.118301 140231 ProcessGroupNCCL.cpp:878] [PG 0 Rank {rank}] ProcessGroupNCCL environments: NCCL version: {ver}, TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, TORCH_NCCL_DUMP_ON_TIMEOUT: 0, TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC: 60000, TORCH_NCCL_DESYNC_DEBUG: 0, TORCH_NCCL_ENABLE_TIMING: 0, TORCH_NCCL_BLOCKING_WAIT: 0, TORCH_DISTRIBUTED_DEBUG: OFF, TORCH_NCCL_ENABLE_MONITORING: 1",
    ]


def _pg_timeout(rank: int, stamp: str) -> list[str]:
    return [
        f"{stamp} [rank{rank}]:[E415 08:31:13.442871 140198 ProcessGroupNCCL.cpp:607] [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=131072, NumelOut=131072, Timeout(ms)=1800000) ran for 1800037 milliseconds before timing out.",
        f"{stamp} [rank{rank}]:[E415 08:31:13.443120 140198 ProcessGroupNCCL.cpp:1664] [PG 0 Rank {rank}] Exception (either an error or timeout) detected by watchdog at work: 2, last enqueued NCCL work: 2, last completed NCCL work: 1.",
    ]


CASES["pg_environment_nccl_differs_pytorchjob"] = (
    {
        "master-0.log": pre(
            "",
            [
                *_pg_env(0, "2.20.5", "2024-04-15T08:01:12.120Z"),
                *_pg_env(1, "2.20.5", "2024-04-15T08:01:12.121Z"),
                "2024-04-15T08:01:15.004Z {'loss': 10.8841, 'learning_rate': 1e-05, 'epoch': 0.0}",
                *_pg_timeout(0, "2024-04-15T08:31:13.445Z"),
                *_pg_timeout(1, "2024-04-15T08:31:13.446Z"),
            ],
        ),
        "worker-0.log": pre(
            "",
            [
                *_pg_env(2, "2.21.5", "2024-04-15T08:01:12.530Z"),
                *_pg_env(3, "2.21.5", "2024-04-15T08:01:12.531Z"),
                *_pg_timeout(2, "2024-04-15T08:31:13.702Z"),
                *_pg_timeout(3, "2024-04-15T08:31:13.703Z"),
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 4 NCCL 2.23+ compares every peer's release at init and fails with invalid usage (two NGC images)
_INIT = [
    (
        "/opt/nemo/examples/nlp/language_modeling/megatron_gpt_pretraining.py",
        42,
        "main",
        "trainer.fit(model)",
    ),
    (f"{DP}/torch/distributed/distributed_c10d.py", 4166, "barrier", "work = group.barrier(opts=opts)"),
]
CASES["nccl_mismatched_version_detected_invalid_usage"] = (
    {
        f"rank{r}.log": pre(
            "",
            [
                f"gpu-c0{1 + r // 8}:{5100 + r}:{5100 + r} [{r % 8}] NCCL INFO NCCL version {'2.25.1' if r < 8 else '2.23.4'}+cuda12.8",
                "",
                f"gpu-c0{1 + r // 8}:{5100 + r}:{5190 + r} [{r % 8}] init.cc:775 NCCL WARN Mismatched NCCL version detected : rank {8 if r < 8 else 0} version {22304 if r < 8 else 22501} rank {r} version {22501 if r < 8 else 22304}",
                f"gpu-c0{1 + r // 8}:{5100 + r}:{5190 + r} [{r % 8}] NCCL INFO init.cc:1413 -> 5",
                *tb(
                    _INIT,
                    f"torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3127, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version {'2.25.1' if r < 8 else '2.23.4'}",
                ),
                "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
                "Last error:",
                f"Mismatched NCCL version detected : rank {8 if r < 8 else 0} version {22304 if r < 8 else 22501} rank {r} version {22501 if r < 8 else 22304}",
            ],
        )
        for r in (0, 1, 8, 9)
    },
    "env_version_mismatch",
    None,
)

# 5 the dynamic linker's lazy binding fails at the first NCCL call (an older system libnccl first on
#   LD_LIBRARY_PATH): every worker exits 127 without a Python traceback
CASES["symbol_lookup_error_torchrun_exit_127"] = (
    {
        "torchrun.log": pre(
            "",
            [
                "[2024-06-11 14:02:09,771] torch.distributed.run: [WARNING] *****************************************",
                "/usr/bin/python3: symbol lookup error: /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommInitRankConfig",
                "/usr/bin/python3: symbol lookup error: /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommInitRankConfig",
                "[2024-06-11 14:02:19,533] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 127) local_rank: 0 (pid: 8812) of binary: /usr/bin/python3",
                "Traceback (most recent call last):",
                '  File "/usr/local/bin/torchrun", line 8, in <module>',
                "    sys.exit(main())",
                "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                "============================================================",
                "train.py FAILED",
                "------------------------------------------------------------",
                "Failures:",
                "[1]:",
                "  time      : 2024-06-11_14:02:19",
                "  host      : dgx-07",
                "  rank      : 1 (local_rank: 1)",
                "  exitcode  : 127 (pid: 8813)",
                "  error_file: <N/A>",
                "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
                "------------------------------------------------------------",
                "Root Cause (first observed failure):",
                "[0]:",
                "  time      : 2024-06-11_14:02:19",
                "  host      : dgx-07",
                "  rank      : 0 (local_rank: 0)",
                "  exitcode  : 127 (pid: 8812)",
                "  error_file: <N/A>",
                "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
                "============================================================",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 6 xFormers built for another torch says so at import; the job trains on and dies of a native crash
#   far below (accelerate reports the child's SIGSEGV)
_XF = [
    "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
    "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.2.0+cu121)",
    "    Python  3.10.13 (you have 3.10.13)",
    "  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)",
    "  Memory-efficient attention, SwiGLU, sparse and more won't be available.",
    "  Set XFORMERS_MORE_DETAILS=1 for more details",
    "03/11/2024 09:14:02 - INFO - __main__ - Distributed environment: NO",
    "03/11/2024 09:14:02 - INFO - __main__ - ***** Running training *****",
    "03/11/2024 09:14:02 - INFO - __main__ -   Num examples = 1200",
    "03/11/2024 09:14:02 - INFO - __main__ -   Total optimization steps = 800",
    *[
        f"Steps:  {i // 8}%|          | {i}/800 [00:{i // 10:02d}<09:58, 1.30it/s, loss=0.{91 - i % 50:02d}, lr=5e-6]"
        for i in range(1, 70)
    ],
    "Traceback (most recent call last):",
    '  File "/opt/conda/bin/accelerate", line 8, in <module>',
    "    sys.exit(main())",
    f'  File "{SP}/accelerate/commands/launch.py", line 1027, in launch_command',
    "    simple_launcher(args)",
    f'  File "{SP}/accelerate/commands/launch.py", line 637, in simple_launcher',
    "    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)",
    "subprocess.CalledProcessError: Command '['/opt/conda/bin/python', 'train_dreambooth_lora.py', '--enable_xformers_memory_efficient_attention', '--mixed_precision=fp16']' died with <Signals.SIGSEGV: 11>.",
]
CASES["xformers_built_for_other_torch_then_sigsegv"] = (
    {"train.log": "\n".join(_XF) + "\n"},
    "env_version_mismatch",
    None,
)

# 7 a notebook cell installed jax[cuda12] over torch; pip warned of the cuBLAS it replaced; the next
#   training step fails inside cuBLAS
_LIN = [
    ("/content/finetune.py", 188, "<module>", "loss = model(**batch).loss"),
    (
        f"{DP}/torch/nn/modules/module.py",
        1511,
        "_wrapped_call_impl",
        "return self._call_impl(*args, **kwargs)",
    ),
    (f"{DP}/torch/nn/modules/module.py", 1520, "_call_impl", "return forward_call(*args, **kwargs)"),
    (
        f"{DP}/transformers/models/llama/modeling_llama.py",
        219,
        "forward",
        "query_states = self.q_proj(hidden_states)",
    ),
    (f"{DP}/torch/nn/modules/linear.py", 116, "forward", "return F.linear(input, self.weight, self.bias)"),
]
CASES["pip_replaced_cublas_then_not_supported"] = (
    {
        "colab_output.txt": pre(
            "",
            [
                "Installing collected packages: nvidia-cublas-cu12, nvidia-cusparse-cu12, jaxlib, jax",
                "  Attempting uninstall: nvidia-cublas-cu12",
                "    Found existing installation: nvidia-cublas-cu12 12.1.3.1",
                "    Uninstalling nvidia-cublas-cu12-12.1.3.1:",
                "      Successfully uninstalled nvidia-cublas-cu12-12.1.3.1",
                "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.",
                'torch 2.2.1+cu121 requires nvidia-cublas-cu12==12.1.3.1; platform_system == "Linux" and platform_machine == "x86_64", but you have nvidia-cublas-cu12 12.4.5.8 which is incompatible.',
                'torch 2.2.1+cu121 requires nvidia-cusparse-cu12==12.1.0.106; platform_system == "Linux" and platform_machine == "x86_64", but you have nvidia-cusparse-cu12 12.3.1.170 which is incompatible.',
                "Successfully installed jax-0.4.26 jaxlib-0.4.26+cuda12.cudnn89 nvidia-cublas-cu12-12.4.5.8 nvidia-cusparse-cu12-12.3.1.170",
                "Loading checkpoint shards: 100%|██████████| 2/2 [00:07<00:00,  3.61s/it]",
                *tb(
                    _LIN,
                    "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",
                ),
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 8 a Slurm job's prologue upgraded torch under a prebuilt apex; the fused kernel crashes natively
#   (faulthandler's stack, then srun's task report)
CASES["pip_upgraded_torch_then_fatal_segv_in_apex"] = (
    {
        "slurm-5521.out": pre(
            "",
            [
                "Collecting torch==2.3.0",
                "  Downloading torch-2.3.0-cp310-cp310-manylinux1_x86_64.whl (779.1 MB)",
                "Successfully installed nvidia-nccl-cu12-2.20.5 torch-2.3.0 triton-2.3.0",
                "[2024-05-20 03:11:40] iteration        1/   20000 | consumed samples:          256 | elapsed time per iteration (ms): 5311.2 | lm loss: 1.104E+01 |",
                "Fatal Python error: Segmentation fault",
                "",
                "Thread 0x00007f3a1c9ff640 (most recent call first):",
                '  File "/opt/apex/apex/normalization/fused_layer_norm.py", line 63 in forward',
                f'  File "{DP}/torch/autograd/function.py", line 598 in apply',
                '  File "/opt/megatron/megatron/model/fused_layer_norm.py", line 88 in forward',
                "",
                "srun: error: gpu-n14: task 0: Segmentation fault (core dumped)",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 9 torch.utils.cpp_extension built the project's CUDA op with another toolkit than torch's; the op
#   then reads out of bounds (thrust sort in the extension)
_RAST = [
    ("train.py", 131, "training", "loss.backward()"),
    (f"{SP}/torch/_tensor.py", 522, "backward", "torch.autograd.backward("),
    (f"{SP}/torch/autograd/__init__.py", 266, "backward", "Variable._execution_engine.run_backward("),
    (f"{SP}/torch/autograd/function.py", 289, "apply", "return user_fn(self, *args)"),
    (
        f"{SP}/diff_rasterizer/__init__.py",
        154,
        "backward",
        "grad_means2D, grad_colors = _C.rasterize_backward(*args)",
    ),
]
CASES["cpp_extension_cuda_mismatch_then_illegal_address"] = (
    {
        "train.log": pre(
            "",
            [
                f"{SP}/torch/utils/cpp_extension.py:415: UserWarning: The detected CUDA version (11.4) has a minor version mismatch with the version that was used to compile PyTorch (11.8). Most likely this shouldn't be a problem.",
                "  warnings.warn(CUDA_MISMATCH_WARN.format(cuda_str_version, torch.version.cuda))",
                "building 'diff_rasterizer._C' extension",
                "Optimizing test_run",
                "Training progress:   1%|          | 290/30000 [00:21<36:12, 13.68it/s, Loss=0.1206]",
                *tb(
                    _RAST,
                    "RuntimeError: merge_sort: failed to synchronize: cudaErrorIllegalAddress: an illegal memory access was encountered",
                ),
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 10 Triton's compiled kernel is rejected by an old driver (torch.compile on a 470 driver node)
_TRI = [
    ("/home/u/bench/train_compile.py", 93, "<module>", "out = compiled_model(x)"),
    (
        f"{SP}/torch/_inductor/codecache.py",
        1911,
        "load_by_key_path",
        "mod = _reload_python_module(key, path)",
    ),
    (
        f"{SP}/triton/compiler/compiler.py",
        375,
        "_init_handles",
        "self.module, self.function, self.n_regs, self.n_spills = driver.active.utils.load_binary(",
    ),
]
CASES["triton_kernel_image_invalid_old_driver"] = (
    {
        "run.log": pre(
            "",
            [
                "| NVIDIA-SMI 470.182.03   Driver Version: 470.182.03   CUDA Version: 11.4     |",
                *tb(_TRI, "RuntimeError: Triton Error [CUDA]: device kernel image is invalid"),
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# ---------------------------------------------------------------- lookalikes that keep their surface
# 11 one NCCL release written two ways (NCCL's `+cuda` suffix, torch's bare version); an IB fault
CASES["same_nccl_release_two_spellings_ib_error"] = (
    {
        "rank0.log": pre(
            "",
            [
                "gpu-d01:7712:7712 [0] NCCL INFO NCCL version 2.19.3+cuda12.3",
                "gpu-d01:7712:7790 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.20.0.12<51022> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.20.0.11 remoteGidsfe80::a288:c2ff:fe4d:1f3c hca mlx5_1",
                *tb(
                    _BARRIER,
                    "[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, remote process exited or there was a network error, NCCL version 2.19.3",
                ),
                "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            ],
        ),
        "rank8.log": pre(
            "",
            [
                "gpu-d02:6120:6190 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.20.0.11<43311> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.20.0.12 remoteGidsfe80::a288:c2ff:fe4d:1e10 hca mlx5_1",
                *tb(
                    _BARRIER,
                    "[rank8]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, remote process exited or there was a network error, NCCL version 2.19.3",
                ),
                "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# 12 a paste of one rank before and after an NCCL upgrade: the same system error on both releases
_PASTE = [
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
    "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
    "Last error:",
    "socketStartConnect: Connect to 10.1.0.4<51234> failed : Software caused connection abort",
    "",
    "after pip install -U nvidia-nccl-cu12 it is the same:",
    "",
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
    "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
    "Last error:",
    "socketStartConnect: Connect to 10.1.0.4<51234> failed : Software caused connection abort",
]
CASES["one_rank_before_and_after_upgrade_paste"] = (
    {"issue.txt": "\n".join(_PASTE) + "\n"},
    "nccl_comm_error",
    None,
)

# 13 pip installed only pure-Python packages before a native crash in the data pipeline's C code
CASES["pip_pure_python_then_segfault"] = (
    {
        "job.log": pre(
            "",
            [
                "Successfully installed sentry-sdk-1.40.6 wandb-0.16.4 docker-pycreds-0.4.0 setproctitle-1.3.3",
                "wandb: Tracking run with wandb version 0.16.4",
                "epoch 0:  41%|████      | 1204/2931 [07:12<10:19,  2.79it/s, loss=2.31]",
                "Fatal Python error: Segmentation fault",
                "",
                "Current thread 0x00007f0b5e7fc700 (most recent call first):",
                f'  File "{SP}/PIL/ImageFile.py", line 291 in load',
                '  File "/srv/ocr/data.py", line 77 in __getitem__',
                "",
                "Segmentation fault (core dumped)",
            ],
        ),
    },
    "segfault",
    None,
)

# 14 an extension build that names no mismatch (only the compiler bounds), then an illegal access in
#   the user's own kernel
CASES["cpp_extension_no_mismatch_then_illegal_access"] = (
    {
        "train.log": pre(
            "",
            [
                f"{SP}/torch/utils/cpp_extension.py:425: UserWarning: There are no g++ version bounds defined for CUDA version 12.1",
                "building 'my_ops._C' extension",
                *tb(
                    _RAST,
                    "RuntimeError: CUDA error: an illegal memory access was encountered",
                ),
            ],
        ),
    },
    "cuda_illegal_access",
    None,
)

# 15 every node prints the same torch banner; one rank hangs in data loading and the rest time out
CASES["same_torch_banner_everywhere_timeout"] = (
    {
        "node0.log": pre(
            "",
            [
                *[
                    f"2024-03-02 10:00:04,5{r}1 INFO train.py:58 rank={r} host=gpu-a01 torch 2.2.1+cu121 cuda 12.1"
                    for r in range(2)
                ],
                *[line for r in range(2) for line in watchdog(r, "10:10:11")],
            ],
        ),
        "node1.log": pre(
            "",
            [
                *[
                    f"2024-03-02 10:00:05,2{r}3 INFO train.py:58 rank={r + 2} host=gpu-a02 torch 2.2.1+cu121 cuda 12.1"
                    for r in range(2)
                ],
                *[line for r in range(2, 4) for line in watchdog(r, "10:10:12")],
            ],
        ),
    },
    "nccl_timeout",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_crash_from_mismatched_versions_or_surface(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
