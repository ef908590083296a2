# ruff: noqa: E501 - realistic log lines are long
"""Version mismatches read from what a library says it could not do with another (round 16a), against
the same surfaces with no such fact.

env_version_mismatch: a cuDNN backend attribute the loaded cuDNN rejects (TransformerEngine's
`set_attribute(…, CUDNN_ATTR_…)`, cudnn-frontend's `SetAttribute CUDNN_ATTR_… Failed`), a segfault
whose frames are inside hwloc (Open MPI calling TensorFlow's exported hwloc copy; Horovod's
troubleshooting guide), NCCL's topology code not finding a node id it built itself (`Could not find
NET with id 0`, NCCL 2.26's NIC-fusion fallback).
cudnn_or_cublas_error: `CUBLAS_STATUS_EXECUTION_FAILED when calling cublasGemmEx` (torch's fp16/bf16
GEMM), which the resolved threads trace to cuBLAS itself; `cublasSgemm` stays the build/GPU mismatch.
Lookalikes: a plain `CUDNN_STATUS_BAD_PARAM`, a segfault in Open MPI outside hwloc, NCCL's
`Could not find a path for pattern` fallback warning before a system error.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/usr/local/lib/python3.12/dist-packages"
TE = f"{SP}/transformer_engine/pytorch"

_TE_BWD = [
    (
        "/workspace/Megatron-LM/megatron/training/training.py",
        1203,
        "train_step",
        "losses_reduced = forward_backward_func(",
    ),
    (f"{SP}/torch/autograd/__init__.py", 347, "backward", "_engine_run_backward("),
    (f"{SP}/torch/autograd/function.py", 307, "apply", "return user_fn(self, *args)"),
    (
        f"{TE}/attention/dot_product_attention/backends.py",
        1302,
        "backward",
        "dq, dk, dv, *rest = fused_attn_bwd(",
    ),
    (f"{TE}/cpp_extensions/fused_attn.py", 431, "fused_attn_bwd", "output_tensors = tex.fused_attn_bwd("),
]

_LINEAR = [
    ("/home/ml/sft/train.py", 188, "training_step", "outputs = model(**batch)"),
    (f"{SP}/torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
    (
        f"{SP}/transformers/models/llama/modeling_llama.py",
        190,
        "forward",
        "down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))",
    ),
    (f"{SP}/torch/nn/modules/linear.py", 125, "forward", "return F.linear(input, self.weight, self.bias)"),
]


def crlf(text: str) -> str:
    """A log saved on Windows (or copied from a web page) ends its lines with CRLF."""
    return text.replace("\n", "\r\n")


CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- env_version_mismatch
# 1 TransformerEngine built against a newer cuDNN sets an attribute the loaded libcudnn lacks
CASES["te_set_attribute_unknown_to_cudnn"] = (
    {
        "rank3.log": pre(
            "[rank3]: ",
            [
                " [2025-11-04 09:12:40] iteration       12/  500000 | consumed samples:         1536 | lm loss: 1.093E+01 |",
                *tb(
                    _TE_BWD,
                    "RuntimeError: /opt/TransformerEngine/transformer_engine/common/fused_attn/fused_attn_f16_arbitrary_seqlen.cu:1012 in function fused_attn_arbitrary_seqlen_bwd_impl: cuDNN Error: set_attribute(desc, CUDNN_ATTR_OPERATION_SDPA_BWD_DETERMINISTIC, CUDNN_TYPE_BOOLEAN, 1, &deterministic) failed with code: CUDNN_STATUS_BAD_PARAM.",
                ),
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 2 cudnn-frontend's own wording (a conv-bias-relu graph), node-prefixed and saved with CRLF
CASES["cudnn_frontend_setattribute_failed_crlf"] = (
    {
        "worker0.log": crlf(
            pre(
                "0: ",
                [
                    "2025-02-11 17:40:02 | INFO | fairseq2.recipes | Step 1 started.",
                    "cudnn_frontend::cudnnException: CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: SetAttribute CUDNN_ATTR_POINTWISE_SWISH_BETA Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED",
                    "terminate called after throwing an instance of 'cudnn_frontend::cudnnException'",
                    "  what():  CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: SetAttribute CUDNN_ATTR_POINTWISE_SWISH_BETA Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED",
                ],
            )
        ),
    },
    "env_version_mismatch",
    None,
)

# 3 Horovod over Open MPI with a TensorFlow wheel: the crash frame is Open MPI's hwloc teardown
CASES["openmpi_hwloc_frame_segfault_mpirun_tags"] = (
    {
        "mpirun.log": pre(
            "[1,2]<stderr>:",
            [
                "[gpu-07:41211] *** Process received signal ***",
                "[gpu-07:41211] Signal: Segmentation fault (11)",
                "[gpu-07:41211] Signal code: Address not mapped (1)",
                "[gpu-07:41211] Failing at address: 0x28",
                "[gpu-07:41211] [ 0] /lib/x86_64-linux-gnu/libpthread.so.0(+0x12890)[0x7f1e0a6d2890]",
                "[gpu-07:41211] [ 1] /usr/local/lib/libopen-pal.so.40(opal_hwloc_base_get_relative_locality+0x5c)[0x7f1d8c45e11c]",
                "[gpu-07:41211] [ 2] /usr/local/lib/openmpi/mca_btl_vader.so(+0x4e2a)[0x7f1d7c1a2e2a]",
                "[gpu-07:41211] *** End of error message ***",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 4 the same clash seen in gdb's backtrace of the core file
CASES["gdb_backtrace_in_hwloc_of_tensorflow"] = (
    {
        "core_bt.txt": pre(
            "",
            [
                "Core was generated by `python train_hvd.py --epochs 90'.",
                "Program terminated with signal SIGSEGV, Segmentation fault.",
                "#0  0x00007f2b1c0e3a41 in hwloc_bitmap_free () from /opt/venv/lib/python3.7/site-packages/tensorflow_core/libtensorflow_framework.so.1",
                "#1  0x00007f2aa8b31d57 in hwloc_topology_destroy () from /usr/lib/x86_64-linux-gnu/libhwloc.so.5",
                "#2  0x00007f2aa8d0f2c6 in opal_hwloc_base_free_topology () from /usr/lib/x86_64-linux-gnu/libopen-pal.so.20",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 5 NCCL 2.26 on an InfiniBand cluster: its topology search loses a NET it renamed (host:pid:tid lines)
CASES["nccl_topology_could_not_find_net_id"] = (
    {
        "node2.log": pre(
            "",
            [
                "nid005123:88412:88690 [1] NCCL INFO NCCL version 2.26.2+cuda12.8",
                "nid005123:88412:88690 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB hsn0:10.100.4.17<0>",
                "nid005123:88412:88690 [1] graph/search.cc:1127 NCCL WARN Could not find a path for pattern 1, falling back to simple order",
                "nid005123:88412:88690 [1] graph/topo.h:230 NCCL WARN Could not find NET with id 1",
                "nid005123:88412:88690 [1] NCCL INFO graph/search.cc:1131 -> 3",
                "nid005123:88412:88690 [1] NCCL INFO init.cc:1034 -> 3",
                "[rank9]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, internal error - please report this issue to the NCCL developers, NCCL version 2.26.2",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# ---------------------------------------------------------------- cudnn_or_cublas_error
# 6 a bf16 linear fails in cuBLAS's GemmEx (torch's half-precision GEMM path)
CASES["gemmex_execution_failed_bf16_linear"] = (
    {
        "rank1.log": pre(
            "[rank1]: ",
            tb(
                _LINEAR,
                "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",
            ),
        ),
    },
    "cudnn_or_cublas_error",
    None,
)

# 7 an fp16 GemmEx failure with timestamps, CRLF, no traceback
CASES["gemmex_execution_failed_fp16_crlf"] = (
    {
        "train.log": crlf(
            pre(
                "",
                [
                    "2020-03-11 08:14:55 | epoch 003 | loss 4.112 | ppl 17.29 | wps 31877 | ups 4 | wpb 7987 | bsz 262",
                    "2020-03-11 08:14:56 | RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`",
                ],
            )
        ),
    },
    "cudnn_or_cublas_error",
    None,
)

# ---------------------------------------------------------------- lookalikes that keep their class
# 8 cublasSgemm (fp32) failing stays the build/GPU mismatch, as before this round
CASES["sgemm_execution_failed_stays_build_mismatch"] = (
    {
        "combined.log": pre(
            "",
            [
                "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`",
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 9 a plain cuDNN BAD_PARAM from a convolution names no attribute: a cuDNN error
CASES["plain_cudnn_bad_param_stays_library_error"] = (
    {
        "rank0.log": pre(
            "[rank0]: ",
            tb(
                [
                    ("/work/seg/train.py", 77, "train_one_epoch", "loss.backward()"),
                    (f"{SP}/torch/_tensor.py", 521, "backward", "torch.autograd.backward("),
                    (f"{SP}/torch/autograd/__init__.py", 289, "backward", "_engine_run_backward("),
                ],
                "RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM",
            ),
        ),
    },
    "cudnn_or_cublas_error",
    None,
)

# 10 Open MPI's shared-memory transport crashing outside hwloc stays a native crash
CASES["openmpi_segfault_outside_hwloc_stays_segfault"] = (
    {
        "mpirun.log": pre(
            "[1,0]<stderr>:",
            [
                "[gpu-03:2231] *** Process received signal ***",
                "[gpu-03:2231] Signal: Segmentation fault (11)",
                "[gpu-03:2231] Signal code: Address not mapped (1)",
                "[gpu-03:2231] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x3ef20)[0x7f309d34ff20]",
                "[gpu-03:2231] [ 1] /usr/local/lib/openmpi/mca_btl_vader.so(mca_btl_vader_poll_handle_frag+0x91)[0x7f3031a0f5a1]",
                "[gpu-03:2231] *** End of error message ***",
            ],
        ),
    },
    "segfault",
    None,
)

# 11 NCCL's pattern fallback warning is no version fact: the socket error after it decides
CASES["nccl_pattern_fallback_then_system_error_stays_comm"] = (
    {
        "node1.log": pre(
            "",
            [
                "node0021:21858:22794 [5] graph/search.cc:765 NCCL WARN Could not find a path for pattern 4, falling back to simple order",
                "node0021:21858:22801 [5] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer node0014<47466>",
                "node0021:21858:22801 [5] NCCL INFO transport/net_socket.cc:474 -> 6",
                "[rank13]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
                "[rank13]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_version_fact_in_library_messages_or_surface(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
