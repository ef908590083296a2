# ruff: noqa: E501 - realistic log lines are long
"""The two classes the product was born for, on whole jobs written in the frameworks' own wording.

`gpu_oom_checkpoint_gather` (rank 0 runs out of GPU memory while DeepSpeed ZeRO-3 or FSDP gathers the
full weights for a save) and `cpu_oom_checkpoint` (host RAM runs out while every rank builds a full
state dict, or while a checkpoint is loaded) must be named right every time, with the rank that
started it even when the other ranks' collateral is louder; and the same OOM lines outside a save
must stay the ordinary `gpu_oom` / `host_oom`. The message formats follow the code that prints them:
DeepSpeed `runtime/engine.py` (`save_checkpoint`, `save_16bit_model`,
`_zero3_consolidated_16bit_state_dict`), PyTorch `fsdp/_state_dict_utils.py`, the c10d watchdog, the
elastic agent's failure summary, the kernel's `oom_kill.c`, HF Trainer and datasets.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge.lines import parse_rank, reported_rank

Run = Callable[[Path], Diagnosis]

ESC = "\x1b"
CUDA_OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 78.08 GiB memory in "
    "use. Of the allocated memory 75.52 GiB is allocated by PyTorch, and 1.02 GiB is reserved by PyTorch but "
    "unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)
SITE = "/opt/conda/lib/python3.11/site-packages"


def _write(folder: Path, name: str, lines: list[str]) -> Path:
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _ds_steps(rank: int, first: int, last: int, minute: int) -> list[str]:
    return [
        f"[2026-03-04 10:{minute:02d}:{s % 60:02d},512] [INFO] [logging.py:128:log_dist] [Rank {rank}] "
        f"step={s}, skipped=0, lr=[1.9e-05], mom=[(0.9, 0.95)]"
        for s in range(first, last + 1, 10)
    ]


def _watchdog(rank: int) -> list[str]:
    """What a waiting rank prints 30 minutes later (torch 2.4 ProcessGroupNCCL.cpp)."""
    return [
        f"[rank{rank}]:[E304 10:45:41.118731042 ProcessGroupNCCL.cpp:607] [Rank {rank}] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=52311, OpType=_ALLGATHER_BASE, NumelIn=2621440, NumelOut=20971520, "
        "Timeout(ms)=1800000) ran for 1800077 milliseconds before timing out.",
        f"[rank{rank}]:[E304 10:45:41.119022811 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {rank}] Exception "
        "(either an error or timeout) detected by watchdog at work: 52311, last enqueued NCCL work: 52311, last "
        "completed NCCL work: 52310.",
        f"[rank{rank}]:[E304 10:45:41.119101203 ProcessGroupNCCL.cpp:621] [Rank {rank}] Some NCCL operations have "
        "failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run "
        "on corrupted/incomplete data.",
        f"[rank{rank}]:[E304 10:45:41.119177604 ProcessGroupNCCL.cpp:627] [Rank {rank}] To avoid data inconsistency, "
        "we are taking the entire process down.",
        "terminate called after throwing an instance of 'c10::DistBackendError'",
    ]


def _zero3_save_traceback(prefix: str = "") -> list[str]:
    frames = [
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 212, in <module>',
        "    engine.save_16bit_model(args.output_dir, 'pytorch_model.bin')",
        f'  File "{SITE}/deepspeed/runtime/engine.py", line 3637, in save_16bit_model',
        "    state_dict = self._zero3_consolidated_16bit_state_dict(exclude_frozen_parameters=exclude_frozen_parameters)",
        f'  File "{SITE}/deepspeed/runtime/engine.py", line 3579, in _zero3_consolidated_16bit_state_dict',
        '    get_layer_state_dict(self.module, prefix="")',
        f'  File "{SITE}/deepspeed/runtime/engine.py", line 3556, in get_layer_state_dict',
        "    with deepspeed.zero.GatheredParameters(list(module.parameters(recurse=False)), modifier_rank=0):",
        f'  File "{SITE}/deepspeed/runtime/zero/partition_parameters.py", line 2235, in __enter__',
        "    self.params[0].all_gather(param_list=self.params)",
        f'  File "{SITE}/deepspeed/runtime/zero/partition_parameters.py", line 1154, in all_gather',
        "    return self._all_gather(param_list, async_op=async_op, hierarchy=hierarchy)",
        CUDA_OOM,
    ]
    return [prefix + f for f in frames]


def test_zero3_save_16bit_model_oom_on_rank0_beats_the_louder_timeouts(
    tmp_path: Path, diagnose_dir: Run
) -> None:
    """Rank 0 OOMs gathering the 16-bit weights; ranks 1-3 wait in the all-gather and hit the watchdog
    thirty minutes later, with more lines than rank 0 has: the start is rank 0's OOM, not the loudest."""
    rank0 = [  # engine.py's order: the sharded save_checkpoint completes ("is ready now"), then
        # save_16bit_model consolidates before it logs anything ("Saving model weights to" follows it)
        *_ds_steps(0, 3910, 4000, 14),
        "[2026-03-04 10:15:20,004] [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] Checkpoint global_step4000 is about to be saved!",
        "[2026-03-04 10:15:38,771] [INFO] [logging.py:128:log_dist] [Rank 0] Saving model checkpoint: out/global_step4000/mp_rank_00_model_states.pt",
        "[2026-03-04 10:15:39,120] [INFO] [engine.py:3645:_save_zero_checkpoint] zero checkpoint saved out/global_step4000/zero_pp_rank_0_mp_rank_00_optim_states.pt",
        "[2026-03-04 10:15:39,902] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step4000 is ready now!",
        *_zero3_save_traceback(),
    ]
    _write(tmp_path, "rank0.log", rank0)
    for r in (1, 2, 3):
        _write(tmp_path, f"rank{r}.log", [*_ds_steps(r, 3910, 4000, 14), *_watchdog(r) * 3])
    diag = diagnose_dir(tmp_path)
    assert diag.category == "gpu_oom_checkpoint_gather", diag.root_cause
    assert diag.initiating.rank == 0
    assert diag.initiating.phase == "checkpoint_save"
    assert {r for g in diag.collateral for r in g.ranks} >= {1, 2, 3}


def test_hf_trainer_zero3_gather_in_one_prefixed_stream(tmp_path: Path, diagnose_dir: Run) -> None:
    """One torchrun stream with `[rankN]:` prefixes, kubectl timestamps and colours: rank 0's traceback
    goes through Trainer._save_checkpoint and Accelerate's get_state_dict into the ZeRO-3 gather."""
    stamp = "2026-03-04T10:15:{:02d}.{:06d}Z "
    head = [
        stamp.format(0, 1)
        + f"{ESC}[32m[INFO|trainer.py:3705]{ESC}[0m 2026-03-04 10:15:00,001 >> Saving model checkpoint to out/checkpoint-2500",
    ]
    trace = [
        "Traceback (most recent call last):",
        f'  File "{SITE}/transformers/trainer.py", line 2052, in train',
        f'  File "{SITE}/transformers/trainer.py", line 3010, in _save_checkpoint',
        "    self.save_model(output_dir, _internal_call=True)",
        f'  File "{SITE}/transformers/trainer.py", line 3590, in save_model',
        "    state_dict = self.accelerator.get_state_dict(self.deepspeed)",
        f'  File "{SITE}/accelerate/accelerator.py", line 3296, in get_state_dict',
        "    state_dict = model._zero3_consolidated_16bit_state_dict()",
        f'  File "{SITE}/deepspeed/runtime/engine.py", line 3579, in _zero3_consolidated_16bit_state_dict',
        CUDA_OOM,
    ]
    body = [stamp.format(1, 100 + i) + "[rank0]: " + t for i, t in enumerate(trace)]
    later = [
        f"2026-03-04T10:45:{1 + r:02d}.000000Z " + w for r in (1, 2, 3, 4, 5, 6, 7) for w in _watchdog(r)[:2]
    ]
    _write(tmp_path, "job.log", [*head, *body, *later])
    diag = diagnose_dir(tmp_path)
    assert diag.category == "gpu_oom_checkpoint_gather", diag.root_cause
    assert diag.initiating.rank == 0
    assert diag.initiating.phase == "checkpoint_save"


def _fsdp_rank_log(rank: int, warning: bool) -> list[str]:
    lines = [
        f"[rank{rank}]:{{'loss': 1.4127, 'grad_norm': 0.61, 'learning_rate': 1.8e-05, 'epoch': 0.97}}",
        f"[rank{rank}]:[INFO|trainer.py:3705] 2026-05-11 02:10:00,118 >> Saving model checkpoint to /ckpt/llama-70b/checkpoint-1000",
    ]
    if warning:
        lines.append(
            f"[rank{rank}]:{SITE}/torch/distributed/fsdp/_state_dict_utils.py:773: UserWarning: When using "
            "``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned."
        )
    return lines


def _torchrun_summary(first: tuple[int, int], others: list[tuple[int, int]], signal: int = 9) -> list[str]:
    """torchrun's failure summary (errors/__init__.py); `others` died of `signal` (9: killed too,
    15: the agent's own SIGTERM)."""
    name = {9: "SIGKILL", 15: "SIGTERM"}[signal]
    rank, pid = first
    out = [
        f"E0511 02:11:42.553000 140 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -9) local_rank: {rank} (pid: {pid}) of binary: /usr/bin/python3",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
    ]
    for i, (r, p) in enumerate(others, 1):
        out += [
            f"[{i}]:",
            "  time      : 2026-05-11_02:11:42",
            "  host      : gpu-node-07",
            f"  rank      : {r} (local_rank: {r})",
            f"  exitcode  : -{signal} (pid: {p})",
            "  error_file: <N/A>",
            f"  traceback : Signal {signal} ({name}) received by PID {p}",
        ]
    out += [
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-05-11_02:11:41",
        "  host      : gpu-node-07",
        f"  rank      : {rank} (local_rank: {rank})",
        f"  exitcode  : -9 (pid: {pid})",
        "  error_file: <N/A>",
        f"  traceback : Signal 9 (SIGKILL) received by PID {pid}",
        "============================================================",
    ]
    return out


@pytest.mark.parametrize("warning", [True, False], ids=["fsdp-warning", "save-line-only"])
def test_fsdp_full_state_dict_on_every_rank_host_oom(
    tmp_path: Path, diagnose_dir: Run, warning: bool
) -> None:
    """FULL_STATE_DICT with offload_to_cpu but rank0_only=False: all eight ranks build a CPU copy, the
    kernel kills them one after another; torchrun reports -9 for all (a summary longer than the save).
    Host RAM at save, not training, also when nothing but the save line says so."""
    pids = {r: 88410 + r for r in range(8)}
    stream = [line for r in range(8) for line in _fsdp_rank_log(r, warning)]
    order = [3, 0, 5, 1, 2, 4, 6, 7]
    stream += _torchrun_summary((3, pids[3]), [(r, pids[r]) for r in order[1:]])
    _write(tmp_path, "torchrun.log", stream)
    dmesg = []
    for i, r in enumerate(order):
        t = 912733.101 + i * 0.4
        dmesg += [
            f"[{t:.6f}] python3 invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=0",
            f"[{t + 0.01:.6f}] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/kubepods/pod7f1,task=python3,pid={pids[r]},uid=1000",
            f"[{t + 0.02:.6f}] Out of memory: Killed process {pids[r]} (python3) total-vm:412004412kB, anon-rss:251883120kB, file-rss:81920kB, shmem-rss:2048kB, UID:1000 pgtables:498212kB oom_score_adj:0",
        ]
    _write(tmp_path, "gpu-node-07.dmesg", dmesg)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "cpu_oom_checkpoint", diag.root_cause
    assert diag.initiating.phase == "checkpoint_save"
    assert diag.initiating.rank == 3  # the kernel's first victim, torchrun's first observed failure


def test_the_same_cuda_oom_in_a_zero3_training_step_stays_gpu_oom(tmp_path: Path, diagnose_dir: Run) -> None:
    """DeepSpeed ZeRO-3, a CUDA OOM inside the forward's parameter all-gather, long after a save ended:
    the gather of a training step is not a checkpoint gather."""
    lines = [
        "[2026-03-04 09:58:11,003] [INFO] [config.py:1003:print]   zero_optimization ............ {'stage': 3, 'stage3_gather_16bit_weights_on_model_save': True}",
        "[2026-03-04 10:00:02,771] [INFO] [logging.py:128:log_dist] [Rank 0] [Torch] Checkpoint global_step2000 is about to be saved!",
        "[2026-03-04 10:00:31,118] [INFO] [engine.py:3541:_save_zero_checkpoint] zero checkpoint saved out/global_step2000/zero_pp_rank_0_mp_rank_00_optim_states.pt",
        "[2026-03-04 10:00:31,201] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step2000 is ready now!",
        *_ds_steps(0, 2010, 2300, 5),
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 188, in <module>',
        "    loss = engine(batch)",
        f'  File "{SITE}/deepspeed/utils/nvtx.py", line 18, in wrapped_fn',
        f'  File "{SITE}/deepspeed/runtime/engine.py", line 1899, in forward',
        "    loss = self.module(*inputs, **kwargs)",
        f'  File "{SITE}/torch/nn/modules/module.py", line 1562, in _call_impl',
        f'  File "{SITE}/deepspeed/runtime/zero/parameter_offload.py", line 387, in _pre_forward_module_hook',
        "    self.pre_sub_module_forward_function(module)",
        f'  File "{SITE}/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 322, in fetch_sub_module',
        f'  File "{SITE}/deepspeed/runtime/zero/partition_parameters.py", line 1154, in all_gather',
        CUDA_OOM,
    ]
    _write(tmp_path, "rank0.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "gpu_oom", diag.root_cause
    assert diag.initiating.phase == "train"


def test_a_host_oom_while_tokenizing_the_dataset_stays_host_oom(tmp_path: Path, diagnose_dir: Run) -> None:
    """The model was loaded, then `datasets.map` with many processes filled the RAM: a data-phase host
    OOM, although a model load (a phase where a silent kill is a checkpoint OOM) came just before."""
    lines = [
        f"2026-06-01T08:00:01.000000Z {ESC}[1;34m[INFO|modeling_utils.py:3934]{ESC}[0m 2026-06-01 08:00:01,000 >> loading weights file /models/qwen2-72b/model.safetensors.index.json",
        "2026-06-01T08:02:10.000000Z Loading checkpoint shards: 100%|██████████| 37/37 [02:09<00:00,  3.49s/it]",
        "2026-06-01T08:02:11.000000Z [INFO|modeling_utils.py:4800] 2026-06-01 08:02:11,000 >> All model checkpoint weights were used when initializing Qwen2ForCausalLM.",
        "2026-06-01T08:02:15.000000Z Running tokenizer on dataset (num_proc=96):  12%|█▏        | 120000/1000000 [01:02<07:38, 1918.55 examples/s]",
        "2026-06-01T08:03:17.000000Z Running tokenizer on dataset (num_proc=96):  31%|███       | 310000/1000000 [02:04<04:36, 2497.10 examples/s]",
        "2026-06-01T08:03:40.000000Z E0601 08:03:40.000000 1 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -9) local_rank: 0 (pid: 4411) of binary: /usr/bin/python3",
    ]
    _write(tmp_path, "pod.log", lines)
    _write(
        tmp_path,
        "node.dmesg",
        [
            "[ 7201.334112] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-1f2,mems_allowed=0-1,oom_memcg=/kubepods/pod9a,task_memcg=/kubepods/pod9a/1f2,task=python3,pid=4411,uid=0",
            "[ 7201.334190] Memory cgroup out of memory: Killed process 4411 (python3) total-vm:981220412kB, anon-rss:503316480kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1012212kB oom_score_adj:-997",
        ],
    )
    diag = diagnose_dir(tmp_path)
    assert diag.category == "host_oom", diag.root_cause
    assert diag.initiating.phase == "data"


def test_fsdp_failed_to_clone_warning_with_colours_and_timestamps(tmp_path: Path, diagnose_dir: Run) -> None:
    """FSDP FULL_STATE_DICT without offload_to_cpu: the state-dict hook warns that the clone failed with
    CUDA OOM on rank 0, then the save raises; colours and a delivering tool's timestamps in front."""
    ts = "2026-07-19T21:04:{:02d}.{:03d}Z "
    lines = [
        ts.format(0, 0)
        + f"{ESC}[0m[rank0]:{{'loss': 0.9127, 'grad_norm': 0.33, 'learning_rate': 1e-05, 'epoch': 2.0}}",
        ts.format(1, 0) + "[rank0]:Saving model checkpoint to out/checkpoint-3000",
        ts.format(9, 500)
        + f"[rank0]:{SITE}/torch/distributed/fsdp/_state_dict_utils.py:350: UserWarning: Failed to clone() tensor with name "
        "_fsdp_wrapped_module.model.layers.61.mlp.down_proj.weight on rank 0. This may mean that this state_dict entry could point "
        "to invalid memory regions after returning from state_dict() call if this parameter is managed by FSDP. Please check clone "
        "implementation of _fsdp_wrapped_module.model.layers.61.mlp.down_proj.weight. Error: CUDA out of memory. Tried to allocate "
        "896.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 402.00 MiB is free.",
        ts.format(9, 700) + "[rank0]:Traceback (most recent call last):",
        ts.format(9, 701)
        + f'[rank0]:  File "{SITE}/transformers/trainer.py", line 3010, in _save_checkpoint',
        ts.format(9, 702)
        + f'[rank0]:  File "{SITE}/torch/distributed/fsdp/_state_dict_utils.py", line 720, in _post_state_dict_hook',
        ts.format(9, 703)
        + f'[rank0]:  File "{SITE}/torch/distributed/fsdp/_state_dict_utils.py", line 345, in _full_post_state_dict_hook',
        ts.format(9, 704) + "[rank0]:" + CUDA_OOM,
        "2026-07-19T21:34:10.000Z " + _watchdog(1)[0],
    ]
    _write(tmp_path, "pod-trainer-0.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "gpu_oom_checkpoint_gather", diag.root_cause
    assert diag.initiating.rank == 0
    assert diag.initiating.phase == "checkpoint_save"


def test_lightning_fsdp_cpu_allocator_oom_in_save_vs_in_a_batch(tmp_path: Path, diagnose_dir: Run) -> None:
    """The same DefaultCPUAllocator error: inside Lightning's checkpoint save it is the save's host OOM,
    inside a dataset's __getitem__ an ordinary one."""
    alloc = (
        "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't allocate memory: "
        "you tried to allocate 14680064000 bytes. Error code 12 (Cannot allocate memory)"
    )
    save = [
        "Epoch 4: 100%|██████████| 1250/1250 [41:07<00:00,  0.51it/s, v_num=7, train_loss=1.93]",
        "Traceback (most recent call last):",
        f'  File "{SITE}/lightning/pytorch/callbacks/model_checkpoint.py", line 385, in _save_checkpoint',
        "    trainer.save_checkpoint(filepath, self.save_weights_only)",
        f'  File "{SITE}/lightning/pytorch/strategies/fsdp.py", line 590, in save_checkpoint',
        f'  File "{SITE}/torch/distributed/fsdp/_state_dict_utils.py", line 345, in _full_post_state_dict_hook',
        alloc,
    ]
    batch = [
        "Epoch 1:  37%|███▋      | 463/1250 [15:12<25:51,  0.51it/s, v_num=7, train_loss=2.41]",
        "Traceback (most recent call last):",
        f'  File "{SITE}/torch/utils/data/dataloader.py", line 630, in __next__',
        f'  File "{SITE}/torch/utils/data/dataloader.py", line 674, in _next_data',
        '  File "/workspace/data.py", line 88, in __getitem__',
        alloc,
    ]
    a, b = tmp_path / "save", tmp_path / "batch"
    a.mkdir()
    b.mkdir()
    assert diagnose_dir(_write(a, "train.log", save)).category == "cpu_oom_checkpoint"
    assert diagnose_dir(_write(b, "train.log", batch)).category == "host_oom"


def test_a_megatron_save_cut_before_its_cuda_error_is_the_gpu_gather(
    tmp_path: Path, diagnose_dir: Run
) -> None:
    """Only the tail of rank 57's `CUDA error` and rank 62's traceback into Megatron's
    checkpoint_and_decide_exit survive: a GPU failure in a save, not a silent host kill."""
    lines = [
        "[rank57]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
        "[rank57]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "[rank62]: Traceback (most recent call last):",
        '[rank62]:   File "/root/Megatron-LM/megatron/training/training.py", line 2413, in train',
        "[rank62]:     should_exit = checkpoint_and_decide_exit(",
    ]
    diag = diagnose_dir(_write(tmp_path, "console.log", lines))
    assert diag.category == "gpu_oom_checkpoint_gather"


def test_pasted_launcher_lines_still_name_their_rank() -> None:
    """Screenshot OCR and lost line breaks keep the words of torchrun's report and srun's labels."""
    ocr = "ERROR:torch.distributed.elastic.multiprocessing.api:failed exitcode: 1) local rank: 1 pid: 22094) of binary: /usr/bin/python3"
    assert reported_rank(ocr) is not None and reported_rank(ocr).local == 1  # type: ignore[union-attr]
    block = "rank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>"
    assert parse_rank(block).rank == 2
    glued = "in broadcast 10: work = default_pg.broadcast([tensor], opts) 10: torch.distributed.DistBackendError: NCCL error 10: ncclSystemError"
    assert parse_rank(glued).rank == 10
    assert parse_rank("Error 12: Cannot allocate memory; retry 3: failed; code 12: x").rank is None


def test_a_rank_without_markers_of_its_own_was_in_the_streams_save(tmp_path: Path, diagnose_dir: Run) -> None:
    """Only rank 0 logs the save; rank 3's OOM line is all rank 3 printed. Far from the save line (no
    context window reaches it), rank 3 was still in the save the whole job was in."""
    lines = [
        "[rank0]:{'loss': 1.2113, 'grad_norm': 0.31, 'learning_rate': 1e-05, 'epoch': 1.0}",
        "[rank0]:[INFO|trainer.py:3705] 2026-05-11 02:10:00,118 >> Saving model checkpoint to out/checkpoint-1000",
        *(f"[rank0]:  gathered model.layers.{i}.mlp.down_proj.weight" for i in range(80)),
        "[rank3]: " + CUDA_OOM.replace("GPU 0", "GPU 3"),
        *_watchdog(1)[:2],
    ]
    diag = diagnose_dir(_write(tmp_path, "job.log", lines))
    assert diag.category == "gpu_oom_checkpoint_gather", diag.root_cause
    assert diag.initiating.rank == 3
    assert diag.initiating.phase == "checkpoint_save"


def test_a_kill_glued_to_the_loading_bar_is_the_load_not_the_teardown(
    tmp_path: Path, diagnose_dir: Run
) -> None:
    """torchrun's SIGTERM line lands on the same physical line as the frozen `Loading checkpoint shards`
    bar, and a long failure summary follows: the job died loading (host RAM), not in its teardown."""
    agent = "W0806 20:07:54.546301 148486 site-packages/torch/distributed/elastic/multiprocessing/api.py:897]"
    lines = [
        "Loading checkpoint shards:  47%|████▋     | 7/15 [03:24<03:59, 29.97s/it]"
        f"{agent} Sending process 148593 closing signal SIGTERM",
        *(f"{agent} Sending process {p} closing signal SIGTERM" for p in (148594, 148595, 148596)),
        *_torchrun_summary((4, 148597), [(r, 148593 + r) for r in range(4)], signal=15),
    ]
    diag = diagnose_dir(_write(tmp_path, "console.log", lines))
    assert diag.category == "cpu_oom_checkpoint", diag.root_cause
    assert diag.initiating.phase == "model_load"
    assert diag.initiating.rank == 4


def test_training_that_moved_past_the_save_is_not_in_the_save(tmp_path: Path, diagnose_dir: Run) -> None:
    """HF Trainer prints nothing when a save ends, only the next step's bar: a CUDA OOM (or a kill)
    after the bar moved from 500 to 502 is a training-step failure, not the save's."""
    lines = [
        " 50%|█████     | 500/1000 [1:02:04<1:02:04,  7.45s/it]",
        "[INFO|trainer.py:3705] 2026-05-11 02:10:00,118 >> Saving model checkpoint to out/checkpoint-500",
        "[INFO|configuration_utils.py:414] 2026-05-11 02:10:00,200 >> Configuration saved in out/checkpoint-500/config.json",
        " 50%|█████     | 501/1000 [1:02:11<1:02:11,  7.46s/it]",
        " 50%|█████     | 502/1000 [1:02:18<1:02:11,  7.46s/it]",
    ]
    oom, kill = tmp_path / "oom", tmp_path / "kill"
    oom.mkdir()
    kill.mkdir()
    diag = diagnose_dir(_write(oom, "train.log", [*lines, CUDA_OOM]))
    assert (diag.category, diag.initiating.phase) == ("gpu_oom", "train")
    assert diagnose_dir(_write(kill, "train.log", [*lines, "Killed"])).category == "host_oom"
    still = tmp_path / "still"
    still.mkdir()  # the same save without the later bars: the save's OOM
    diag = diagnose_dir(_write(still, "train.log", [*lines[:3], CUDA_OOM]))
    assert (diag.category, diag.initiating.phase) == ("gpu_oom_checkpoint_gather", "checkpoint_save")


def test_fsdp_unshard_inside_a_state_dict_call_is_the_gather_not_a_step(
    tmp_path: Path, diagnose_dir: Run
) -> None:
    """The all-gather frames of a training step's unshard (`_unshard`, `_all_gather_flat_param`) also
    sit under a full state dict's pre-hook, and under FSDP2's `get_model_state_dict`: what calls them
    decides, and no save line is printed before either."""
    fsdp1 = [
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 301, in <module>',
        "    cpu_state = model.state_dict()",
        f'  File "{SITE}/torch/nn/modules/module.py", line 1939, in state_dict',
        f'  File "{SITE}/torch/distributed/fsdp/_state_dict_utils.py", line 782, in _pre_state_dict_hook',
        f'  File "{SITE}/torch/distributed/fsdp/_state_dict_utils.py", line 311, in _full_pre_state_dict_hook',
        f'  File "{SITE}/torch/distributed/fsdp/_unshard_param_utils.py", line 209, in _unshard_fsdp_state_params',
        f'  File "{SITE}/torch/distributed/fsdp/_runtime_utils.py", line 290, in _unshard',
        f'  File "{SITE}/torch/distributed/fsdp/_flat_param.py", line 1375, in _all_gather_flat_param',
        CUDA_OOM,
    ]
    fsdp2 = [
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 344, in <module>',
        "    sd = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=False))",
        f'  File "{SITE}/torch/distributed/checkpoint/state_dict.py", line 1005, in get_model_state_dict',
        f'  File "{SITE}/torch/distributed/checkpoint/state_dict.py", line 569, in _get_model_state_dict',
        f'  File "{SITE}/torch/distributed/_state_dict_utils.py", line 322, in _gather_state_dict',
        f'  File "{SITE}/torch/distributed/tensor/_api.py", line 556, in full_tensor',
        CUDA_OOM,
    ]
    for name, trace in (("fsdp1", fsdp1), ("fsdp2", fsdp2)):
        folder = tmp_path / name
        folder.mkdir()
        lines = ["{'loss': 1.0211, 'grad_norm': 0.4, 'learning_rate': 1e-05, 'epoch': 3.0}", *trace]
        diag = diagnose_dir(_write(folder, "rank0.log", lines))
        assert (diag.category, diag.initiating.phase) == ("gpu_oom_checkpoint_gather", "checkpoint_save"), (
            name
        )
