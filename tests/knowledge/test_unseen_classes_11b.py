# ruff: noqa: E501 - realistic log lines are long
"""The two checkpoint classes on logs the engine had not seen, as the frameworks print them: CUDA OOM
while the 16-bit/full weights are gathered for a save (DeepSpeed ZeRO-3 `_zero3_consolidated_16bit_state_dict`
/ `save_16bit_model`, FSDP FULL_STATE_DICT, DCP `get_model_state_dict` -> `full_tensor()`, torchtune,
Lightning) and host OOM during a save or load (kernel/cgroup OOM killer, SIGKILL, Slurm, Ray, kubelet;
FSDP offload on every rank, every rank torch.load-ing on resume, zero_to_fp32, a LoRA merge, composer's
monolithic save). Lookalikes keep their class: OOM in the step after a completed save, activation
checkpointing, from_pretrained at start-up, eval. Launcher prefixes vary (`[rankN]:`, `[defaultN]:`,
srun `N: `, pdsh `worker-1: `), and so does the OOM wording (torch < 2.2 and >= 2.2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU {g} has a total capacity of 79.10 GiB of which 1.22 GiB is free. Including non-PyTorch memory, this process has 77.86 GiB memory in use. Of the allocated memory 71.30 GiB is allocated by PyTorch, and 4.98 GiB is reserved by PyTorch but unallocated."
OOM_OLD = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU {g}; 39.39 GiB total capacity; 35.12 GiB already allocated; 1.41 GiB free; 36.60 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation."
SP = "/opt/conda/lib/python3.10/site-packages"


def wd(rank: int, seq: int = 30211, op: str = "_ALLGATHER_BASE") -> str:
    return f"[rank{rank}]:[E ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1048576, NumelOut=8388608, Timeout(ms)=1800000) ran for 1800095 milliseconds before timing out."


CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- gpu_oom_checkpoint_gather
# 1 HF Trainer + DeepSpeed ZeRO-3 16-bit gather, torchrun [rankN]: prefix (torch>=2.2)
CASES["hf_ds_zero3_gather"] = (
    {
        "console.log": "".join(
            [
                pre(
                    "",
                    [
                        "{'loss': 1.3472, 'grad_norm': 0.812, 'learning_rate': 1.8e-05, 'epoch': 0.41}",
                        " 20%|██        | 500/2500 [2:11:04<8:44:13, 15.73s/it]",
                        "[INFO|trainer.py:3705] 2024-11-02 11:02:13,551 >> Saving model checkpoint to /out/llama70b/checkpoint-500",
                    ],
                ),
                pre(
                    "[rank0]: ",
                    tb(
                        [
                            (f"{SP}/transformers/trainer.py", 2052, "train", "return inner_training_loop("),
                            (
                                f"{SP}/transformers/trainer.py",
                                2474,
                                "_inner_training_loop",
                                "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)",
                            ),
                            (
                                f"{SP}/transformers/trainer.py",
                                2917,
                                "_maybe_log_save_evaluate",
                                "self._save_checkpoint(model, trial, metrics=metrics)",
                            ),
                            (
                                f"{SP}/transformers/trainer.py",
                                3008,
                                "_save_checkpoint",
                                "self.save_model(output_dir, _internal_call=True)",
                            ),
                            (
                                f"{SP}/transformers/trainer.py",
                                3616,
                                "save_model",
                                "state_dict = self.accelerator.get_state_dict(self.deepspeed)",
                            ),
                            (
                                f"{SP}/accelerate/accelerator.py",
                                3221,
                                "get_state_dict",
                                "state_dict = model._zero3_consolidated_16bit_state_dict()",
                            ),
                            (
                                f"{SP}/deepspeed/runtime/engine.py",
                                3651,
                                "_zero3_consolidated_16bit_state_dict",
                                'get_layer_state_dict(self.module, prefix="")',
                            ),
                            (
                                f"{SP}/deepspeed/runtime/engine.py",
                                3637,
                                "get_layer_state_dict",
                                "state_dict[key] = param.detach().cpu()",
                            ),
                        ],
                        OOM.format(g=0),
                    ),
                ),
                wd(3),
                "\n",
                wd(5),
                "\n",
                "W1102 11:32:40.118000 139990 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 48812 closing signal SIGTERM\n",
                "E1102 11:32:41.002000 139990 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 48811) of binary: /opt/conda/bin/python\n",
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    0,
)

# 2 DeepSpeed engine save_16bit_model directly; srun "N: " prefix; older OOM wording
CASES["ds_save_16bit_srun"] = (
    {
        "slurm-88123.out": "".join(
            [
                "0: [2024-05-14 03:10:55,402] [INFO] [logging.py:96:log_dist] [Rank 0] step=3000, skipped=0, lr=[1.2e-05], mom=[(0.9, 0.95)]\n",
                "0: [2024-05-14 03:10:55,950] [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving /ckpt/global_step3000/zero_pp_rank_0_mp_rank_00_model_states.pt...\n",
                "0: [2024-05-14 03:11:20,013] [INFO] [engine.py:3488:_save_zero_checkpoint] zero checkpoint saved /ckpt/global_step3000/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt\n",
                "0: [2024-05-14 03:11:20,014] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step3000 is ready now!\n",
                pre(
                    "0: ",
                    tb(
                        [
                            ("/workspace/train_ds.py", 311, "<module>", "main()"),
                            (
                                "/workspace/train_ds.py",
                                288,
                                "main",
                                'engine.save_16bit_model(args.output_dir, "pytorch_model.bin")',
                            ),
                            (
                                f"{SP}/deepspeed/runtime/engine.py",
                                3594,
                                "save_16bit_model",
                                "state_dict = self._zero3_consolidated_16bit_state_dict()",
                            ),
                            (
                                f"{SP}/deepspeed/runtime/engine.py",
                                3566,
                                "_zero3_consolidated_16bit_state_dict",
                                'get_layer_state_dict(self.module, prefix="")',
                            ),
                            (
                                f"{SP}/deepspeed/runtime/engine.py",
                                3545,
                                "get_layer_state_dict",
                                "with deepspeed.zero.GatheredParameters(list(module.parameters(recurse=False)), modifier_rank=0):",
                            ),
                            (
                                f"{SP}/deepspeed/runtime/zero/partition_parameters.py",
                                2177,
                                "__enter__",
                                "self.params[0].all_gather(param_list=self.params)",
                            ),
                        ],
                        OOM_OLD.format(g=0),
                    ),
                ),
                "srun: error: gpu-node-07: task 0: Exited with exit code 1\n",
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    0,
)

# 3 Accelerate FSDP FULL_STATE_DICT on GPU, torchrun --tee prefix [defaultN]:
CASES["accel_fsdp_full_sd_gpu"] = (
    {
        "train.log": "".join(
            [
                "[default0]:Epoch 0 | step 1200 | loss 1.982\n",
                "[default0]:Saving checkpoint to output/step_1200\n",
                "[default2]:Saving checkpoint to output/step_1200\n",
                pre(
                    "[default2]:",
                    tb(
                        [
                            (
                                "/work/train.py",
                                402,
                                "<module>",
                                'accelerator.save_state(f"output/step_{step}")',
                            ),
                            (
                                f"{SP}/accelerate/accelerator.py",
                                2958,
                                "save_state",
                                "save_fsdp_model(self.state.fsdp_plugin, self, model, output_dir, i)",
                            ),
                            (
                                f"{SP}/accelerate/utils/fsdp_utils.py",
                                88,
                                "save_fsdp_model",
                                "state_dict = model.state_dict()",
                            ),
                            (
                                f"{SP}/torch/nn/modules/module.py",
                                1939,
                                "state_dict",
                                "hook_result = hook(self, destination, prefix, local_metadata)",
                            ),
                            (
                                f"{SP}/torch/distributed/fsdp/_state_dict_utils.py",
                                715,
                                "_post_state_dict_hook",
                                "processed_state_dict = _post_state_dict_hook_fn[fsdp_state._state_dict_type](module, fsdp_state, state_dict, prefix)",
                            ),
                            (
                                f"{SP}/torch/distributed/fsdp/_state_dict_utils.py",
                                317,
                                "_full_post_state_dict_hook",
                                "return _common_unshard_post_state_dict_hook(",
                            ),
                            (
                                f"{SP}/torch/distributed/fsdp/_state_dict_utils.py",
                                222,
                                "_common_unshard_post_state_dict_hook",
                                "param_hook(state_dict, prefix, fqn)",
                            ),
                            (
                                f"{SP}/torch/distributed/fsdp/_state_dict_utils.py",
                                313,
                                "param_hook",
                                "state_dict[fqn] = state_dict[fqn].clone().detach()",
                            ),
                        ],
                        OOM.format(g=2),
                    ),
                ),
                "[default0]:" + wd(0).split(":", 1)[1] + "\n",
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    2,
)

# 4 FSDP2 / DCP get_model_state_dict(full_state_dict=True) -> full_tensor(), plain torchrun [rankN]:
CASES["fsdp2_dcp_full_tensor"] = (
    {
        "rank0.log": "".join(
            [
                "[rank0]:2025-02-10 08:00:12,004 - INFO - step: 4000  loss:  2.1044  memory: 61.02GiB(77.13%)  tps: 3,410\n",
                "[rank0]:2025-02-10 08:00:12,510 - INFO - Saving the checkpoint (or staging if async is enabled).\n",
                pre(
                    "[rank0]:",
                    tb(
                        [
                            ("/src/train.py", 512, "main", "save_hf(model, out_dir)"),
                            (
                                "/src/ckpt.py",
                                40,
                                "save_hf",
                                "sd = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))",
                            ),
                            (
                                f"{SP}/torch/distributed/checkpoint/state_dict.py",
                                1002,
                                "get_model_state_dict",
                                "model_state_dict = _get_model_state_dict(model, info)",
                            ),
                            (
                                f"{SP}/torch/distributed/checkpoint/state_dict.py",
                                585,
                                "_get_model_state_dict",
                                "return _maybe_full_or_cpu_state_dict(state_dict, info)",
                            ),
                            (
                                f"{SP}/torch/distributed/checkpoint/state_dict.py",
                                497,
                                "_maybe_full_or_cpu_state_dict",
                                "return _gather_state_dict(",
                            ),
                            (
                                f"{SP}/torch/distributed/_state_dict_utils.py",
                                255,
                                "_gather_state_dict",
                                "return _iterate_state_dict(",
                            ),
                            (
                                f"{SP}/torch/distributed/_state_dict_utils.py",
                                130,
                                "_iterate_state_dict",
                                "ret = sharded_tensor_func(iter_object, pg, device, companion_obj)",
                            ),
                            (
                                f"{SP}/torch/distributed/_state_dict_utils.py",
                                220,
                                "dtensor_func",
                                "value = value.full_tensor()",
                            ),
                        ],
                        OOM.format(g=0),
                    ),
                ),
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    0,
)

# 5 torchtune: "Saving checkpoint. This may take some time." then OOM in gather_cpu_state_dict
CASES["torchtune_gather"] = (
    {
        "log.txt": "".join(
            [
                "1|250|Loss: 0.9123: 100%|██████████| 250/250 [41:02<00:00,  9.85s/it]\n",
                "INFO:torchtune.utils._logging:Saving checkpoint. This may take some time. Retrieving full model state dict...\n",
                pre(
                    "[rank1]: ",
                    tb(
                        [
                            (
                                "/opt/torchtune/recipes/full_finetune_distributed.py",
                                930,
                                "recipe_main",
                                "recipe.train()",
                            ),
                            (
                                "/opt/torchtune/recipes/full_finetune_distributed.py",
                                905,
                                "train",
                                "self.save_checkpoint(epoch=curr_epoch)",
                            ),
                            (
                                f"{SP}/torchtune/training/checkpointing/_checkpoint_client.py",
                                280,
                                "save_checkpoint",
                                "cpu_state_dict = training.gather_cpu_state_dict(",
                            ),
                            (
                                f"{SP}/torchtune/training/_distributed.py",
                                452,
                                "gather_cpu_state_dict",
                                "full_param = sharded_param.full_tensor()",
                            ),
                        ],
                        OOM.format(g=1),
                    ),
                ),
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    1,
)

# 6 Lightning FSDPStrategy(state_dict_type="full"): ModelCheckpoint save, rank 0
CASES["lightning_fsdp_full"] = (
    {
        "lightning.log": "".join(
            [
                "Epoch 2: 100%|██████████| 1200/1200 [58:21<00:00,  2.92s/it, v_num=3, train_loss=1.41]\n",
                "Epoch 2, global step 3600: 'val_loss' reached 1.38211 (best 1.38211), saving model to '/ckpt/epoch=2-step=3600.ckpt' as top 1\n",
                pre(
                    "[rank0]: ",
                    tb(
                        [
                            (
                                f"{SP}/lightning/pytorch/callbacks/model_checkpoint.py",
                                327,
                                "on_validation_end",
                                "self._save_topk_checkpoint(trainer, monitor_candidates)",
                            ),
                            (
                                f"{SP}/lightning/pytorch/callbacks/model_checkpoint.py",
                                389,
                                "_save_topk_checkpoint",
                                "self._save_monitor_checkpoint(trainer, monitor_candidates)",
                            ),
                            (
                                f"{SP}/lightning/pytorch/callbacks/model_checkpoint.py",
                                714,
                                "_save_monitor_checkpoint",
                                "self._update_best_and_save(current, trainer, monitor_candidates)",
                            ),
                            (
                                f"{SP}/lightning/pytorch/callbacks/model_checkpoint.py",
                                766,
                                "_update_best_and_save",
                                "self._save_checkpoint(trainer, filepath)",
                            ),
                            (
                                f"{SP}/lightning/pytorch/trainer/trainer.py",
                                1370,
                                "save_checkpoint",
                                "checkpoint = self._checkpoint_connector.dump_checkpoint(weights_only)",
                            ),
                            (
                                f"{SP}/lightning/pytorch/trainer/connectors/checkpoint_connector.py",
                                436,
                                "dump_checkpoint",
                                '"state_dict": self._get_lightning_module_state_dict(),',
                            ),
                            (
                                f"{SP}/lightning/pytorch/strategies/fsdp.py",
                                546,
                                "lightning_module_state_dict",
                                "return self.model.state_dict()",
                            ),
                            (
                                f"{SP}/torch/distributed/fsdp/_state_dict_utils.py",
                                317,
                                "_full_post_state_dict_hook",
                                "return _common_unshard_post_state_dict_hook(",
                            ),
                        ],
                        OOM.format(g=0),
                    ),
                ),
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    0,
)

# 7 LLaMA-Factory zero3 save, old 4.3x wording, OOM lines only (traceback cut to last frames)
CASES["llamafactory_zero3_cut"] = (
    {
        "train.log": "".join(
            [
                "{'loss': 0.8812, 'learning_rate': 4.5e-05, 'epoch': 1.0}\n",
                "[INFO|trainer.py:2936] 2024-03-30 20:14:51,004 >> Saving model checkpoint to saves/qwen-72b/full/sft/checkpoint-1000\n",
                "[INFO|configuration_utils.py:473] 2024-03-30 20:14:51,020 >> Configuration saved in saves/qwen-72b/full/sft/checkpoint-1000/config.json\n",
                pre(
                    "[rank0]: ",
                    [
                        f'  File "{SP}/deepspeed/runtime/engine.py", line 3417, in _zero3_consolidated_16bit_state_dict',
                        '    get_layer_state_dict(self.module, prefix="")',
                        f'  File "{SP}/deepspeed/runtime/engine.py", line 3408, in get_layer_state_dict',
                        '    get_layer_state_dict(child, prefix + name + ".")',
                        OOM_OLD.format(g=0),
                    ],
                ),
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    0,
)

# 8 DeepSpeed sharded save wording + OOM with no traceback frames, rank named by log_dist prefix
CASES["ds_saving_model_checkpoint_line"] = (
    {
        "node0.log": "".join(
            [
                "[2024-08-02 14:40:03,101] [INFO] [logging.py:96:log_dist] [Rank 0] [Torch] Checkpoint global_step6000 is about to be saved!\n",
                "[2024-08-02 14:40:03,240] [INFO] [logging.py:96:log_dist] [Rank 0] Saving model checkpoint: /ckpt/global_step6000/mp_rank_00_model_states.pt\n",
                "[rank0]: " + OOM.format(g=0) + "\n",
                wd(1, op="ALLGATHER"),
                "\n",
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    0,
)

# ---------------------------------------------------------------- cpu_oom_checkpoint
# 9 FSDP FULL_STATE_DICT offload_to_cpu without rank0_only: kernel OOM killer kills local rank 3
CASES["fsdp_offload_all_ranks_dmesg"] = (
    {
        "train.log": "".join(
            [
                "[rank0]:{'loss': 1.102, 'grad_norm': 0.44, 'learning_rate': 9e-06, 'epoch': 1.2}\n",
                "[rank0]:[INFO|trainer.py:3801] 2025-01-19 02:12:44,009 >> Saving model checkpoint to /runs/mixtral/checkpoint-2000\n",
                "W0119 02:15:02.551000 2231 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 2301 closing signal SIGTERM\n",
                "E0119 02:15:03.118000 2231 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 3 (pid: 2304) of binary: /usr/bin/python3\n",
                "Root Cause (first observed failure):\n",
                "[0]:\n  time      : 2025-01-19_02:15:02\n  host      : node-a\n  rank      : 3 (local_rank: 3)\n  exitcode  : -9 (pid: 2304)\n  error_file: <N/A>\n  traceback : Signal 9 (SIGKILL) received by PID 2304\n",
            ]
        ),
        "dmesg.txt": "".join(
            [
                "[812345.118201] python3 invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=0\n",
                "[812345.119870] Out of memory: Killed process 2304 (python3) total-vm:612340112kB, anon-rss:248113244kB, file-rss:132004kB, shmem-rss:0kB, UID:0 pgtables:489220kB oom_score_adj:0\n",
                "[812345.412233] oom_reaper: reaped process 2304 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n",
            ]
        ),
    },
    "cpu_oom_checkpoint",
    3,
)

# 10 resume: every rank torch.load full checkpoint (HF Trainer resume), bare Killed + -9
CASES["hf_resume_all_ranks_load"] = (
    {
        "out.log": "".join(
            [
                "[INFO|trainer.py:2128] 2024-10-01 09:00:01,551 >> ***** Running training *****\n",
                "[INFO|trainer.py:2135] 2024-10-01 09:00:01,551 >>   Num examples = 1,200,000\n",
                "[INFO|trainer.py:2224] 2024-10-01 09:00:02,010 >>   Continuing training from checkpoint, will skip to saved global_step\n",
                "[INFO|trainer.py:2225] 2024-10-01 09:00:02,010 >>   Continuing training from epoch 0\n",
                "[INFO|trainer.py:2226] 2024-10-01 09:00:02,010 >>   Continuing training from global step 8000\n",
                "W1001 09:03:40.771000 140022 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7713 closing signal SIGTERM\n",
                "E1001 09:03:41.306000 140022 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 6 (pid: 7719) of binary: /opt/conda/bin/python\n",
                "  traceback : Signal 9 (SIGKILL) received by PID 7719\n",
            ]
        )
    },
    "cpu_oom_checkpoint",
    6,
)

# 11 Lightning resume from a full .ckpt on every rank; cgroup oom kill in dmesg
CASES["lightning_resume_cgroup"] = (
    {
        "fit.log": "".join(
            [
                "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/8\n",
                "Restoring states from the checkpoint path at /ckpt/last.ckpt\n",
                "3: Killed\n",
                "srun: error: gpu12: task 3: Out Of Memory\n",
                "slurmstepd: error: Detected 1 oom_kill event in StepId=55102.0. Some of the step tasks have been OOM Killed.\n",
            ]
        ),
        "dmesg.log": "[Tue Jun 11 04:12:09 2024] Memory cgroup out of memory: Killed process 91022 (python) total-vm:401223344kB, anon-rss:190223112kB, file-rss:0kB, shmem-rss:0kB, UID:1001 pgtables:372112kB oom_score_adj:0\n",
    },
    "cpu_oom_checkpoint",
    3,
)

# 12 zero_to_fp32 consolidation, single process
CASES["zero_to_fp32_killed"] = (
    {
        "consolidate.log": "".join(
            [
                "$ python zero_to_fp32.py /ckpt/global_step12000 /ckpt/fp32/pytorch_model.bin\n",
                "[2024-07-01 10:10:10,110] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)\n",
                "Processing zero checkpoint '/ckpt/global_step12000'\n",
                "Detected checkpoint of type zero stage ZeroStageEnum.weights, world_size: 64\n",
                "Parsing checkpoint created by deepspeed==0.14.2\n",
                "Killed\n",
            ]
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 13 LLaMA-Factory export / merge LoRA killed
CASES["llamafactory_export_merge_killed"] = (
    {
        "export.log": "".join(
            [
                "[INFO|modeling_utils.py:3553] 2024-09-02 12:00:05,101 >> loading weights file /models/Qwen2-72B/model.safetensors.index.json\n",
                "Loading checkpoint shards: 100%|██████████| 37/37 [02:14<00:00,  3.63s/it]\n",
                "[INFO|modeling_utils.py:4364] 2024-09-02 12:02:20,911 >> All model checkpoint weights were used when initializing Qwen2ForCausalLM.\n",
                "09/02/2024 12:02:31 - INFO - llamafactory.model.adapter - Merged 1 adapter(s).\n",
                "09/02/2024 12:02:31 - INFO - llamafactory.model.adapter - Loaded adapter(s): saves/qwen2-72b/lora/sft\n",
                "[INFO|configuration_utils.py:472] 2024-09-02 12:02:32,004 >> Configuration saved in models/qwen2-72b-sft/config.json\n",
                "Killed\n",
            ]
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 14 DeepSpeed launcher: SIGKILL (-9) during optimizer-state save with CPU offload
CASES["ds_launcher_rc9_save"] = (
    {
        "ds.log": "".join(
            [
                "worker-1: [2024-04-22 18:01:00,003] [INFO] [logging.py:96:log_dist] [Rank 0] step=10000, skipped=0, lr=[3e-05], mom=[(0.9, 0.999)]\n",
                "worker-1: [2024-04-22 18:01:00,551] [INFO] [logging.py:96:log_dist] [Rank 0] [Torch] Checkpoint global_step10000 is about to be saved!\n",
                "worker-1: [2024-04-22 18:01:00,701] [INFO] [logging.py:96:log_dist] [Rank 0] Saving model checkpoint: /ckpt/global_step10000/mp_rank_00_model_states.pt\n",
                "worker-1: [2024-04-22 18:01:00,702] [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving /ckpt/global_step10000/mp_rank_00_model_states.pt...\n",
                "worker-1: [2024-04-22 18:03:12,551] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 30112\n",
                "worker-1: [2024-04-22 18:03:13,004] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=0', '--deepspeed', 'ds_z3_offload.json'] exits with return code = -9\n",
            ]
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 15 verl: Ray memory monitor kills a worker during _save_checkpoint
CASES["verl_ray_memory_monitor"] = (
    {
        "verl.log": "".join(
            [
                "(TaskRunner pid=4121) step:200 - actor/pg_loss:0.012 - critic/score/mean:0.61\n",
                "(TaskRunner pid=4121) local_global_step_folder: checkpoints/gsm8k/qwen2_7b/global_step_200\n",
                "(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: 9a1c Worker ID: 33aa Node ID: 77bb Worker IP address: 10.0.0.3 Worker port: 10041 Worker PID: 5102 Worker exit type: SYSTEM_ERROR Worker exit detail: Task was killed due to the node running low on memory.\n",
                "(raylet) Memory on the node (IP: 10.0.0.3, ID: 77bb) where the task (actor ID: 11cc, name=WorkerDict.__init__, pid=5102, memory used=212.4GB) was running was 480.12GB / 503.50GB (0.953566), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 33aa) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip 10.0.0.3`.\n",
                "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n",
            ]
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 16 Megatron load with every rank reading the full release checkpoint; kubelet OOMKilled
CASES["megatron_load_oomkilled"] = (
    {
        "pod.log": "".join(
            [
                " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): 6738415616\n",
                " loading release checkpoint from /ckpt/llama2-7b-release\n",
                " loading checkpoint from /ckpt/llama2-7b-release at iteration 0\n",
                "State:          Terminated\n",
                "  Reason:       OOMKilled\n",
                "  Exit Code:    137\n",
            ]
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 17 composer monolithic save killed (srun prefix, rank 0 saves)
CASES["composer_monolithic_killed"] = (
    {
        "composer.log": "".join(
            [
                "0: [epoch=1][batch=1000/20000]: Train loss/train/total: 2.0312\n",
                "0: 2024-06-01 12:00:00,101: rank0[4411][MainThread]: DEBUG: composer.utils.checkpoint: Saving monolithic checkpoint to ./ckpt/ep0-ba1000-rank0.pt\n",
                "srun: error: node-3: task 0: Out Of Memory\n",
                "slurmstepd: error: Detected 1 oom_kill event in StepId=9911.0. Some of the step tasks have been OOM Killed.\n",
            ]
        )
    },
    "cpu_oom_checkpoint",
    0,
)

# 18 torchtune save, host killed (DCP cpu gather); torchrun summary names rank 2
CASES["torchtune_save_sigkill"] = (
    {
        "tt.log": "".join(
            [
                "1|500|Loss: 0.7711: 100%|██████████| 500/500 [1:20:02<00:00,  9.60s/it]\n",
                "INFO:torchtune.utils._logging:Saving checkpoint. This may take some time. Retrieving full model state dict...\n",
                "W0301 10:00:01.000000 1001 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 1200 closing signal SIGTERM\n",
                "E0301 10:00:02.000000 1001 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 2 (pid: 1202) of binary: /usr/bin/python\n",
                "  traceback : Signal 9 (SIGKILL) received by PID 1202\n",
            ]
        )
    },
    "cpu_oom_checkpoint",
    2,
)

# 19 torch.load with CPU allocator failure on resume, rank 5 traceback
CASES["torch_load_cpu_alloc"] = (
    {
        "rank5.log": "".join(
            [
                "[rank5]: Resuming from checkpoint /ckpt/step_30000/model.pt\n",
                pre(
                    "[rank5]: ",
                    tb(
                        [
                            (
                                "/app/train.py",
                                98,
                                "main",
                                'state = torch.load(args.resume, map_location="cpu")',
                            ),
                            (f"{SP}/torch/serialization.py", 1097, "load", "return _load("),
                            (f"{SP}/torch/serialization.py", 1525, "_load", "result = unpickler.load()"),
                        ],
                        "RuntimeError: [enforce fail at alloc_cpu.cpp:117] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 536870912000 bytes. Error code 12 (Cannot allocate memory)",
                    ),
                ),
            ]
        )
    },
    "cpu_oom_checkpoint",
    5,
)


# ---------------------------------------------------------------- lookalikes: gpu_oom / host_oom
def _train_oom(r: int, g: int) -> str:
    return pre(
        f"[rank{r}]: ",
        tb(
            [
                (
                    f"{SP}/transformers/trainer.py",
                    2388,
                    "_inner_training_loop",
                    "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)",
                ),
                (
                    f"{SP}/transformers/trainer.py",
                    3518,
                    "training_step",
                    "self.accelerator.backward(loss, **kwargs)",
                ),
                (f"{SP}/accelerate/accelerator.py", 2246, "backward", "loss.backward(**kwargs)"),
                (f"{SP}/torch/autograd/__init__.py", 289, "backward", "_engine_run_backward("),
            ],
            OOM.format(g=g),
        ),
    )


# 20 OOM in the step right after a completed HF save (loss line in between)
CASES["after_save_train_oom"] = (
    {
        "run.log": "".join(
            [
                "[INFO|trainer.py:3705] 2024-11-02 11:02:13,551 >> Saving model checkpoint to /out/checkpoint-500\n",
                "[INFO|configuration_utils.py:414] 2024-11-02 11:02:13,560 >> Configuration saved in /out/checkpoint-500/config.json\n",
                "[INFO|modeling_utils.py:3042] 2024-11-02 11:02:40,011 >> Model weights saved in /out/checkpoint-500/model.safetensors\n",
                "{'loss': 1.201, 'grad_norm': 0.66, 'learning_rate': 1.7e-05, 'epoch': 0.42}\n",
                _train_oom(3, 3),
            ]
        )
    },
    "gpu_oom",
    3,
)

# 21 OOM right after save, no loss line in between; save ended by "Deleting older checkpoint"
CASES["after_save_delete_older_oom"] = (
    {
        "run.log": "".join(
            [
                "[INFO|trainer.py:3705] 2024-11-02 11:02:13,551 >> Saving model checkpoint to /out/checkpoint-1000\n",
                "[INFO|trainer.py:3819] 2024-11-02 11:03:01,004 >> Deleting older checkpoint [/out/checkpoint-500] due to args.save_total_limit\n",
                _train_oom(1, 1),
            ]
        )
    },
    "gpu_oom",
    1,
)

# 22 DeepSpeed checkpoint ready, then OOM in engine.backward
CASES["ds_ready_then_backward_oom"] = (
    {
        "ds.log": "".join(
            [
                "[2024-05-14 03:11:20,014] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step3000 is ready now!\n",
                pre(
                    "[rank2]: ",
                    tb(
                        [
                            ("/workspace/train_ds.py", 240, "main", "engine.backward(loss)"),
                            (
                                f"{SP}/deepspeed/utils/nvtx.py",
                                18,
                                "wrapped_fn",
                                "ret_val = func(*args, **kwargs)",
                            ),
                            (
                                f"{SP}/deepspeed/runtime/engine.py",
                                2213,
                                "backward",
                                "self.optimizer.backward(loss, retain_graph=retain_graph)",
                            ),
                        ],
                        OOM.format(g=2),
                    ),
                ),
            ]
        )
    },
    "gpu_oom",
    2,
)

# 23 activation checkpointing (torch.utils.checkpoint) OOM in training
CASES["activation_checkpoint_oom"] = (
    {
        "run.log": "".join(
            [
                "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.\n",
                "{'loss': 2.31, 'learning_rate': 2e-05, 'epoch': 0.01}\n",
                pre(
                    "[rank4]: ",
                    tb(
                        [
                            (
                                f"{SP}/transformers/models/llama/modeling_llama.py",
                                913,
                                "forward",
                                "layer_outputs = self._gradient_checkpointing_func(",
                            ),
                            (f"{SP}/torch/_compile.py", 32, "inner", "return disable_fn(*args, **kwargs)"),
                            (
                                f"{SP}/torch/utils/checkpoint.py",
                                489,
                                "checkpoint",
                                "return CheckpointFunction.apply(function, preserve, *args)",
                            ),
                            (
                                f"{SP}/torch/utils/checkpoint.py",
                                264,
                                "forward",
                                "outputs = run_function(*args)",
                            ),
                            (
                                f"{SP}/transformers/models/llama/modeling_llama.py",
                                640,
                                "forward",
                                "hidden_states = self.mlp(hidden_states)",
                            ),
                        ],
                        OOM.format(g=4),
                    ),
                ),
            ]
        )
    },
    "gpu_oom",
    4,
)

# 24 Megatron checkpoint_activations / recompute OOM, after a completed save
CASES["megatron_recompute_after_save"] = (
    {
        "megatron.log": "".join(
            [
                "  successfully saved checkpoint from iteration    2000 to /ckpt [ t 1/1, p 1/1 ]\n",
                " iteration     2001/  100000 | consumed samples:      2049024 | elapsed time per iteration (ms): 9811.2 | learning rate: 2.9E-04 | lm loss: 2.101E+00 |\n",
                pre(
                    "[rank7]: ",
                    tb(
                        [
                            (
                                "/workspace/Megatron-LM/megatron/core/transformer/transformer_block.py",
                                345,
                                "_checkpointed_forward",
                                "hidden_states, context = checkpoint_handler(",
                            ),
                            (
                                "/workspace/Megatron-LM/megatron/core/tensor_parallel/random.py",
                                301,
                                "checkpoint",
                                "return CheckpointFunction.apply(function, distribute_saved_activations, *args)",
                            ),
                            (
                                "/workspace/Megatron-LM/megatron/core/tensor_parallel/random.py",
                                240,
                                "forward",
                                "outputs = run_function(*args)",
                            ),
                        ],
                        OOM.format(g=7),
                    ),
                ),
            ]
        )
    },
    "gpu_oom",
    7,
)

# 25 from_pretrained OOM at startup (base model on GPU)
CASES["from_pretrained_gpu_oom"] = (
    {
        "run.log": "".join(
            [
                "Loading checkpoint shards:  40%|████      | 2/5 [00:31<00:47, 15.72s/it]\n",
                pre(
                    "[rank0]: ",
                    tb(
                        [
                            (
                                "/app/sft.py",
                                55,
                                "<module>",
                                "model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16, device_map={'': local_rank})",
                            ),
                            (
                                f"{SP}/transformers/models/auto/auto_factory.py",
                                564,
                                "from_pretrained",
                                "return model_class.from_pretrained(",
                            ),
                            (
                                f"{SP}/transformers/modeling_utils.py",
                                4225,
                                "from_pretrained",
                                ") = cls._load_pretrained_model(",
                            ),
                            (
                                f"{SP}/transformers/modeling_utils.py",
                                4728,
                                "_load_pretrained_model",
                                "new_error_msgs, offload_index, state_dict_index = _load_state_dict_into_meta_model(",
                            ),
                            (
                                f"{SP}/accelerate/utils/modeling.py",
                                329,
                                "set_module_tensor_to_device",
                                "new_value = value.to(device)",
                            ),
                        ],
                        OOM.format(g=0),
                    ),
                ),
            ]
        )
    },
    "gpu_oom",
    0,
)

# 26 eval OOM (after a save, during evaluation)
CASES["eval_oom_after_save"] = (
    {
        "run.log": "".join(
            [
                "[INFO|trainer.py:3705] 2024-11-02 11:02:13,551 >> Saving model checkpoint to /out/checkpoint-500\n",
                "[INFO|modeling_utils.py:3042] 2024-11-02 11:02:40,011 >> Model weights saved in /out/checkpoint-500/model.safetensors\n",
                "[INFO|trainer.py:4021] 2024-11-02 11:02:41,000 >> ***** Running Evaluation *****\n",
                pre(
                    "[rank6]: ",
                    tb(
                        [
                            (f"{SP}/transformers/trainer.py", 3865, "evaluate", "output = eval_loop("),
                            (
                                f"{SP}/transformers/trainer.py",
                                4052,
                                "evaluation_loop",
                                "losses, logits, labels = self.prediction_step(model, inputs, prediction_loss_only, ignore_keys=ignore_keys)",
                            ),
                            (
                                f"{SP}/transformers/trainer.py",
                                4268,
                                "prediction_step",
                                "loss, outputs = self.compute_loss(model, inputs, return_outputs=True)",
                            ),
                        ],
                        OOM.format(g=6),
                    ),
                ),
            ]
        )
    },
    "gpu_oom",
    6,
)

# 27 Lightning "was not in top k" (no save) then OOM in training_step
CASES["lightning_not_topk_oom"] = (
    {
        "fit.log": "".join(
            [
                "Epoch 1, global step 500: 'val_loss' was not in top 1\n",
                "Epoch 2:   3%|▎         | 12/400 [00:30<16:10,  2.50s/it, v_num=1, train_loss=1.22]\n",
                pre(
                    "[rank1]: ",
                    tb(
                        [
                            (
                                f"{SP}/lightning/pytorch/loops/optimization/automatic.py",
                                318,
                                "_training_step",
                                'training_step_output = call._call_strategy_hook(trainer, "training_step", *kwargs.values())',
                            ),
                            (
                                f"{SP}/lightning/pytorch/strategies/strategy.py",
                                390,
                                "training_step",
                                "return self.lightning_module.training_step(*args, **kwargs)",
                            ),
                        ],
                        OOM.format(g=1),
                    ),
                ),
            ]
        )
    },
    "gpu_oom",
    1,
)

# 28 host OOM mid-training after a completed save (dmesg + torchrun)
CASES["after_save_host_oom"] = (
    {
        "train.log": "".join(
            [
                "[rank0]:[INFO|trainer.py:3705] 2024-11-02 11:02:13,551 >> Saving model checkpoint to /out/checkpoint-500\n",
                "[rank0]:[INFO|modeling_utils.py:3042] 2024-11-02 11:02:40,011 >> Model weights saved in /out/checkpoint-500/model.safetensors\n",
                "[rank0]:{'loss': 1.201, 'grad_norm': 0.66, 'learning_rate': 1.7e-05, 'epoch': 0.42}\n",
                "[rank0]:{'loss': 1.188, 'grad_norm': 0.61, 'learning_rate': 1.7e-05, 'epoch': 0.43}\n",
                "E1102 12:40:03.118000 2231 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 5 (pid: 8805) of binary: /usr/bin/python3\n",
            ]
        ),
        "dmesg.txt": "[912345.119870] Out of memory: Killed process 8805 (python3) total-vm:212340112kB, anon-rss:148113244kB, file-rss:132004kB, shmem-rss:0kB, UID:0 pgtables:289220kB oom_score_adj:0\n",
    },
    "host_oom",
    5,
)

# 29 megatron checkpoint_activations flag printed in args, OOM in forward_backward
CASES["megatron_ckpt_activations_arg"] = (
    {
        "megatron.log": "".join(
            [
                "  checkpoint_activations .......................... True\n",
                "  save ............................................ /ckpt\n",
                "  save_interval ................................... 1000\n",
                " iteration       10/  100000 | consumed samples:        10240 | elapsed time per iteration (ms): 9811.2 | learning rate: 2.9E-06 | lm loss: 9.101E+00 |\n",
                pre(
                    "[rank3]: ",
                    tb(
                        [
                            (
                                "/workspace/Megatron-LM/megatron/training/training.py",
                                1214,
                                "train_step",
                                "losses_reduced = forward_backward_func(",
                            ),
                            (
                                "/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py",
                                474,
                                "forward_backward_no_pipelining",
                                "output_tensor, num_tokens = forward_step(",
                            ),
                        ],
                        OOM.format(g=3),
                    ),
                ),
            ]
        )
    },
    "gpu_oom",
    3,
)

# 30 composer save finished, training resumed, then the host OOM: stays host_oom
CASES["composer_after_save_host_oom"] = (
    {
        "composer.log": "".join(
            [
                "0: 2024-06-01 12:00:00,101: rank0[4411][MainThread]: DEBUG: composer.utils.checkpoint: Saving monolithic checkpoint to ./ckpt/ep0-ba1000-rank0.pt\n",
                "0: 2024-06-01 12:00:40,202: rank0[4411][MainThread]: DEBUG: composer.utils.checkpoint: Global rank 0 done saving checkpoint to disk at ./ckpt/ep0-ba1000-rank0.pt.\n",
                "0: [epoch=1][batch=1001/20000]: Train loss/train/total: 2.0301\n",
                "0: [epoch=1][batch=1002/20000]: Train loss/train/total: 2.0297\n",
                "srun: error: node-3: task 0: Out Of Memory\n",
                "slurmstepd: error: Detected 1 oom_kill event in StepId=9911.0. Some of the step tasks have been OOM Killed.\n",
            ]
        )
    },
    "host_oom",
    0,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_checkpoint_class_and_initiating_rank(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
