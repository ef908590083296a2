# ruff: noqa: E501 - realistic log lines are long
"""The two checkpoint classes as held-back logs deliver them, beyond the classic forms of rounds 11b/12b:
the OOM known only from the scheduler or orchestrator (`kubectl get pods` `OOMKilled`, sacct's `OUT_OF_ME+`
in its 10-character column, srun's one `task 9: Out Of Memory` among its teardown lines, torchrun's
summary naming the pid's global rank on a job of two nodes while the other node's NCCL lost its peer
first), and a ZeRO-3 gather OOM whose traceback was cut to its last frames (DeepSpeed's nested
`get_layer_state_dict` above `GatheredParameters`), in both DeepSpeed's current names and the fp16 names
before 0.6 (`_zero3_consolidated_fp16_state_dict`, `stage3_gather_fp16_weights_on_model_save`) with
torch's older `RuntimeError: CUDA out of memory.`. Lookalikes keep their class: a save setting printed at
start-up (`FULL_STATE_DICT`, `stage3_gather_16bit_weights_on_model_save`) says nothing about an OOM in a
training step, and the same scheduler forms mid-training are a host OOM, not a hang."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre

Run = Callable[[Path], Diagnosis]
SP = "/usr/local/lib/python3.10/dist-packages"
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU {g} has a total capacity of 79.10 GiB of which 1.22 GiB is free. Including non-PyTorch memory, this process has 77.86 GiB memory in use. Of the allocated memory 71.30 GiB is allocated by PyTorch, and 4.98 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
OOM_RT = "RuntimeError: CUDA out of memory. Tried to allocate 1.96 GiB (GPU {g}; 79.35 GiB total capacity; 74.02 GiB already allocated; 1.12 GiB free; 76.40 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"


def frames(fs: list[tuple[str, int, str, str]]) -> list[str]:
    out = []
    for f, line, fn, code in fs:
        out.append(f'  File "{f}", line {line}, in {fn}')
        out.append(f"    {code}")
    return out


def summary(root: list[str], others: list[str] | None = None) -> str:
    """torchrun's ChildFailedError report (torch/distributed/elastic/multiprocessing/errors/__init__.py)."""
    return pre(
        "",
        [
            "Traceback (most recent call last):",
            '  File "/usr/local/bin/torchrun", line 8, in <module>',
            "    sys.exit(main())",
            f'  File "{SP}/torch/distributed/launcher/api.py", line 263, in launch_agent',
            "    raise ChildFailedError(",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================",
            "train.py FAILED",
            "------------------------------------------------------------",
            "Failures:",
            *(others or ["  <NO_OTHER_FAILURES>"]),
            "------------------------------------------------------------",
            "Root Cause (first observed failure):",
            *root,
            "============================================================",
        ],
    )


def failure(idx: int, rank: int, local: int, code: int, pid: int, host: str, msg: str, t: str) -> list[str]:
    return [
        f"[{idx}]:",
        f"  time      : {t}",
        f"  host      : {host}",
        f"  rank      : {rank} (local_rank: {local})",
        f"  exitcode  : {code} (pid: {pid})",
        "  error_file: <N/A>",
        f"  traceback : {msg}",
    ]


CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- gpu_oom_checkpoint_gather
# DeepSpeed's 16-bit consolidation (deepspeed/runtime/engine.py `_zero3_consolidated_16bit_state_dict`):
# a nested `get_layer_state_dict` gathers each layer with `GatheredParameters(..., modifier_rank=0)`
_GATHER = [
    (
        f"{SP}/deepspeed/runtime/engine.py",
        3496,
        "get_layer_state_dict",
        'get_layer_state_dict(child, prefix + name + ".")',
    ),
    (
        f"{SP}/deepspeed/runtime/engine.py",
        3472,
        "get_layer_state_dict",
        "with deepspeed.zero.GatheredParameters(list(module.parameters(recurse=False)), modifier_rank=0):",
    ),
    (
        f"{SP}/deepspeed/runtime/zero/partition_parameters.py",
        2177,
        "__enter__",
        "self.params[0].all_gather(param_list=self.params)",
    ),
    (
        f"{SP}/deepspeed/runtime/zero/partition_parameters.py",
        1112,
        "all_gather",
        "return self._all_gather(param_list, async_op=async_op, hierarchy=hierarchy)",
    ),
    (
        f"{SP}/deepspeed/runtime/zero/partition_parameters.py",
        1465,
        "_all_gather",
        "self._allgather_params_coalesced(all_gather_nonquantize_list, hierarchy, quantize=False)",
    ),
    (
        f"{SP}/deepspeed/runtime/zero/partition_parameters.py",
        1769,
        "_allgather_params_coalesced",
        "flat_tensor = torch.empty(tensor_size, dtype=param_list[0].ds_tensor.dtype,",
    ),
]

# 1 rank 0's traceback pasted from its last frames (the consolidation's layer walk down to the
#   all-gather's buffer), after a loss line; rank 3's file has only the aftermath: the TCPStore rank 0
#   hosted is gone and NCCL lost its peer
CASES["zero3_cut_traceback_layer_walk"] = (
    {
        "rank0.log": "".join(
            [
                "[2024-09-03 22:10:01,220] [INFO] [config.py:990:print_user_config]   json = {\n",
                '    "zero_optimization": {\n',
                '        "stage": 3,\n',
                '        "overlap_comm": true,\n',
                '        "stage3_gather_16bit_weights_on_model_save": true\n',
                "    },\n",
                '    "bf16": {\n',
                '        "enabled": true\n',
                "    }\n",
                "}\n",
                "{'loss': 0.9121, 'grad_norm': 0.31, 'learning_rate': 1.2e-05, 'epoch': 1.0}\n",
                pre("", frames(_GATHER)),
                OOM.format(g=0) + "\n",
            ]
        ),
        "rank3.log": "".join(
            [
                '[rank3]:[W903 22:41:12.004113051 ProcessGroupNCCL.cpp:1662] [PG ID 0 PG GUID 0(default_pg) Rank 3] Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Connection reset by peer\n',
                "[rank3]:[E903 22:41:12.118002311 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5\n",
                "[rank3]:ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n",
                "[rank3]:Last error:\n",
                "[rank3]:socketProgress: Connection closed by remote peer node0<47862>\n",
            ]
        ),
    },
    "gpu_oom_checkpoint_gather",
    0,
)

# 2 the same, DeepSpeed before 0.6 (`_zero3_consolidated_fp16_state_dict`, the config key
#   `stage3_gather_fp16_weights_on_model_save`) and torch 1.x's `RuntimeError: CUDA out of memory.`;
#   the others' old watchdog and torchrun's agent follow in the combined stream
_SP8 = "/opt/conda/lib/python3.8/site-packages"
CASES["zero3_fp16_names_runtimeerror"] = (
    {
        "train.log": "".join(
            [
                "[2022-01-14 09:02:11,004] [INFO] [config.py:904:print]   zero_optimization ............ {'stage': 3, 'stage3_gather_fp16_weights_on_model_save': True, 'offload_param': None}\n",
                "{'loss': 1.0712, 'learning_rate': 4.1e-05, 'epoch': 0.98}\n",
                pre(
                    "",
                    frames(
                        [
                            (
                                f"{_SP8}/deepspeed/runtime/engine.py",
                                2685,
                                "_zero3_consolidated_fp16_state_dict",
                                'get_layer_state_dict(self.module, prefix="")',
                            ),
                            (
                                f"{_SP8}/deepspeed/runtime/engine.py",
                                2682,
                                "get_layer_state_dict",
                                'get_layer_state_dict(child, prefix + name + ".")',
                            ),
                            (
                                f"{_SP8}/deepspeed/runtime/engine.py",
                                2659,
                                "get_layer_state_dict",
                                "modifier_rank=0):",
                            ),
                            (
                                f"{_SP8}/deepspeed/runtime/zero/partition_parameters.py",
                                1308,
                                "__enter__",
                                "self.params[0].all_gather(param_list=self.params)",
                            ),
                            (
                                f"{_SP8}/deepspeed/runtime/zero/partition_parameters.py",
                                595,
                                "all_gather",
                                "return self._all_gather(param_list, async_op=async_op, hierarchy=hierarchy)",
                            ),
                            (
                                f"{_SP8}/deepspeed/runtime/zero/partition_parameters.py",
                                704,
                                "_all_gather",
                                "ret_value = self._allgather_params_coalesced(all_gather_list, hierarchy)",
                            ),
                            (
                                f"{_SP8}/deepspeed/runtime/zero/partition_parameters.py",
                                936,
                                "_allgather_params_coalesced",
                                "flat_tensor = torch.empty(tensor_size,",
                            ),
                        ]
                    ),
                ),
                OOM_RT.format(g=0) + "\n",
                "[E ProcessGroupNCCL.cpp:587] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLGATHER, Timeout(ms)=1800000) ran for 1800470 milliseconds before timing out.\n",
                "[E ProcessGroupNCCL.cpp:341] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process down.\n",
                "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 31102) of binary: /opt/conda/bin/python\n",
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    0,
)

# ---------------------------------------------------------------- cpu_oom_checkpoint
# 3 torchtitan's final save ("Saving a full checkpoint at last step, step N.", an article the generic
#   save marker did not read); the OOM only in `kubectl get pods`
CASES["torchtitan_last_step_pods_oomkilled"] = (
    {
        "trainer.log": "".join(
            [
                "[rank0]:[titan] 2025-05-11 03:59:58,114 - root - INFO - step: 1000  loss:  2.1102  memory: 61.22GiB(77.35%)  tps: 3,211  mfu: 41.02%\n",
                "[rank0]:[titan] 2025-05-11 04:00:00,220 - root - INFO - Saving a full checkpoint at last step, step 1000.\n",
                "W0511 04:01:36.220000 1 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 61 closing signal SIGTERM\n",
            ]
        ),
        "pods.txt": "".join(
            [
                "NAME                READY   STATUS      RESTARTS   AGE\n",
                "titan-llama-0       0/1     OOMKilled   0          3h2m\n",
                "titan-llama-1       0/1     Error       0          3h2m\n",
            ]
        ),
    },
    "cpu_oom_checkpoint",
    None,
)

# 4 two nodes: node-0's agent names only local rank 0 and its pid, the summary below gives that pid's
#   global rank; node-1's rank 8 saw the peer vanish (ncclRemoteError) before node-0's agent noticed
CASES["two_nodes_summary_pid_rank_peer_remote_error"] = (
    {
        "node-0.log": "".join(
            [
                "[rank0]:[INFO|trainer.py:3705] 2025-04-02 02:00:01,980 >> Saving model checkpoint to /ckpt/llama-fsdp/checkpoint-4000\n",
                "E0402 02:03:15.004000 9001 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: -9) local_rank: 0 (pid: 9100) of binary: /usr/bin/python3\n",
                summary(
                    failure(
                        0,
                        0,
                        0,
                        -9,
                        9100,
                        "node-0",
                        "Signal 9 (SIGKILL) received by PID 9100",
                        "2025-04-02_02:03:14",
                    )
                ),
            ]
        ),
        "node-1.log": "".join(
            [
                "[rank8]:[E402 02:03:14.551000 7001 torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1595] [PG 0 (default_pg) Rank 8] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5\n",
                "[rank8]:ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n",
                "[rank8]:Last error:\n",
                "[rank8]:NET/IB : Got completion from peer 10.0.0.11<52115> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.12 remoteGids::ffff:10.0.0.11 hca mlx5_0\n",
                "E0402 02:03:15.223000 7001 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: -6) local_rank: 0 (pid: 7100) of binary: /usr/bin/python3\n",
            ]
        ),
    },
    "cpu_oom_checkpoint",
    0,
)

# 5 srun names the one task its cgroup OOM-killed, then tears the step down: the other tasks end
#   `Killed` in ranges (srun folds them), which name no rank
CASES["srun_one_oom_task_then_teardown_ranges"] = (
    {
        "slurm-123.out": "".join(
            [
                "8: [INFO|trainer.py:3705] 2025-02-10 14:21:07,551 >> Saving model checkpoint to /scratch/run7/checkpoint-1000\n",
                "slurmstepd: error: Detected 1 oom_kill event in StepId=123.0. Some of the step tasks have been OOM Killed.\n",
                "srun: error: node-2: task 9: Out Of Memory\n",
                "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n",
                "slurmstepd: error: *** STEP 123.0 ON node-1 CANCELLED AT 2025-02-10T14:25:01 ***\n",
                "srun: error: node-1: tasks 0-7: Killed\n",
                "srun: error: node-2: tasks 8,10-15: Killed\n",
            ]
        )
    },
    "cpu_oom_checkpoint",
    9,
)

# ---------------------------------------------------------------- lookalikes
# 6 FSDP with FULL_STATE_DICT in the Trainer's arguments, but the cgroup killed a task at step 1437 of a
#   job that saves every 500: a host OOM in training, whatever the save would have done
CASES["full_state_dict_setting_kill_off_save_step"] = (
    {
        "slurm-99.out": "".join(
            [
                "TrainingArguments(\n",
                "_n_gpu=1,\n",
                "bf16=True,\n",
                "fsdp=[<FSDPOption.FULL_SHARD: 'full_shard'>, <FSDPOption.AUTO_WRAP: 'auto_wrap'>],\n",
                "fsdp_config={'min_num_params': 0, 'xla': False, 'xla_fsdp_v2': False, 'xla_fsdp_grad_ckpt': False, 'state_dict_type': 'FULL_STATE_DICT'},\n",
                "gradient_accumulation_steps=8,\n",
                "max_steps=5000,\n",
                "output_dir=/scratch/out,\n",
                "save_steps=500,\n",
                "save_strategy=steps,\n",
                ")\n",
                " 29%|██▊       | 1437/5000 [4:01:12<9:58:10, 10.07s/it]\n",
                "slurmstepd: error: Detected 1 oom_kill event in StepId=99.0. Some of the step tasks have been OOM Killed.\n",
                "srun: error: node-4: task 6: Out Of Memory\n",
            ]
        )
    },
    "host_oom",
    6,
)

# 7 the FSDP save configuration printed at start-up, then training steps and a SIGKILL: no save in sight
CASES["full_state_dict_config_kill_mid_training"] = (
    {
        "train.log": "".join(
            [
                "[rank0]: FSDP state dict: StateDictType.FULL_STATE_DICT, FullStateDictConfig(offload_to_cpu=True, rank0_only=False)\n",
                "[rank0]: step 217 loss 2.0112\n",
                "[rank0]: step 218 loss 2.0087\n",
                "E0402 02:03:15.004000 9001 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: -9) local_rank: 3 (pid: 9103) of binary: /usr/bin/python3\n",
            ]
        )
    },
    "host_oom",
    3,
)

# 8 ZeRO-3 with the 16-bit gather on save configured, but the OOM is in a forward's parameter fetch
#   (the pre-forward hook's all-gather), a cut traceback with no save frame
CASES["zero3_gather_setting_forward_fetch_oom"] = (
    {
        "rank0.log": "".join(
            [
                '[2024-09-03 22:10:01,220] [INFO] [config.py:1001:print_user_config]   json = {"zero_optimization": {"stage": 3, "stage3_gather_16bit_weights_on_model_save": true}}\n',
                pre(
                    "",
                    frames(
                        [
                            (
                                f"{SP}/deepspeed/runtime/zero/parameter_offload.py",
                                396,
                                "_pre_forward_module_hook",
                                "self.pre_sub_module_forward_function(module)",
                            ),
                            (
                                f"{SP}/deepspeed/runtime/zero/parameter_offload.py",
                                508,
                                "pre_sub_module_forward_function",
                                "param_coordinator.fetch_sub_module(sub_module, forward=True)",
                            ),
                            (
                                f"{SP}/deepspeed/runtime/zero/partitioned_param_coordinator.py",
                                330,
                                "fetch_sub_module",
                                "self.__all_gather_params(params_to_fetch, forward)",
                            ),
                            (
                                f"{SP}/deepspeed/runtime/zero/partition_parameters.py",
                                1112,
                                "all_gather_coalesced",
                                "flat_tensor = torch.empty(partition_sz * world_size,",
                            ),
                        ]
                    ),
                ),
                OOM.format(g=0) + "\n",
            ]
        )
    },
    "gpu_oom",
    0,
)

# 9 sacct's default column (`OUT_OF_ME+`) after a Lightning bar in the middle of an epoch
CASES["sacct_truncated_state_mid_epoch"] = (
    {
        "train.log": "Epoch 0:  41%|████      | 1517/3700 [1:41:07<2:25:31, 0.25it/s, v_num=3, train_loss=1.902]\n",
        "sacct.txt": "".join(
            [
                "JobID           JobName      State ExitCode\n",
                "------------ ---------- ---------- --------\n",
                "4471902      llama-fsdp OUT_OF_ME+    0:125\n",
                "4471902.bat+      batch OUT_OF_ME+    0:125\n",
                "4471902.0        python OUT_OF_ME+    0:125\n",
            ]
        ),
    },
    "host_oom",
    None,
)

# 10 the container's cgroup v2 memory.events, pasted next to a log that stops between two steps
CASES["cgroup_memory_events_mid_training"] = (
    {
        "container.log": "2025-03-02 10:58:01 INFO step 1911 loss 1.2231\n2025-03-02 10:58:09 INFO step 1912 loss 1.2187\n",
        "memory.events": "low 0\nhigh 0\nmax 48211\noom 4\noom_kill 4\noom_group_kill 0\n",
    },
    "host_oom",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_delivery_forms_class_and_rank(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)


# srun folds every task of a node the cgroup killed into one range: no rank of it is first
RANGE_ONLY = {
    "slurm-123.out": "".join(
        [
            "compute_environment: LOCAL_MACHINE\n",
            "distributed_type: FSDP\n",
            "fsdp_config:\n",
            "  fsdp_state_dict_type: FULL_STATE_DICT\n",
            " 50%|█████     | 1000/2000 [3:01:12<3:01:10, 10.89s/it]\n",
            "[INFO|trainer.py:3705] 2025-02-10 14:21:07,551 >> Saving model checkpoint to /scratch/run7/checkpoint-1000\n",
            "slurmstepd: error: Detected 3 oom_kill events in StepId=123.0. Some of the step tasks have been OOM Killed.\n",
            "srun: error: node-2: tasks 8-15: Out Of Memory\n",
            "srun: Terminating StepId=123.0\n",
        ]
    )
}


def test_srun_task_range_names_no_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for fname, text in RANGE_ONLY.items():
        (folder / fname).write_bytes(text.encode("utf-8"))
    d = diagnose_dir(folder)
    assert (d.category, d.initiating.rank) == ("cpu_oom_checkpoint", None)
