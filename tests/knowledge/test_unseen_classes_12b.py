# ruff: noqa: E501 - realistic log lines are long
"""The two checkpoint classes on unseen logs where only the save boundary tells them from their
lookalikes (knowledge/savestep.py): the progress frozen on a step the job saves at (its printed
`save_steps` / `checkpointing_steps`, a checkpoint folder named for that step, a round step when it
printed neither; Transformers' notebook bar shows the step done plus one), frames of save paths that
were not read before (PEFT's `get_peft_model_state_dict`, diffusers' `save_model_hook`, Ray Train's
`persist_current_checkpoint`) and Ray's memory monitor naming the save task it killed. Lookalikes keep
their class: an OOM in the step after a save finished, a round step whose traceback runs through a
forward pass, a step the printed interval rules out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/usr/local/lib/python3.11/dist-packages"
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU {g} has a total capacity of 23.55 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.42 GiB memory in use. Of the allocated memory 20.87 GiB is allocated by PyTorch, and 1.09 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
TRAIN_ARGS = "TrainingArguments(_n_gpu=1, bf16=True, gradient_accumulation_steps=4, learning_rate=0.0002, logging_steps=10, max_steps={m}, output_dir=/data/out/qwen-lora, per_device_train_batch_size=2, save_steps={s}, save_strategy=steps, save_total_limit=3, seed=42, warmup_ratio=0.03, )"


def bar(done: int, total: int, rate: str = "3.41s/it") -> str:
    pct = done * 100 // total
    return f" {pct:2d}%|{'█' * (pct // 10):<10}| {done}/{total} [1:02:11<2:31:40, {rate}]"


CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- gpu_oom_checkpoint_gather
# 1 notebook Trainer (8-bit model), the bar shows global_step + 1: step 1000 is the save; the paste
#   stops in IPython's header, before the message
CASES["notebook_bar_save_step_ipython_header"] = (
    {
        "notebook.log": "\n".join(
            [
                "",
                " [1001/3000 41:17 < 1:22:31, 0.40 it/s, Epoch 0.67/2]",
                "Step\tTraining Loss",
                "900\t1.214500",
                "1000\t1.198700",
                "---------------------------------------------------------------------------",
                "OutOfMemoryError                          Traceback (most recent call last)",
                "Cell In[14], line 3",
                "      1 model.config.use_cache = False",
                "----> 3 trainer.train()",
                "",
                "File /opt/conda/lib/python3.10/site-packages/transformers/trainer.py:1539, in Trainer.train(self, resume_from_checkpoint, trial, ignore_keys_for_eval, **kwargs)",
                "   1536 inner_training_loop = find_executable_batch_size(",
                "-> 1539 return inner_training_loop(",
                "",
            ]
        )
    },
    "gpu_oom_checkpoint_gather",
    None,
)

# 2 the printed save_steps=250 (not a round step) and the bar frozen on 750; the OOM is logged by a
#   wrapper without a traceback
CASES["save_steps_250_bare_oom"] = (
    {
        "train.log": pre(
            "",
            [
                TRAIN_ARGS.format(m=2000, s=250),
                "{'loss': 0.8731, 'grad_norm': 0.412, 'learning_rate': 0.000171, 'epoch': 0.37}",
                bar(740, 2000),
                "{'loss': 0.8702, 'grad_norm': 0.398, 'learning_rate': 0.000170, 'epoch': 0.38}",
                bar(750, 2000),
                "2025-03-11 14:22:07,911 - ERROR - run_sft - training failed: " + OOM.format(g=0),
            ],
        )
    },
    "gpu_oom_checkpoint_gather",
    None,
)

# 3 a checkpoint folder named for the very step the bar froze on (empty after the crash), 75 of 1200
CASES["folder_named_for_frozen_step"] = (
    {
        "console.log": pre(
            "",
            [
                "steps:   6%|▋         | 75/1200 [02:53<43:20,  2.31s/it, avr_loss=0.0912]",
                OOM.format(g=0),
                "$ ls -la output/flux-lora/checkpoint-75",
                "total 0",
            ],
        )
    },
    "gpu_oom_checkpoint_gather",
    None,
)

# 4 diffusers-style LoRA script: accelerator.save_state runs the save hook, PEFT builds the adapter's
#   state dict on the GPU (quanto base weights still resident)
CASES["save_model_hook_peft_state_dict"] = (
    {
        "train_flux_lora.log": pre(
            "",
            [
                "05/02/2025 09:41:12 - INFO - __main__ - Running training",
                "Steps:  20%|██        | 400/2000 [1:12:40<4:50:41,  10.90s/it, loss=0.211, lr=0.0001]",
                *tb(
                    [
                        ("/workspace/train_flux_lora.py", 1712, "<module>", "main(args)"),
                        ("/workspace/train_flux_lora.py", 1651, "main", "accelerator.save_state(save_path)"),
                        (
                            f"{SP}/accelerate/accelerator.py",
                            2960,
                            "save_state",
                            "hook(self._models, weights, output_dir)",
                        ),
                        (
                            "/workspace/train_flux_lora.py",
                            1101,
                            "save_model_hook",
                            "transformer_lora_layers_to_save = get_peft_model_state_dict(model)",
                        ),
                        (
                            f"{SP}/peft/utils/save_and_load.py",
                            118,
                            "get_peft_model_state_dict",
                            "state_dict = model.state_dict()",
                        ),
                        (
                            f"{SP}/optimum/quanto/nn/qmodule.py",
                            238,
                            "_save_to_state_dict",
                            "self.weight.dequantize().to(self.weight.dtype)",
                        ),
                    ],
                    OOM.format(g=0),
                ),
            ],
        )
    },
    "gpu_oom_checkpoint_gather",
    None,
)

# 5 Ray Train worker: train.report(checkpoint=...) persisting a checkpoint after a GPU-side gather;
#   NCCL cannot allocate its buffers ("Cuda failure 2 'out of memory'")
CASES["ray_train_persist_nccl_cuda_oom"] = (
    {
        "driver.log": pre(
            "(RayTrainWorker pid=48213, ip=10.0.0.7) ",
            [
                *tb(
                    [
                        (
                            "/home/ray/train.py",
                            141,
                            "train_func",
                            "ray.train.report(metrics, checkpoint=Checkpoint.from_directory(tmp))",
                        ),
                        (
                            "/home/ray/anaconda3/lib/python3.11/site-packages/ray/train/_internal/session.py",
                            663,
                            "report",
                            "self._report_training_result(training_result)",
                        ),
                        (
                            "/home/ray/anaconda3/lib/python3.11/site-packages/ray/train/_internal/storage.py",
                            557,
                            "persist_current_checkpoint",
                            "_pyarrow_fs_copy_files(checkpoint.path, self.checkpoint_fs_path)",
                        ),
                        (
                            "/home/ray/train.py",
                            118,
                            "gather_full_state",
                            "dist.all_gather_object(shards, local_shard)",
                        ),
                    ],
                    "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
                ),
                "ncclUnhandledCudaError: Call to CUDA function failed.",
                "Last error:",
                "Cuda failure 2 'out of memory'",
            ],
        )
    },
    "gpu_oom_checkpoint_gather",
    None,
)

# ---------------------------------------------------------------- gpu_oom lookalikes
# 6 the save at step 500 finished (the bar moved on to 502), then a step OOMed in backward
CASES["oom_in_step_after_finished_save"] = (
    {
        "train.log": pre(
            "",
            [
                bar(500, 2000),
                "[INFO|trainer.py:3801] 2025-04-02 10:11:12,001 >> Saving model checkpoint to /data/out/checkpoint-500",
                "[INFO|configuration_utils.py:414] 2025-04-02 10:11:12,010 >> Configuration saved in /data/out/checkpoint-500/config.json",
                bar(501, 2000),
                bar(502, 2000),
                *tb(
                    [
                        (
                            f"{SP}/transformers/trainer.py",
                            2245,
                            "_inner_training_loop",
                            "tr_loss_step = self.training_step(model, inputs)",
                        ),
                        (
                            f"{SP}/transformers/trainer.py",
                            3485,
                            "training_step",
                            "self.accelerator.backward(loss, **kwargs)",
                        ),
                        (f"{SP}/torch/autograd/__init__.py", 347, "backward", "_engine_run_backward("),
                    ],
                    OOM.format(g=0),
                ),
            ],
        )
    },
    "gpu_oom",
    None,
)

# 7 the bar froze on a round step (300), but the traceback runs through the model's forward pass:
#   the OOM is the next step's
CASES["round_step_forward_traceback"] = (
    {
        "train.log": pre(
            "",
            [
                "epoch 0:  30%|███       | 300/1000 [14:02<32:45,  2.81s/it, loss=2.114]",
                *tb(
                    [
                        ("/workspace/pretrain.py", 212, "main", "logits = model(input_ids)"),
                        (
                            f"{SP}/torch/nn/modules/module.py",
                            1736,
                            "_wrapped_call_impl",
                            "return self._call_impl(*args, **kwargs)",
                        ),
                        (
                            f"{SP}/torch/nn/modules/module.py",
                            1747,
                            "_call_impl",
                            "return forward_call(*args, **kwargs)",
                        ),
                        (
                            "/workspace/model.py",
                            88,
                            "forward",
                            "attn = (q @ k.transpose(-2, -1)) * self.scale",
                        ),
                    ],
                    OOM.format(g=0),
                ),
            ],
        )
    },
    "gpu_oom",
    None,
)

# 8 the printed interval rules the save out: save_steps=1000, the bar froze on 500
CASES["interval_rules_out_round_step"] = (
    {
        "train.log": pre(
            "",
            [
                TRAIN_ARGS.format(m=4000, s=1000),
                bar(500, 4000),
                "2025-03-11 14:22:07,911 - ERROR - run_sft - training failed: " + OOM.format(g=0),
            ],
        )
    },
    "gpu_oom",
    None,
)

# ---------------------------------------------------------------- cpu_oom_checkpoint
# 9 torchrun, save_steps=250 printed, the bar frozen on 750, the child SIGKILLed (no traceback)
CASES["sigkill_on_save_steps_250"] = (
    {
        "torchrun.log": pre(
            "",
            [
                "[rank0]:" + TRAIN_ARGS.format(m=2000, s=250),
                bar(749, 2000),
                bar(750, 2000),
                "W0311 14:22:09.401000 139920 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 55102 closing signal SIGTERM",
                "E0311 14:22:10.118000 139920 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 0 (pid: 55101) of binary: /usr/bin/python3",
                "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
                "Root Cause (first observed failure):",
                "[0]:",
                "  time      : 2025-03-11_14:22:10",
                "  host      : gpu-a100-07",
                "  rank      : 0 (local_rank: 0)",
                "  exitcode  : -9 (pid: 55101)",
                "  error_file: <N/A>",
                "  traceback : Signal 9 (SIGKILL) received by PID 55101",
            ],
        )
    },
    "cpu_oom_checkpoint",
    0,
)

# 10 Ray's memory monitor names the save task it killed (the paste stops before its top-10 list)
CASES["ray_oom_names_save_task"] = (
    {
        "driver.log": pre(
            "",
            [
                "2025-05-20 03:14:55,120\tINFO ppo_trainer.py:412 -- episode 3 done, saving actor",
                *tb(
                    [
                        (
                            "/app/ppo/driver.py",
                            301,
                            "fit",
                            "ray.get([a.save_model.remote(out) for a in self.actors])",
                        ),
                        (
                            "/usr/local/lib/python3.10/site-packages/ray/_private/worker.py",
                            2667,
                            "get",
                            "raise value",
                        ),
                    ],
                    "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.",
                ),
                "Memory on the node (IP: 10.4.1.23, ID: 7ab1f0c2d4) where the task (actor ID: 2f9c01e7a8b3c4d5e6f70a1b01000000, name=PolicyActor.save_model, pid=20413, memory used=402.18GB) was running was 471.02GB / 491.70GB (0.957942), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 9e1f) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip 10.4.1.23`.",
            ],
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 11 accelerate's no_trainer script, `--checkpointing_steps 120` on its command line, the kernel
#    OOM killer ends the run with the bar on step 360
CASES["checkpointing_steps_cli_kernel_kill"] = (
    {
        "run.log": pre(
            "",
            [
                "+ accelerate launch run_clm_no_trainer.py --model_name_or_path Qwen/Qwen2.5-7B --checkpointing_steps 120 --output_dir /scratch/clm",
                "05/07/2025 02:00:01 - INFO - __main__ - ***** Running training *****",
                " 14%|█▍        | 359/2500 [3:01:10<18:00:01, 30.28s/it]",
                " 14%|█▍        | 360/2500 [3:01:40<17:59:31, 30.28s/it]",
                "/var/spool/slurmd/job812734/slurm_script: line 22: 901233 Killed                  accelerate launch run_clm_no_trainer.py",
            ],
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# ---------------------------------------------------------------- host_oom lookalikes
# 12 a kill on a round step (300) that the printed interval rules out (save_steps=500)
CASES["kill_on_round_step_interval_rules_out"] = (
    {
        "torchrun.log": pre(
            "",
            [
                TRAIN_ARGS.format(m=3000, s=500),
                bar(299, 3000),
                bar(300, 3000),
                "E0311 14:22:10.118000 139920 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 0 (pid: 55101) of binary: /usr/bin/python3",
                "  traceback : Signal 9 (SIGKILL) received by PID 55101",
            ],
        )
    },
    "host_oom",
    None,
)

# 13 the save at step 400 finished and training went on; the kernel killed the run at 437
CASES["kill_after_save_resumed"] = (
    {
        "train.log": pre(
            "",
            [
                bar(400, 1500),
                "[INFO|trainer.py:3801] 2025-04-02 10:11:12,001 >> Saving model checkpoint to /data/out/checkpoint-400",
                "[INFO|trainer.py:3815] 2025-04-02 10:12:40,515 >> Deleting older checkpoint [/data/out/checkpoint-200] due to args.save_total_limit",
                bar(436, 1500),
                bar(437, 1500),
                "Killed",
            ],
        ),
        "node.dmesg": "[412003.118201] Out of memory: Killed process 77120 (python) total-vm:301123400kB, anon-rss:241022116kB, file-rss:81920kB, shmem-rss:0kB, UID:1000 pgtables:489512kB oom_score_adj:0\n",
    },
    "host_oom",
    None,
)

# 14 Ray's memory monitor killed a rollout task, not a save
CASES["ray_oom_names_rollout_task"] = (
    {
        "driver.log": pre(
            "",
            [
                "2025-05-20 03:14:55,120\tINFO ppo_trainer.py:388 -- episode 3: generating rollouts",
                "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.",
                "Memory on the node (IP: 10.4.1.23, ID: 7ab1f0c2d4) where the task (actor ID: 2f9c01e7a8b3c4d5e6f70a1b01000000, name=RolloutWorker.generate_sequences, pid=20413, memory used=402.18GB) was running was 471.02GB / 491.70GB (0.957942), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 9e1f) because it was the most recently scheduled task.",
            ],
        )
    },
    "host_oom",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_save_boundary_class_and_rank(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
