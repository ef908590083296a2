# ruff: noqa: E501 - realistic log lines are long
"""GPU OOM while a save consolidates sharded state through object collectives (round 17d), and the
Neuron runtime's device-memory exhaustion, against the same surfaces outside those classes.

gpu_oom_checkpoint_gather: `consolidate_state_dict` (fairscale OSS, torch's ZeroRedundancyOptimizer)
sends every rank's optimizer shard to the saving rank(s) with `broadcast_object_list` /
`_broadcast_object`, whose unpickling is `torch.load` of each CUDA storage. Those inner `torch.load`
frames read as a checkpoint *load* before; the consolidation frame now decides the traceback is a save
(phases.toml `frame-save-consolidate`), and a traceback through it is this class even when a paste cut
its error line (the consolidation frame alone is weak evidence, the OOM line decides).
gpu_oom: the Neuron runtime (TDRV) failing to reserve its staging buffer for a model's tensors
(`tdrv_one_tmpbuf_reserve … exceeded the max number of pages allowed`) is the accelerator running out
of device memory; the gRPC `Socket closed` after it is collateral.
Lookalikes: an OOM in a training step whose traceback gathers metrics with `all_gather_object`, a real
`torch.load` of a checkpoint at resume cut before its error line, and the Neuron gRPC line alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/opt/venv/lib/python3.10/site-packages"

CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- gpu_oom_checkpoint_gather
# 1 torch's ZeroRedundancyOptimizer consolidated for a save: rank 2's unpickling of the shards OOMs
CASES["zero_redundancy_consolidate_oom_rank_prefixed"] = (
    {
        "train.log": pre(
            "[rank2]: ",
            [
                "2025-09-02 11:04:51 | INFO | step 4000 | loss 2.118 | lr 1.2e-04",
                *tb(
                    [
                        ("/srv/jobs/vit/train.py", 311, "main", "save_ckpt(model, opt, step)"),
                        ("/srv/jobs/vit/ckpt.py", 42, "save_ckpt", "opt.consolidate_state_dict(to=0)"),
                        (
                            f"{SP}/torch/distributed/optim/zero_redundancy_optimizer.py",
                            585,
                            "consolidate_state_dict",
                            "local_state_dict = _broadcast_object(",
                        ),
                        (
                            f"{SP}/torch/distributed/optim/zero_redundancy_optimizer.py",
                            121,
                            "_broadcast_object",
                            "obj = torch.load(buffer, map_location=device)",
                        ),
                        (f"{SP}/torch/serialization.py", 1025, "load", "return _load("),
                        (f"{SP}/torch/serialization.py", 1446, "_load", "result = unpickler.load()"),
                    ],
                    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 704.00 MiB. GPU 2 has a total capacity of 39.39 GiB of which 212.44 MiB is free. Of the allocated memory 37.02 GiB is allocated by PyTorch.",
                ),
            ],
        ),
    },
    "gpu_oom_checkpoint_gather",
    None,
)

# 2 fairscale OSS consolidated on every rank, the paste cut before its error line
CASES["fairscale_oss_consolidate_cut_traceback"] = (
    {
        "node1.out": "\n".join(
            tb(
                [
                    (
                        "/home/u/proj/engine.py",
                        208,
                        "checkpoint",
                        "'optim': self.optimizer.state_dict(all_ranks=True),",
                    ),
                    (
                        f"{SP}/fairscale/optim/oss.py",
                        402,
                        "state_dict",
                        "self.consolidate_state_dict(recipient_rank=-1)",
                    ),
                    (
                        f"{SP}/fairscale/optim/oss.py",
                        360,
                        "consolidate_state_dict",
                        "dist.broadcast_object_list(",
                    ),
                    (
                        f"{SP}/torch/distributed/distributed_c10d.py",
                        2255,
                        "broadcast_object_list",
                        "object_list[i] = _tensor_to_object(obj_view, obj_size)",
                    ),
                ],
                "",
            )[:-1]
        )
        + "\n",
    },
    "gpu_oom_checkpoint_gather",
    None,
)

# lookalike: an OOM in a training step that gathers metrics with all_gather_object (no save)
CASES["lookalike_metrics_all_gather_object_oom_in_step"] = (
    {
        "rank0.log": "\n".join(
            [
                "epoch 3 iter 1200 loss 0.412",
                *tb(
                    [
                        ("/work/seg/train.py", 140, "train_one_epoch", "stats = gather_stats(outputs)"),
                        ("/work/seg/utils.py", 77, "gather_stats", "dist.all_gather_object(out, local)"),
                        (
                            f"{SP}/torch/distributed/distributed_c10d.py",
                            2401,
                            "all_gather_object",
                            "input_tensor, local_size = _object_to_tensor(obj, current_device, group)",
                        ),
                    ],
                    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 96.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which 41.06 MiB is free.",
                ),
            ]
        )
        + "\n",
    },
    "gpu_oom",
    None,
)

# lookalike: a resume that dies in torch.load, the paste cut before its error line: no consolidation
CASES["lookalike_resume_torch_load_cut"] = (
    {
        "console.log": "\n".join(
            tb(
                [
                    (
                        "/data/run/finetune.py",
                        96,
                        "resume",
                        "state = torch.load(args.resume, map_location='cpu')",
                    ),
                    (f"{SP}/torch/serialization.py", 1025, "load", "return _load("),
                    (f"{SP}/torch/serialization.py", 1446, "_load", "result = unpickler.load()"),
                ],
                "",
            )[:-1]
        )
        + "\n",
    },
    "shape_or_user_code_error",
    None,
)

# 3 a tensor-parallel saver all_gather_objects its GPU state dict: the innermost frames are the
#   unpickling's torch.load, which is no checkpoint load (a weak frame: the save above it decides)
CASES["tp_saver_all_gather_object_unpickle_oom"] = (
    {
        "worker.log": "\n".join(
            tb(
                [
                    ("/app/trainer.py", 402, "train", "self.saver.save(step)"),
                    ("/app/saver.py", 88, "save", "self._save(step)"),
                    ("/app/saver.py", 131, "_save", "dist.all_gather_object(shards, local_sd)"),
                    (f"{SP}/torch/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
                    (
                        f"{SP}/torch/distributed/distributed_c10d.py",
                        2438,
                        "all_gather_object",
                        "object_list[i] = _tensor_to_object(tensor, tensor_size, group)",
                    ),
                    (
                        f"{SP}/torch/distributed/distributed_c10d.py",
                        2176,
                        "_tensor_to_object",
                        "return _unpickler(io.BytesIO(buf)).load()",
                    ),
                    (
                        f"{SP}/torch/storage.py",
                        520,
                        "_load_from_bytes",
                        "return torch.load(io.BytesIO(b), weights_only=False)",
                    ),
                    (f"{SP}/torch/serialization.py", 1360, "load", "return _load("),
                    (f"{SP}/torch/serialization.py", 1848, "_load", "result = unpickler.load()"),
                ],
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 5 has a total capacity of 79.10 GiB of which 1.02 GiB is free.",
            )
        )
        + "\n",
    },
    "gpu_oom_checkpoint_gather",
    None,
)

# lookalike: the same FSDP hook frames, but the traceback ends on a KeyError: a code error
CASES["lookalike_fsdp_post_hook_keyerror"] = (
    {
        "rank0.err": "\n".join(
            tb(
                [
                    ("/opt/app/finetune.py", 88, "main", 'torch.save(model.state_dict(), "out.pt")'),
                    (
                        f"{SP}/torch/distributed/fsdp/_state_dict_utils.py",
                        310,
                        "_common_unshard_post_state_dict_hook",
                        "param_hook(state_dict, prefix, fqn)",
                    ),
                ],
                "KeyError: 'model.layers.0.mlp.weight'",
            )
        )
        + "\n",
    },
    "shape_or_user_code_error",
    None,
)

# ---------------------------------------------------------------- gpu_oom (Neuron device memory)
# 5 torch-neuronx: the runtime cannot stage a larger model's tensors on the NeuronCore
CASES["neuron_tmpbuf_pages_exceeded"] = (
    {
        "neuron_worker.log": "\n".join(
            [
                "2024-03-18 08:21:07.000412: INFO ||NCC_WRAPPER||: Using a cached neff for jit_step",
                "2024-Mar-18 08:21:09.0712 4410:4577 ERROR  TDRV:tdrv_one_tmpbuf_reserve                 Number of ONE TMPBUF pages requested exceeded the max number of pages allowed (requested: 41, max allowed: 16).",
                "2024-Mar-18 08:21:09.0713 4410:4577 ERROR  TDRV:copy_and_stage_mr                       Failed to reserve one tmpbuf memory",
                "2024-Mar-18 08:21:09.0713 4410:4577 ERROR  TDRV:kbl_model_add                           copy_and_stage_mr() error",
            ]
        )
        + "\n",
    },
    "gpu_oom",
    None,
)

# lookalike: the XRT client's gRPC line alone (the runtime went away, nothing says why)
CASES["lookalike_neuron_grpc_socket_closed_alone"] = (
    {
        "neuron_worker.log": 'W tensorflow/core/distributed_runtime/rpc/grpc_remote_master.cc:157] RPC failed with status = "UNAVAILABLE: Socket closed" and grpc_error_string = "{"created":"@1710750069.210000000","description":"Error received from peer ipv4:10.0.3.17:38211","grpc_message":"Socket closed","grpc_status":14}", maybe retrying the RPC\n',
    },
    "hang_no_error",
    None,
)


# ---------------------------------------------------------------- gpu_oom (NCCL's unhandled cuda error)
_BARRIER = [
    ("/work/train.py", 51, "<module>", "dist.barrier()"),
    (f"{SP}/torch/distributed/distributed_c10d.py", 4159, "barrier", "work = group.barrier(opts=opts)"),
]
_UNHANDLED = "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"

# 6 a CUDA call inside NCCL failed in the backward's gradient all-reduce, no NCCL_DEBUG detail
CASES["nccl_unhandled_cuda_error_in_backward"] = (
    {
        "rank2.log": pre(
            "[rank2]: ",
            [
                *tb(
                    [
                        ("/srv/llm/pretrain.py", 402, "train_step", "loss.backward()"),
                        (f"{SP}/torch/_tensor.py", 581, "backward", "torch.autograd.backward("),
                        (
                            f"{SP}/torch/nn/parallel/distributed.py",
                            1240,
                            "_sync_buckets",
                            "work = dist.all_reduce(tensor, async_op=True)",
                        ),
                    ],
                    _UNHANDLED.replace("2.21.5", "2.20.5"),
                ),
                "ncclUnhandledCudaError: Call to CUDA function failed.",
            ],
        ),
    },
    "gpu_oom",
    None,
)

# lookalike: the same error at the first barrier, NCCL naming P2P as what failed
CASES["lookalike_unhandled_cuda_error_p2p_at_barrier"] = (
    {
        "rank1.log": pre(
            "[rank1]: ",
            [
                *tb(_BARRIER, _UNHANDLED),
                "ncclUnhandledCudaError: Call to CUDA function failed.",
                "Last error:",
                "Cuda failure 217 'peer access is not supported between these two devices'",
            ],
        ),
    },
    "nccl_comm_error",
    None,
)

# lookalike: the bare error at the first barrier (set-up, not a step's peak): stays the NCCL answer
CASES["lookalike_unhandled_cuda_error_bare_at_barrier"] = (
    {
        "rank1.log": pre(
            "[rank1]: ",
            [*tb(_BARRIER, _UNHANDLED), "ncclUnhandledCudaError: Call to CUDA function failed."],
        ),
    },
    "nccl_comm_error",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_save_consolidation_and_neuron_memory_or_surface(
    name: str, diagnose_dir: Run, tmp_path: Path
) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
