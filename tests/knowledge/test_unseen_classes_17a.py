# ruff: noqa: E501 - realistic log lines are long
"""Version mismatches whose fact is in the failure's own lines (round 17a), against the same surfaces
without it.

env_version_mismatch:
- NCCL 2.18.1-2.18.5's connection set-up bug: `Cuda failure 'invalid argument'` (NCCL's CUDACHECK,
  torch's `Last error:`) in a job that names one of those releases. `ncclTransportP2pSetup` used the
  result of an async copy before it completed (NVIDIA/nccl#957, fixed in 2.18.6); it is a release to
  replace, not a slow rank or a network fault.
- torch counting more GPUs than the runtime shows: `CUDA call failed lazily at initialization with
  error: tuple index out of range` from manual_seed_all's `default_generators[i]` (torch 2.4/2.5 on
  ROCm ignore the ROCR_VISIBLE_DEVICES Ray >= 2.10 sets; pytorch/pytorch#140318).
- Megatron-Core calling TransformerEngine's `get_cpu_offload_context` with another release's argument
  order (a misread TE version): TE's `CPU Offloading is enabled while it is not mentioned what to
  offload` from Megatron's wrapper.
- verl's SGLang rollout finding no tool-call parser for a tokenizer that has `<tool_call>` (SGLang
  0.4.6.post5 spelled the parser's tokens with newlines; verl 0.4.1 strips them).
Lookalikes keep their class: the same CUDA error under NCCL 2.19, NCCL 2.18.5's `unhandled system
error`, the lazy-init device assert, a user IndexError, the TE error from the job's own call, a
tokenizer with no tool-call tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/opt/conda/lib/python3.10/site-packages"

CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}


def _nccl_error(version: str, kind: str, last: str) -> list[str]:
    """torch's DistBackendError for a failed NCCL call and NCCL's `Last error:` lines."""
    return [
        f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1251, {kind} (run with NCCL_DEBUG=INFO for details), NCCL version {version}",
        "ncclUnhandledCudaError: Call to CUDA function failed."
        if "cuda" in kind
        else "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
        "Last error:",
        last,
    ]


_ALLREDUCE = [
    ("/srv/jobs/seg/train_seg.py", 91, "main", "dist.all_reduce(warmup, op=dist.ReduceOp.SUM)"),
    (f"{SP}/torch/distributed/c10d_logger.py", 72, "wrapper", "return func(*args, **kwargs)"),
    (
        f"{SP}/torch/distributed/distributed_c10d.py",
        1992,
        "all_reduce",
        "work = group.allreduce([tensor], opts)",
    ),
]

# ---------------------------------------------------------------- env_version_mismatch: NCCL 2.18.1-2.18.5
# 1 four GPUs on a Linux server, NCCL_DEBUG=INFO: the WARN at transport.cc:154, the first all_reduce
CASES["nccl_2_18_3_transport_invalid_argument_debug"] = (
    {
        "train.log": "".join(
            [
                "gpu-a17:50211:50211 [0] NCCL INFO cudaDriverVersion 12020\n",
                "NCCL version 2.18.3+cuda12.1\n",
                "gpu-a17:50213:50298 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via P2P/IPC\n",
                "gpu-a17:50213:50298 [2] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'\n",
                "gpu-a17:50213:50298 [2] NCCL INFO init.cc:1093 -> 1\n",
                pre("[rank2]: ", tb(_ALLREDUCE, "")[:-1]),
                pre(
                    "[rank2]: ",
                    _nccl_error("2.18.3", "unhandled cuda error", "Cuda failure 'invalid argument'"),
                ),
            ]
        ),
    },
    "env_version_mismatch",
    None,
)

# 2 no NCCL_DEBUG: only torch's suffix names the release, two ranks' lines interleaved
CASES["nccl_2_18_1_torch_suffix_only_two_ranks"] = (
    {
        "job.out": pre(
            "[rank0]: ", _nccl_error("2.18.1", "unhandled cuda error", "Cuda failure 'invalid argument'")
        )
        + pre("[rank1]: ", _nccl_error("2.18.1", "unhandled cuda error", "Cuda failure 'invalid argument'")),
    },
    "env_version_mismatch",
    None,
)

# 3 lookalike: the same CUDA error under a release with the fix is not this bug
CASES["nccl_2_19_invalid_argument_not_release_bug"] = (
    {
        "job.out": pre(
            "[rank0]: ", _nccl_error("2.19.3", "unhandled cuda error", "Cuda failure 'invalid argument'")
        )
        + pre("[rank1]: ", _nccl_error("2.19.3", "unhandled cuda error", "Cuda failure 'invalid argument'")),
    },
    "nccl_comm_error",
    None,
)

# 4 lookalike: NCCL 2.18.5 with a socket failure stays the network error
CASES["nccl_2_18_5_system_error_stays_comm"] = (
    {
        "node2.log": "".join(
            [
                "node2:3310:3391 [1] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer node1<41022>\n",
                pre(
                    "[rank9]: ",
                    _nccl_error(
                        "2.18.5",
                        "unhandled system error",
                        "Net : Connection closed by remote peer node1<41022>",
                    ),
                ),
            ]
        ),
    },
    "nccl_comm_error",
    None,
)

# ---------------------------------------------------------------- env_version_mismatch: device count
_SEED_TAIL = [
    "",
    "CUDA call was originally invoked at:",
    "",
    '  File "/app/rl/workers/actor.py", line 41, in setup',
    "    torch.manual_seed(self.cfg.seed)",
    f'  File "{SP}/torch/random.py", line 46, in manual_seed',
    "    torch.cuda.manual_seed_all(seed)",
    f'  File "{SP}/torch/cuda/random.py", line 127, in manual_seed_all',
    "    _lazy_call(cb, seed_all=True)",
]

# 5 a verl-style Ray actor on MI300X: the chained IndexError and the deferred error
CASES["rocm_ray_actor_seed_all_index_out_of_range"] = (
    {
        "driver.log": "\n".join(
            [
                "ray.exceptions.RayTaskError(DeferredCudaCallError): ray::WorkerDict.actor_rollout_init_model() (pid=31877, ip=10.4.2.9)",
                f'  File "{SP}/torch/cuda/random.py", line 125, in cb',
                "    default_generator = torch.cuda.default_generators[i]",
                "IndexError: tuple index out of range",
                "",
                "The above exception was the direct cause of the following exception:",
                "",
                '  File "/app/rl/workers/actor.py", line 57, in init_model',
                "    torch.cuda.set_device(self.local_rank)",
                f'  File "{SP}/torch/cuda/__init__.py", line 330, in _lazy_init',
                "    raise DeferredCudaCallError(msg) from e",
                "torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: tuple index out of range",
                *_SEED_TAIL,
            ]
        )
        + "\n",
    },
    "env_version_mismatch",
    None,
)

# 6 only the deferred error's line survived (a launcher prefix, the chained part cut)
CASES["lazy_init_index_error_line_only"] = (
    {
        "rank3.log": pre(
            "[default3]:",
            [
                "torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: tuple index out of range",
                *_SEED_TAIL,
            ],
        ),
    },
    "env_version_mismatch",
    None,
)

# 7 lookalike: an IndexError in the job's own code stays a code error
CASES["user_index_error_stays_code_error"] = (
    {
        "train.log": "\n".join(
            tb(
                [("/home/ana/proj/data.py", 77, "__getitem__", "label = self.labels[idx]")],
                "IndexError: tuple index out of range",
            )
        )
        + "\n",
    },
    "shape_or_user_code_error",
    None,
)

# 8 lookalike: the device index past the visible GPUs (LOCAL_RANK against CUDA_VISIBLE_DEVICES) is not it
CASES["lazy_init_device_assert_keeps_its_class"] = (
    {
        "rank2.log": pre(
            "[rank2]: ",
            [
                'torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "../aten/src/ATen/cuda/CUDAContext.cpp":50, please report a bug to PyTorch. device=2, num_gpus=',
                "",
                "CUDA call was originally invoked at:",
            ],
        ),
    },
    "shape_or_user_code_error",
    None,
)

# ---------------------------------------------------------------- env_version_mismatch: TE offload args
_MEGATRON = [
    ("/workspace/Megatron-LM/pretrain_gpt.py", 283, "<module>", "pretrain("),
    (f"{SP}/megatron/core/models/gpt/gpt_model.py", 187, "__init__", "self.decoder = TransformerBlock("),
    (f"{SP}/megatron/core/transformer/transformer_block.py", 298, "__init__", "get_cpu_offload_context("),
    (
        f"{SP}/megatron/core/extensions/transformer_engine.py",
        1702,
        "get_cpu_offload_context",
        "context, sync_func = _get_cpu_offload_context(",
    ),
    (f"{SP}/transformer_engine/pytorch/cpu_offload.py", 512, "get_cpu_offload_context", "raise ValueError("),
]
_TE_MSG = (
    "ValueError: CPU Offloading is enabled while it is not mentioned what to offload (weights/activations)"
)

# 9 Megatron-LM under torchrun, one rank's traceback
CASES["megatron_te_offload_args_misread"] = (
    {"rank1.log": pre("[rank1]: ", tb(_MEGATRON, _TE_MSG))},
    "env_version_mismatch",
    None,
)

# 10 lookalike: the job's own code asked TE for an offload context with nothing to offload
CASES["own_te_offload_call_stays_code_error"] = (
    {
        "run.log": "\n".join(
            tb(
                [
                    (
                        "/home/li/te_bench/run.py",
                        64,
                        "build",
                        "ctx, sync = get_cpu_offload_context(True, 4, 24, False, False)",
                    ),
                    (
                        f"{SP}/transformer_engine/pytorch/cpu_offload.py",
                        512,
                        "get_cpu_offload_context",
                        "raise ValueError(",
                    ),
                ],
                _TE_MSG,
            )
        )
        + "\n",
    },
    "shape_or_user_code_error",
    None,
)

# ---------------------------------------------------------------- env_version_mismatch: tool parser tokens
_VERL = [
    ("/opt/verl/verl/workers/fsdp_workers.py", 512, "_build_rollout", "rollout = SGLangRollout("),
    (
        "/opt/verl/verl/workers/rollout/sglang_rollout/sglang_rollout.py",
        392,
        "_initialize_tools",
        "tool_call_parser_type = get_tool_call_parser_type(tokenizer)",
    ),
    (
        "/opt/verl/verl/workers/rollout/sglang_rollout/sglang_rollout.py",
        118,
        "get_tool_call_parser_type",
        'raise ValueError(f"No tool call parser found for tokenizer {tokenizer}")',
    ),
]


def _tokenizer_repr(cls: str, added: list[tuple[int, str, bool]]) -> list[str]:
    """The tokenizer's repr as the ValueError prints it, its added tokens one a line."""
    head = f"ValueError: No tool call parser found for tokenizer {cls}(name_or_path='/models/ckpt', vocab_size=151643, model_max_length=40960, is_fast=True, padding_side='left', truncation_side='right', special_tokens={{'eos_token': '<|im_end|>'}}, clean_up_tokenization_spaces=False, added_tokens_decoder={{"
    rows = [
        f'        {i}: AddedToken("{tok}", rstrip=False, lstrip=False, single_word=False, normalized=False, special={sp}),'
        for i, tok, sp in added
    ]
    return [head, *rows, "}", ")"]


# 11 Qwen3's tokenizer has the tool-call tokens, yet no parser matched
CASES["verl_sglang_parser_tokens_changed"] = (
    {
        "main_ppo.log": "\n".join(
            tb(_VERL, "")[:-1]
            + _tokenizer_repr(
                "Qwen2TokenizerFast",
                [
                    (151643, "<|endoftext|>", True),
                    (151644, "<|im_start|>", True),
                    (151645, "<|im_end|>", True),
                    (151657, "<tool_call>", False),
                    (151658, "</tool_call>", False),
                    (151665, "<tool_response>", False),
                ],
            )
        )
        + "\n",
    },
    "env_version_mismatch",
    None,
)

# 12 lookalike: a tokenizer without any tool-call token (a model with no tool format) is configuration
CASES["verl_parser_model_without_tool_tokens_stays_code_error"] = (
    {
        "main_ppo.log": "\n".join(
            tb(_VERL, "")[:-1]
            + _tokenizer_repr(
                "PreTrainedTokenizerFast",
                [
                    (128000, "<|begin_of_text|>", True),
                    (128001, "<|end_of_text|>", True),
                    (128002, "<|reserved_special_token_0|>", True),
                ],
            )
        )
        + "\n",
    },
    "shape_or_user_code_error",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_version_fact_in_failure_lines_or_surface(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
