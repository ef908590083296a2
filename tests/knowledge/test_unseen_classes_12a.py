# ruff: noqa: E501 - realistic log lines are long
"""Two libraries at versions that do not fit (env_version_mismatch) against a bug in the user's own code
(shape_or_user_code_error), on logs the engine had not seen. Version side: an engine's own ZeRO
partitions on two devices inside its optimizer step (a DeepSpeed offload regression), NCCL 1's
`invalid data type` (a library linked against the wrong NCCL), a library's NotImplementedError for
what a later release implements, a class looked up on what is now a function, signature errors quoted
without any frame. Lookalikes keep their class: the user's tensors on the wrong device inside model
code, torch's abstract `Dataset.__getitem__`, the project's own NotImplementedError, an attribute of a
function the user forgot to call, a signature error in the project's own call, NCCL 2's `invalid
argument`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/opt/conda/envs/train/lib/python3.11/site-packages"
DP = "/usr/local/lib/python3.10/dist-packages"


def torchrun_summary(rank: int, ts: str = "2024-09-14_08:12:40") -> list[str]:
    return [
        "E0914 08:12:41.118000 140214 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) local_rank: 0 (pid: 5112) of binary: /opt/conda/envs/train/bin/python",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        f"  time      : {ts}",
        "  host      : gpu-node-03",
        f"  rank      : {rank} (local_rank: {rank})",
        "  exitcode  : 1 (pid: 5112)",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "============================================================",
    ]


CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- env_version_mismatch
# 1 DeepSpeed ZeRO-2 with optimizer offload: the fp32 partition on CPU, the grad norm on the GPU, every rank
_ZERO2_FRAMES = [
    ("/home/ml/proj/sft/train.py", 212, "main", "trainer.train()"),
    (f"{SP}/transformers/trainer.py", 1938, "train", "return inner_training_loop("),
    (f"{SP}/transformers/trainer.py", 2356, "_inner_training_loop", "self.optimizer.step()"),
    (f"{SP}/accelerate/optimizer.py", 165, "step", "self.optimizer.step(closure)"),
    (
        f"{SP}/deepspeed/runtime/zero/stage_1_and_2.py",
        1853,
        "step",
        "self.unscale_and_clip_grads([self.single_partition_of_fp32_groups[i].grad], scaled_global_grad_norm)",
    ),
    (
        f"{SP}/deepspeed/runtime/zero/stage_1_and_2.py",
        1951,
        "unscale_and_clip_grads",
        "grad.data.mul_(1. / combined_scale)",
    ),
]
CASES["deepspeed_offload_partition_on_two_devices"] = (
    {
        f"rank{r}.log": pre(
            "",
            [
                "[2024-09-14 08:12:30,011] [INFO] [stage_1_and_2.py:550:__init__] optimizer state initialized",
                "{'loss': 1.8731, 'grad_norm': 0.0, 'learning_rate': 2e-05, 'epoch': 0.0}",
                *tb(
                    _ZERO2_FRAMES,
                    f"RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:{r} and cpu!",
                ),
            ],
        )
        for r in range(4)
    },
    "env_version_mismatch",
    None,
)

# 2 Horovod (PyTorch) built against NCCL 2 headers, NCCL 1 loaded at run time: mpirun --tag-output
_HVD = [
    ("/work/resnet/train_hvd.py", 141, "<module>", "train(epoch)"),
    ("/work/resnet/train_hvd.py", 97, "train", "optimizer.step()"),
    (f"{DP}/horovod/torch/optimizer.py", 252, "step", "self.synchronize()"),
    (f"{DP}/horovod/torch/optimizer.py", 205, "synchronize", "output = synchronize(handle)"),
    (f"{DP}/horovod/torch/mpi_ops.py", 882, "synchronize", "raise HorovodInternalError(e)"),
]
CASES["horovod_nccl1_invalid_data_type"] = (
    {
        "mpirun.log": "".join(
            pre(
                f"[1,{r}]<stderr>:",
                tb(
                    _HVD,
                    "horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: invalid data type",
                ),
            )
            for r in range(2)
        )
        + "--------------------------------------------------------------------------\nPrimary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job has been aborted.\n--------------------------------------------------------------------------\n",
    },
    "env_version_mismatch",
    None,
)

# 3 accelerate's RTX 4000 P2P check (a later release dropped it for fixed drivers), every rank at start-up
_ACC = [
    ("/home/ml/lora/finetune.py", 58, "<module>", "args = parser.parse_args_into_dataclasses()[0]"),
    (f"{SP}/transformers/hf_argparser.py", 339, "parse_args_into_dataclasses", "obj = dtype(**inputs)"),
    ("<string>", 124, "__init__", ""),
    (f"{SP}/transformers/training_args.py", 1551, "__post_init__", 'and (self.device.type != "cuda")'),
    (f"{SP}/transformers/training_args.py", 2028, "device", "return self._setup_devices"),
    (f"{SP}/transformers/training_args.py", 1959, "_setup_devices", "self.distributed_state = PartialState("),
    (f"{SP}/accelerate/state.py", 190, "__init__", "raise NotImplementedError("),
]
CASES["accelerate_not_implemented_p2p_check"] = (
    {
        "train.log": "".join(
            pre(
                f"[rank{r}]: ",
                tb(
                    _ACC,
                    'NotImplementedError: Using RTX 4000 series doesn\'t support faster communication broadband via P2P or IB. Please set `NCCL_P2P_DISABLE="1"` and `NCCL_IB_DISABLE="1" or use `accelerate launch` which will do this automatically.',
                ),
            )
            for r in range(2)
        ),
    },
    "env_version_mismatch",
    None,
)

# 4 peft refuses an 8-bit merge that a later release implements; rank 0 merges after training
_PEFT = [
    ("/srv/jobs/qlora/merge_and_push.py", 44, "main", "model = model.merge_and_unload()"),
    (f"{DP}/peft/tuners/lora.py", 362, "merge_and_unload", "return self._unload_and_optionally_merge()"),
    (f"{DP}/peft/tuners/lora.py", 318, "_unload_and_optionally_merge", "raise NotImplementedError("),
]
CASES["peft_not_implemented_merge"] = (
    {
        "rank0.log": pre(
            "",
            [
                "{'train_runtime': 5321.8, 'train_samples_per_second': 3.1, 'train_loss': 1.042, 'epoch': 1.0}",
                *tb(
                    _PEFT,
                    "NotImplementedError: Cannot merge LORA layers when the model is loaded in 8-bit mode",
                ),
            ],
        ),
        "rank1.log": "{'train_runtime': 5321.9, 'train_samples_per_second': 3.1, 'train_loss': 1.042, 'epoch': 1.0}\n",
    },
    "env_version_mismatch",
    0,
)

# 5 a framework's shim reads a class off what torch now exports as a function
_SHIM = [
    (
        "/home/u/rlhf/rlhf/trainer/fsdp_worker.py",
        311,
        "build_model",
        "model = apply_fsdp2(model, mesh, mp_policy)",
    ),
    (
        "/home/u/rlhf/rlhf/utils/fsdp_compat.py",
        88,
        "apply_fsdp2",
        "policy_cls = fully_shard_api.MixedPrecisionPolicy",
    ),
]
CASES["function_object_has_no_class_attribute"] = (
    {
        "worker_0.log": pre(
            "[rank0]: ",
            tb(_SHIM, "AttributeError: 'function' object has no attribute 'MixedPrecisionPolicy'"),
        ),
        "worker_1.log": pre(
            "[rank1]: ",
            tb(_SHIM, "AttributeError: 'function' object has no attribute 'MixedPrecisionPolicy'"),
        ),
    },
    "env_version_mismatch",
    None,
)

# 6 only the error lines were pasted: a signature error with no frame that says who made the call
CASES["signature_error_quoted_without_frames"] = (
    {
        "issue_paste.txt": pre(
            "",
            [
                "[rank0]: UserWarning: checkpoint directory /mnt/ckpt/run7 exists and is not empty",
                "[rank0]: TypeError: DistributedCheckpointer.async_save() got an unexpected keyword argument 'storage_writer_kwargs'",
                "[rank1]: TypeError: DistributedCheckpointer.async_save() got an unexpected keyword argument 'storage_writer_kwargs'",
                *torchrun_summary(0),
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# ---------------------------------------------------------------- shape_or_user_code_error lookalikes
# 7 the user's labels stay on the CPU: the mismatch is raised in model code under the user's loop
_USER_DEV = [
    (
        "/home/ml/cls/train.py",
        133,
        "<module>",
        "loss = model(input_ids=batch['input_ids'].cuda(), labels=batch['labels'])[0]",
    ),
    (
        f"{SP}/torch/nn/modules/module.py",
        1553,
        "_wrapped_call_impl",
        "return self._call_impl(*args, **kwargs)",
    ),
    (f"{SP}/torch/nn/modules/module.py", 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
    (f"{SP}/deepspeed/runtime/engine.py", 1899, "forward", "loss = self.module(*inputs, **kwargs)"),
    (f"{SP}/torch/nn/modules/module.py", 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
    (
        f"{SP}/transformers/models/bert/modeling_bert.py",
        1712,
        "forward",
        "loss = loss_fct(logits.view(-1, self.num_labels), labels.view(-1))",
    ),
    (f"{SP}/torch/nn/modules/module.py", 1562, "_call_impl", "return forward_call(*args, **kwargs)"),
    (
        f"{SP}/torch/nn/modules/loss.py",
        1188,
        "forward",
        "return F.cross_entropy(input, target, weight=self.weight,",
    ),
    (
        f"{SP}/torch/nn/functional.py",
        3104,
        "cross_entropy",
        "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)",
    ),
]
CASES["user_labels_left_on_cpu"] = (
    {
        f"rank{r}.log": pre(
            f"[rank{r}]: ",
            tb(
                _USER_DEV,
                f"RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:{r} and cpu! (when checking argument for argument target in method wrapper_CUDA_nll_loss2d_forward)",
            ),
        )
        for r in range(2)
    },
    "shape_or_user_code_error",
    None,
)

# 8 the user's Dataset subclass never implemented __getitem__ (torch's abstract method raises)
_DS = [
    ("/data/proj/pretrain.py", 301, "train_epoch", "for step, batch in enumerate(loader):"),
    (f"{SP}/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
    (
        f"{SP}/torch/utils/data/dataloader.py",
        673,
        "_next_data",
        "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration",
    ),
    (
        f"{SP}/torch/utils/data/_utils/fetch.py",
        52,
        "fetch",
        "data = [self.dataset[idx] for idx in possibly_batched_index]",
    ),
    (
        f"{SP}/torch/utils/data/dataset.py",
        61,
        "__getitem__",
        'raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")',
    ),
]
CASES["user_dataset_abstract_getitem"] = (
    {
        "rank0.log": pre(
            "[rank0]: ", tb(_DS, "NotImplementedError: Subclasses of Dataset should implement __getitem__.")
        )
        + pre("", torchrun_summary(0)),
    },
    "shape_or_user_code_error",
    0,
)

# 9 the project's own NotImplementedError for a configuration it does not support
_OWN = [
    ("/home/res/vitproj/main.py", 77, "main", "model = build_model(cfg.model)"),
    ("/home/res/vitproj/models/factory.py", 41, "build_model", "head = build_head(cfg.head)"),
    (
        "/home/res/vitproj/models/heads.py",
        112,
        "build_head",
        'raise NotImplementedError(f"head type {cfg.type!r} is not implemented")',
    ),
]
CASES["project_not_implemented_head"] = (
    {
        "rank0.log": pre("", tb(_OWN, "NotImplementedError: head type 'mlp_mixer' is not implemented")),
    },
    "shape_or_user_code_error",
    None,
)

# 10 the user forgot to call the model factory: an attribute of a function, lower-case
_FN = [
    ("/home/stud/ddp_toy/train.py", 64, "main", "model = build_resnet.cuda(local_rank)"),
]
CASES["user_attribute_of_uncalled_function"] = (
    {
        "node0.log": pre("[rank0]: ", tb(_FN, "AttributeError: 'function' object has no attribute 'cuda'"))
        + pre("[rank1]: ", tb(_FN, "AttributeError: 'function' object has no attribute 'cuda'")),
    },
    "shape_or_user_code_error",
    None,
)

# 11 a signature error in the project's own call, every frame the project's
_SIG = [
    ("/home/ml/asr/train.py", 188, "main", "batch = collate(samples, pad_id)"),
    ("/home/ml/asr/data/collate.py", 23, "__call__", "return self.fn(samples, pad_id)"),
]
CASES["project_signature_error"] = (
    {
        "rank3.log": pre("", tb(_SIG, "TypeError: pad_batch() takes 1 positional argument but 2 were given")),
    },
    "shape_or_user_code_error",
    None,
)

# 12 NCCL 2's invalid argument is a usage/communication error, not NCCL 1's wording
CASES["nccl2_invalid_argument_stays_comm"] = (
    {
        "rank1.log": pre(
            "[rank1]: ",
            tb(
                [
                    ("/workspace/train.py", 90, "main", "dist.all_reduce(t)"),
                    (f"{SP}/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                    (
                        f"{SP}/torch/distributed/distributed_c10d.py",
                        2501,
                        "all_reduce",
                        "work = group.allreduce([tensor], opts)",
                    ),
                ],
                "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027, invalid argument (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5",
            ),
        ),
    },
    "nccl_comm_error",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_version_or_code_class(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
