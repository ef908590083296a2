# ruff: noqa: E501 - realistic log lines are long
"""Slurm's memory kill next to the job's cancel banner, and which of srun's tasks started it.

A job the cgroup OOM-killed says so in Slurm's own words: slurmstepd's `Detected 1 oom_kill event in
StepId=N.0. Some of the step tasks have been OOM Killed.` (before 22.05: `Detected 1 oom-kill event(s)
in step N.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.`,
SchedMD/slurm src/plugins/task/cgroup/task_cgroup_memory.c), srun's `task 3: Out Of Memory`
(src/srun/launch.c, printed once per step) and sacct's step row `OUT_OF_ME+`. Slurm then ends the job
and prints its cancel banner (`*** JOB N ON host CANCELLED AT <time> ***`, src/slurmd/slurmstepd/req.c),
and sacct shows the job `CANCELLED+`: the banner is how the OOM was delivered, not a cancellation of its
own (host_oom, or cpu_oom_checkpoint when the job was saving or loading a checkpoint). Lookalikes keep
scheduler_kill: a time limit after slurmstepd's `hit memory limit at least once` note (no task was
killed), and a plain scancel with no memory kill anywhere.

srun reports tasks that ended alike on one line (`tasks 0-3: Terminated`, `tasks 0,2-3: Killed`): the
tasks srun or slurmstepd signalled after another task failed are collateral, even when the range holds
one task (`task 4: Terminated`) or is printed before the failing task's own line; the task that exited
with its own error (`task 2: Exited with exit code 1`) or was OOM-killed (`task 6: Out Of Memory`) is
the initiating rank.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
Case = tuple[dict[str, str], str, int | None]
SP = "/opt/conda/lib/python3.11/site-packages"

_STEPS = [
    f"[2025-03-04 10:0{i}:11,402] [INFO] [train.py:211] epoch 2 step {1480 + i} loss 1.{93 - i} lr 2.9e-4"
    for i in range(4)
]
_SACCT_OOM = "".join(
    [
        "       JobID    JobName      State ExitCode     MaxRSS\n",
        "------------ ---------- ---------- -------- ----------\n",
        "77120         pretrain CANCELLED+      0:0\n",
        "77120.batch      batch  CANCELLED     0:15   1204312K\n",
        "77120.extern    extern  COMPLETED      0:0        12K\n",
        "77120.0         python OUT_OF_ME+    0:125 251234120K\n",
    ]
)
_KEYERROR = tb(
    [
        ("/home/ml/proj/train.py", 388, "<module>", "main(args)"),
        ("/home/ml/proj/train.py", 301, "main", "for step, batch in enumerate(loader):"),
        ("/home/ml/proj/data.py", 92, "__getitem__", 'ids = self.vocab[tok["text"]]'),
    ],
    "KeyError: 'text'",
)

CASES: dict[str, Case] = {}

# 1 srun -n 8 (one task per rank), mid-epoch: the current slurmstepd wording, srun's OOM task, then the
#   job's cancel banner with no reason
CASES["oom_event_then_job_cancel_banner_mid_epoch"] = (
    {
        "slurm-5512.out": pre("", _STEPS)
        + pre(
            "",
            [
                "slurmstepd: error: Detected 1 oom_kill event in StepId=5512.0. Some of the step tasks have been OOM Killed.",
                "srun: error: gpu-a07: task 3: Out Of Memory",
                "slurmstepd: error: *** JOB 5512 ON gpu-a07 CANCELLED AT 2025-03-04T10:12:44 ***",
            ],
        )
    },
    "host_oom",
    3,
)

# 2 Slurm before 22.05: the old slurmstepd sentence ("Some of your processes may have been killed by the
#   cgroup out-of-memory handler"), then the cancel banner; sacct pasted next to it: job CANCELLED+,
#   step OUT_OF_ME+
CASES["old_oom_handler_wording_cancel_banner_sacct"] = (
    {
        "slurm-77120.out": pre(
            "",
            [
                *_STEPS,
                "slurmstepd: error: Detected 1 oom-kill event(s) in step 77120.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.",
                "slurmstepd: error: *** JOB 77120 ON node017 CANCELLED AT 2021-06-14T02:51:09 ***",
            ],
        ),
        "sacct.txt": _SACCT_OOM,
    },
    "host_oom",
    None,
)

# 3 only the banner in the .out (the user cancelled the stuck remains), sacct says the step ran out of
#   memory: the job's CANCELLED+ is how it ended, the step's OUT_OF_ME+ why
CASES["sacct_step_oom_job_cancelled_plus_banner"] = (
    {
        "slurm-77120.out": pre(
            "",
            [*_STEPS, "slurmstepd: error: *** JOB 77120 ON node017 CANCELLED AT 2025-03-04T10:31:40 ***"],
        ),
        "sacct.txt": _SACCT_OOM,
    },
    "host_oom",
    None,
)

# 4 srun -l python (label = rank), the save of checkpoint-2000 under way: the OOM task is the rank, the
#   banner and the teardown's ranges are the delivery
CASES["label_save_oom_task_job_banner"] = (
    {
        "slurm-9031.out": pre(
            "",
            [
                "0: {'loss': 1.4417, 'grad_norm': 0.61, 'learning_rate': 1.2e-05, 'epoch': 0.41}",
                "0: [INFO|trainer.py:3705] 2025-01-22 07:14:02,118 >> Saving model checkpoint to /scratch/run3/checkpoint-2000",
                "0: [INFO|configuration_utils.py:414] 2025-01-22 07:14:02,121 >> Configuration saved in /scratch/run3/checkpoint-2000/config.json",
                "slurmstepd: error: Detected 1 oom_kill event in StepId=9031.0. Some of the step tasks have been OOM Killed.",
                "srun: error: hgx-12: task 5: Out Of Memory",
                "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                "slurmstepd: error: *** JOB 9031 ON hgx-12 CANCELLED AT 2025-01-22T07:16:55 ***",
                "srun: error: hgx-12: tasks 0-4,6-7: Killed",
            ],
        )
    },
    "cpu_oom_checkpoint",
    5,
)

# 5 every rank loads the full checkpoint on the host at resume; slurmstepd's old wording, srun's OOM
#   task and the TASK FAILURE banner (--kill-on-bad-exit)
CASES["resume_load_oom_task_failure_banner"] = (
    {
        "slurm-4410.out": pre(
            "",
            [
                "[2024-11-02 18:00:41,002] [INFO] [train.py:88] Resuming from checkpoint /lustre/ckpt/llama-13b/step_6000 (world size 8)",
                "[2024-11-02 18:00:41,013] [INFO] [train.py:95] loading full state dict on every rank (map_location=cpu)",
                "slurmstepd: error: Detected 2 oom-kill event(s) in StepId=4410.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.",
                "srun: error: gpu-c03: task 2: Out Of Memory",
                "slurmstepd: error: *** STEP 4410.0 ON gpu-c03 CANCELLED AT 2024-11-02T18:03:12 DUE TO TASK FAILURE ***",
                "slurmstepd: error: *** JOB 4410 ON gpu-c03 CANCELLED AT 2024-11-02T18:03:12 ***",
            ],
        )
    },
    "cpu_oom_checkpoint",
    2,
)

# 6 lookalike: slurmstepd noted the memory limit was reached once (no task killed), then the time limit
CASES["memory_limit_note_then_time_limit"] = (
    {
        "slurm-6120.out": pre(
            "",
            [
                *_STEPS,
                "slurmstepd: error: *** JOB 6120 ON gpu-a02 CANCELLED AT 2025-03-04T10:04:59 DUE TO TIME LIMIT ***",
                "slurmstepd: StepId=6120.0 hit memory limit at least once during execution. This may or may not result in some failure.",
            ],
        )
    },
    "scheduler_kill",
    None,
)

# 7 lookalike: scancel mid-epoch, sacct CANCELLED on every row, no memory kill anywhere
CASES["plain_scancel_sacct_cancelled"] = (
    {
        "slurm-77121.out": pre(
            "",
            [*_STEPS, "slurmstepd: error: *** JOB 77121 ON node017 CANCELLED AT 2025-03-04T10:31:40 ***"],
        ),
        "sacct.txt": "".join(
            [
                "       JobID    JobName      State ExitCode\n",
                "------------ ---------- ---------- --------\n",
                "77121         pretrain CANCELLED+      0:0\n",
                "77121.batch      batch  CANCELLED     0:15\n",
                "77121.0         python  CANCELLED     0:15\n",
            ]
        ),
    },
    "scheduler_kill",
    None,
)

# 8 srun -n 4 without labels: the KeyError names no rank; srun prints the collateral range first, then
#   the task that exited with its own error
CASES["range_terminated_before_exit_code"] = (
    {
        "slurm-3300.out": pre(
            "",
            [
                *_STEPS[:2],
                *_KEYERROR,
                "srun: error: node1: tasks 0,2-3: Terminated",
                "srun: error: node1: task 1: Exited with exit code 1",
                "srun: Terminating StepId=3300.0",
            ],
        )
    },
    "shape_or_user_code_error",
    1,
)

# 9 two nodes: the failing task's line first, node2's one collateral task (`task 4: Terminated`, a range
#   of one) after it, then node1's range
CASES["exit_code_then_single_terminated_task"] = (
    {
        "slurm-3301.out": pre(
            "",
            [
                *_KEYERROR,
                "srun: error: node1: task 2: Exited with exit code 1",
                "srun: Terminating StepId=3301.0",
                "srun: error: node2: task 4: Terminated",
                "srun: error: node1: tasks 0-1,3: Terminated",
                "srun: error: node2: tasks 5-7: Terminated",
            ],
        )
    },
    "shape_or_user_code_error",
    2,
)

# 10 the one collateral task of another node reported before the failing task's line
CASES["single_terminated_task_before_exit_code"] = (
    {
        "slurm-3302.out": pre(
            "",
            [
                *_KEYERROR,
                "srun: error: node2: task 7: Terminated",
                "srun: error: node1: task 2: Exited with exit code 1",
                "srun: error: node1: tasks 0-1,3: Terminated",
            ],
        )
    },
    "shape_or_user_code_error",
    2,
)

# 11 srun -l python, labelled steps: node gpu-b02's collateral range `4-5,7`, then the OOM-killed task 6
CASES["label_terminated_range_then_oom_task"] = (
    {
        "slurm-8123.out": pre(
            "",
            [f"{r}: step 911 loss 2.{r}07" for r in range(8)]
            + [
                "srun: error: gpu-b02: tasks 4-5,7: Terminated",
                "srun: error: gpu-b02: task 6: Out Of Memory",
                "srun: error: gpu-b01: tasks 0-3: Terminated",
            ],
        )
    },
    "host_oom",
    6,
)

# 12 tasks SIGKILLed in ranges (srun's kill after the grace period), the failing task's exit code last
CASES["killed_ranges_then_exit_code_labelled"] = (
    {
        "slurm-3303.out": pre("5: ", _KEYERROR)
        + pre(
            "",
            [
                "srun: error: node2: tasks 4,6-7: Killed",
                "srun: error: node1: tasks 0-3: Killed",
                "srun: error: node2: task 5: Exited with exit code 1",
            ],
        )
    },
    "shape_or_user_code_error",
    5,
)


# 13 sacct with a wide State column (`-o JobID,State%20`): the job `CANCELLED by 1042`, the step
#   OUT_OF_MEMORY, and the .out ending in the cancel banner
CASES["sacct_wide_cancelled_by_uid_step_oom"] = (
    {
        "slurm-77122.out": pre(
            "",
            [*_STEPS, "slurmstepd: error: *** JOB 77122 ON node017 CANCELLED AT 2025-03-04T10:05:40 ***"],
        ),
        "sacct.txt": "".join(
            [
                "       JobID                State ExitCode\n",
                "------------ -------------------- --------\n",
                "77122          CANCELLED by 1042      0:0\n",
                "77122.batch            CANCELLED     0:15\n",
                "77122.0            OUT_OF_MEMORY    0:125\n",
            ]
        ),
    },
    "host_oom",
    None,
)


# 14 the same sacct rows when the .out stops in a save (HF Trainer's checkpoint-1500), then the banner
CASES["sacct_step_oom_job_cancelled_during_save"] = (
    {
        "slurm-77120.out": pre(
            "",
            [
                *_STEPS,
                "[INFO|trainer.py:3705] 2025-03-04 10:04:02,118 >> Saving model checkpoint to /scratch/run9/checkpoint-1500",
                "slurmstepd: error: *** JOB 77120 ON node017 CANCELLED AT 2025-03-04T10:09:40 ***",
            ],
        ),
        "sacct.txt": _SACCT_OOM,
    },
    "cpu_oom_checkpoint",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_slurm_oom_delivery_and_task_ranges(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)


# lookalike: `srun -N 2 torchrun --nproc_per_node 4` without labels: srun's task is a node's launcher, so
#   its `task 1: Exited with exit code 1` names node 2's agent, not rank 1 (whose logs say nothing)
SRUN_TORCHRUN = {
    "slurm-3304.out": pre(
        "",
        [
            *_KEYERROR,
            "E0304 10:02:11.004000 4101 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: 1) local_rank: 2 (pid: 4242) of binary: /opt/conda/bin/python3",
            "srun: error: node2: task 1: Exited with exit code 1",
            "srun: error: node1: task 0: Terminated",
        ],
    )
}


def test_srun_task_of_a_launcher_is_no_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for fname, text in SRUN_TORCHRUN.items():
        (folder / fname).write_bytes(text.encode("utf-8"))
    d = diagnose_dir(folder)
    assert d.category == "shape_or_user_code_error"
    assert d.initiating.rank != 1, d.initiating.rank


# ---------------------------------------------------------------- fix steps the job's facts contradict

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.11 GiB memory in use. Of the allocated memory 74.20 GiB is allocated by PyTorch."
_BACKWARD_OOM = tb(
    [
        ("/workspace/train.py", 412, "training_step", "self.engine.backward(loss)"),
        (
            f"{SP}/deepspeed/runtime/engine.py",
            2020,
            "backward",
            "self.optimizer.backward(loss, retain_graph=retain_graph)",
        ),
    ],
    OOM,
)
_GATHER_OOM = tb(
    [
        ("/workspace/train.py", 530, "<module>", "trainer.train()"),
        (
            f"{SP}/transformers/trainer.py",
            2386,
            "_save_checkpoint",
            "self.save_model(output_dir, _internal_call=True)",
        ),
        (
            f"{SP}/transformers/trainer.py",
            2914,
            "save_model",
            "state_dict = self.accelerator.get_state_dict(self.deepspeed)",
        ),
        (
            f"{SP}/deepspeed/runtime/engine.py",
            3466,
            "_zero3_consolidated_16bit_state_dict",
            "param_list = [p.clone() for p in params]",
        ),
    ],
    OOM,
)


def _ds_start(stage: int) -> list[str]:
    """DeepSpeed's config print and engine line at start-up (deepspeed/runtime/config.py `print`,
    engine.py `_configure_zero_optimizer`)."""
    return [
        f"[2024-07-10 14:14:51,806] [INFO] [config.py:1000:print]   zero_optimization_stage ...... {stage}",
        f"[2024-07-10 14:14:52,101] [INFO] [logging.py:96:log_dist] [Rank 0] Creating torch.bfloat16 ZeRO stage {stage} optimizer",
    ]


_STEPS_DS = [
    f"[2024-07-10 14:2{i}:00,000] [INFO] [trainer.py:2241] step {497 + i} loss 1.8{i}" for i in range(4)
]
_SAVE = "[INFO|trainer.py:3705] 2024-07-10 14:24:01,118 >> Saving model checkpoint to /out/checkpoint-500"
_SAVED_EARLIER = [
    "[INFO|trainer.py:3705] 2024-07-10 14:10:01,118 >> Saving model checkpoint to /out/checkpoint-250",
    "[2024-07-10 14:10:31,402] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step250 is ready now!",
]

#: (logs, category, the step text that must be gone, the text that must be there)
FIX_CASES: dict[str, tuple[dict[str, str], str, str, str]] = {
    "stage3_backward_oom_no_zero2_to_3": (
        {"rank0.log": pre("[rank0]: ", [*_ds_start(3), *_STEPS_DS, *_BACKWARD_OOM])},
        "gpu_oom",
        "ZeRO-2 → 3",
        "already shards with ZeRO stage 3",
    ),
    "stage2_backward_oom_keeps_zero2_to_3": (
        {"rank0.log": pre("[rank0]: ", [*_ds_start(2), *_STEPS_DS, *_BACKWARD_OOM])},
        "gpu_oom",
        "already shards with ZeRO stage 3",
        "ZeRO-2 → 3",
    ),
    "first_save_gather_oom_no_resume_claim": (
        {"rank0.log": pre("[rank0]: ", [*_ds_start(3), *_STEPS_DS, _SAVE, *_GATHER_OOM])},
        "gpu_oom_checkpoint_gather",
        "Resume from the last good sharded checkpoint",
        "no sharded checkpoint to resume from",
    ),
    "second_save_gather_oom_keeps_resume": (
        {"rank0.log": pre("[rank0]: ", [*_ds_start(3), *_SAVED_EARLIER, *_STEPS_DS, _SAVE, *_GATHER_OOM])},
        "gpu_oom_checkpoint_gather",
        "no sharded checkpoint to resume from",
        "Resume from the last good sharded checkpoint",
    ),
}


@pytest.mark.parametrize("name", sorted(FIX_CASES))
def test_fix_steps_fit_the_job(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    files, category, gone, there = FIX_CASES[name]
    check_case(name, (files, category, None), diagnose_dir, tmp_path)
    d = diagnose_dir(tmp_path / "logs")
    assert gone not in d.fix and there in d.fix, (name, d.fix)
