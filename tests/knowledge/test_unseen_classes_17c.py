# ruff: noqa: E501 - realistic log lines are long
"""Host RAM exhausted while a checkpoint is read or converted, told from an ordinary host OOM by the
phase the frameworks' own lines place the kill in (round 17c).

cpu_oom_checkpoint: the kill follows a load the phase markers did not read before, OpenMMLab's
CheckpointLoader (`Loads checkpoint by local backend from path: …`, mmcv 1.x `load checkpoint from
local path: …`, both printed before `torch.load`), MindSpore Mindformers (`Start load checkpoint from
checkpoint`, `Start resume training from checkpoint`, `Transform and load checkpoint`: with
auto_trans_ckpt every card reads the whole checkpoint), or torch's DCP-to-torch.save conversion
(`python -m torch.distributed.checkpoint.format_utils dcp_to_torch …`, `dcp_to_torch_save`), which
holds the full state dict in host RAM.
host_oom: the kill follows an evaluation's results (HF Trainer's `{'eval_loss': …}` dict, ModelOpt's
`Average losses = {…}`, PyTorch's examples' `Test set: Average loss: …`) printed after a model load:
the load is over, and a kill in a load-then-score loop is a leak across iterations, not the load.
Lookalikes: a save after the evaluation still decides (cpu_oom_checkpoint); training lines after the
OpenMMLab load end it (host_oom); a load bar with nothing after it stays the load; a lone DataLoader
worker kill stays dataloader_worker_killed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case

Run = Callable[[Path], Diagnosis]

_TORCHRUN_KILL = [
    "W1104 03:12:51.774000 88120 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 88154 closing signal SIGTERM",
    "E1104 03:12:52.310000 88120 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 1 (pid: 88155) of binary: /home/svc/miniconda3/envs/ft/bin/python",
]


def lines(*parts: str | list[str]) -> str:
    """The parts as one log, one line each."""
    out: list[str] = []
    for p in parts:
        out += [p] if isinstance(p, str) else p
    return "\n".join(out) + "\n"


CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# ---------------------------------------------------------------- cpu_oom_checkpoint
# 1 mmengine resuming a detector: the CheckpointLoader line, then the shell's Killed
CASES["mmengine_checkpoint_loader_then_killed"] = (
    {
        "train.log": lines(
            "2025/02/17 21:40:12 - mmengine - INFO - Config: default_scope = 'mmdet'",
            "2025/02/17 21:40:19 - mmengine - INFO - Distributed training is not used, all SyncBatchNorm (SyncBN) layers in the model will be automatically reverted to BatchNormXd layers if they are used.",
            "2025/02/17 21:40:31 - mmengine - INFO - Loads checkpoint by local backend from path: /data/exp/co_detr_r50/iter_60000.pth",
            "./tools/dist_train.sh: line 19: 31877 Killed                  python -m torch.distributed.launch --nproc_per_node=1 tools/train.py configs/co_detr_r50.py --resume",
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 2 mmcv 1.x reading a pretrained backbone from a local path, killed before the first iteration
CASES["mmcv_local_path_load_then_kill"] = (
    {
        "console.log": lines(
            "2023-06-02 08:14:55,301 - mmseg - INFO - Loaded 20210 images",
            "2023-06-02 08:15:02,118 - mmseg - INFO - load checkpoint from local path: pretrain/swin_large_22k.pth",
            "Killed",
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 3 Mindformers loading with automatic re-slicing: the load line, then the main process vanishes
CASES["mindformers_load_then_main_process_gone"] = (
    {
        "worker_3.log": lines(
            "2025-01-08 17:02:11,402 - mindformers[mindformers/trainer/base_trainer.py:871] - INFO - .........Build Network From Config..........",
            "2025-01-08 17:05:47,913 - mindformers[mindformers/trainer/utils.py:321] - INFO - .............Start load checkpoint from checkpoint..................",
            "[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!",
            "[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!",
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 4 torch's DCP -> torch.save conversion of a sharded checkpoint
CASES["dcp_to_torch_conversion_killed"] = (
    {
        "convert.txt": lines(
            "(train) ml@gpu-a17:~/torchtitan$ python -m torch.distributed.checkpoint.format_utils dcp_to_torch outputs/checkpoint/step-30000 /scratch/llama3_8b_full.pt",
            "Killed",
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# ---------------------------------------------------------------- host_oom
# 5 HF Trainer's eval metrics after the shards loaded: the kill came after the load was over
CASES["hf_eval_dict_after_load_then_sigkill"] = (
    {
        "stdout.log": lines(
            "Loading checkpoint shards: 100%|██████████| 4/4 [00:17<00:00,  4.31s/it]",
            "{'eval_loss': 0.9127, 'eval_runtime': 131.7, 'eval_samples_per_second': 15.19, 'eval_steps_per_second': 0.95, 'epoch': 0.25}",
            _TORCHRUN_KILL,
        )
    },
    "host_oom",
    None,
)

# 6 a scoring loop: load a candidate, print its averaged losses, load the next ... killed in between
CASES["averaged_losses_after_load_then_killed"] = (
    {
        "score.log": lines(
            "[2026-01-20 11:02:03,551][rank-0][sharded_checkpoint_utils.py:173]      Loading shard state_dict from safetensors",
            "validate_model:",
            "Average losses = {'lm_loss': 1.402, 'token_accuracy_top_1': 0.688, 'token_accuracy_top_5': 0.871}",
            "Actual num samples = 16",
            _TORCHRUN_KILL,
        )
    },
    "host_oom",
    None,
)

# 7 PyTorch's MNIST example: test results after loading the weights, then the kernel kills it
CASES["test_set_average_loss_after_load_then_killed"] = (
    {
        "run.log": lines(
            "=> loading checkpoint 'runs/mnist_cnn.pt'",
            "Test set: Average loss: 0.0291, Accuracy: 9911/10000 (99%)",
            "Killed",
        )
    },
    "host_oom",
    None,
)

# ---------------------------------------------------------------- lookalikes
# 8 evaluation, then the save: the save decides
CASES["eval_dict_then_save_then_sigkill_stays_checkpoint"] = (
    {
        "stdout.log": lines(
            "{'loss': 1.0311, 'grad_norm': 0.74, 'learning_rate': 1.8e-05, 'epoch': 0.5}",
            "{'eval_loss': 1.0206, 'eval_runtime': 58.3, 'eval_samples_per_second': 21.6, 'eval_steps_per_second': 2.7, 'epoch': 0.5}",
            "[INFO|trainer.py:3705] 2025-03-12 04:10:44,120 >> Saving model checkpoint to /mnt/out/qwen-sft/checkpoint-1500",
            _TORCHRUN_KILL,
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 9 mmengine loaded, then trained for a while: the load is over
CASES["mmengine_load_then_training_then_killed_stays_host"] = (
    {
        "train.log": lines(
            "2025/02/17 21:40:31 - mmengine - INFO - Loads checkpoint by local backend from path: /data/exp/rtm/epoch_30.pth",
            "2025/02/17 21:41:02 - mmengine - INFO - Epoch(train)  [31][ 50/1833]  lr: 2.0000e-04  eta: 1 day, 2:11:09  time: 0.6120  data_time: 0.0411  memory: 14122  loss: 0.8732  loss_cls: 0.4121  loss_bbox: 0.4611",
            "2025/02/17 21:41:33 - mmengine - INFO - Epoch(train)  [31][100/1833]  lr: 2.0000e-04  eta: 1 day, 2:10:31  time: 0.6093  data_time: 0.0398  memory: 14122  loss: 0.8611  loss_cls: 0.4050  loss_bbox: 0.4561",
            "Killed",
        )
    },
    "host_oom",
    None,
)

# 10 a load bar with nothing after it: still the load
CASES["shard_bar_then_sigkill_stays_checkpoint"] = (
    {
        "stdout.log": lines(
            "Loading checkpoint shards:  60%|██████    | 3/5 [01:02<00:41, 20.7s/it]",
            _TORCHRUN_KILL,
        )
    },
    "cpu_oom_checkpoint",
    None,
)

# 11 a DataLoader worker killed after an evaluation report stays the worker's kill
CASES["worker_killed_after_eval_dict_stays_worker"] = (
    {
        "stdout.log": lines(
            "{'eval_loss': 0.7712, 'eval_runtime': 12.2, 'eval_samples_per_second': 81.9, 'epoch': 2.0}",
            "RuntimeError: DataLoader worker (pid 51730) is killed by signal: Killed.",
        )
    },
    "dataloader_worker_killed",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_checkpoint_host_oom_phase_or_not(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
