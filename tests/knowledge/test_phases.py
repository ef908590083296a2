"""The lifecycle phase decides between look-alike classes: the same OOM line during a checkpoint save
and during a training step are different failures (knowledge/phases.py, knowledge/data/phases.toml)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge.phases import PHASES, load_markers

TRAIN = [
    "[2026-11-20 03:00:00,000] INFO ***** Running training *****",
    "{'loss': 1.9312, 'grad_norm': 0.52, 'learning_rate': 2e-05, 'epoch': 0.41}",
    "{'loss': 1.8120, 'grad_norm': 0.49, 'learning_rate': 2e-05, 'epoch': 0.42}",
]
SAVE = ["[INFO|trainer.py:3705] 2026-11-20 03:14:00,000 >> Saving model checkpoint to out/checkpoint-4000"]
CUDA_OOM = [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 812.00 MiB is free."
]


def write(tmp_path: Path, lines: list[str], name: str = "rank0.log") -> Path:
    (tmp_path / name).write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize(
    ("lines", "category", "phase"),
    [
        (TRAIN + SAVE + ["Killed"], "cpu_oom_checkpoint", "checkpoint_save"),
        ([*TRAIN, "Killed"], "host_oom", "train"),
        (TRAIN + SAVE + CUDA_OOM, "gpu_oom_checkpoint_gather", "checkpoint_save"),
        (TRAIN + CUDA_OOM, "gpu_oom", "train"),
        (
            ["Loading checkpoint shards:  50%|█████     | 1/2 [00:41<00:41, 41.2s/it]Killed"],
            "cpu_oom_checkpoint",
            "model_load",
        ),
        (
            TRAIN
            + SAVE
            + ["{'loss': 1.7001, 'grad_norm': 0.47, 'learning_rate': 2e-05, 'epoch': 0.43}", "Killed"],
            "host_oom",
            "train",
        ),  # training had resumed after the save: an ordinary host OOM
    ],
    ids=[
        "kill-in-save",
        "kill-in-train",
        "cuda-oom-in-save",
        "cuda-oom-in-train",
        "kill-loading-shards",
        "kill-after-save-ended",
    ],
)
def test_the_phase_decides_the_class(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis], lines: list[str], category: str, phase: str
) -> None:
    diag = diagnose_dir(write(tmp_path, lines))
    assert diag.category == category, diag.initiating
    assert diag.initiating.phase == phase
    assert diag.initiating.phase_evidence is not None and diag.initiating.phase_evidence.source == "rank0.log"


def test_a_traceback_frame_outranks_the_last_log_line(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    trace = [
        "Traceback (most recent call last):",
        '  File "/opt/conda/lib/python3.11/site-packages/transformers/trainer.py", line 2052, in train',
        '  File "/opt/conda/lib/python3.11/site-packages/transformers/trainer.py", line 3010, in '
        "_save_checkpoint",
        '  File "/opt/conda/lib/python3.11/site-packages/deepspeed/runtime/engine.py", line 3580, in '
        "_zero3_consolidated_16bit_state_dict",
    ]
    diag = diagnose_dir(write(tmp_path, TRAIN + trace + CUDA_OOM))
    assert diag.category == "gpu_oom_checkpoint_gather"
    assert diag.initiating.phase == "checkpoint_save"
    assert "_zero3_consolidated_16bit_state_dict" in diag.initiating.phase_evidence.text  # type: ignore[union-attr]


def test_no_phase_evidence_is_said_and_the_other_class_offered(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    diag = diagnose_dir(
        write(tmp_path, ["[12345.678] Out of memory: Killed process 4242 (python3)"], "node-gpu-01.dmesg")
    )
    assert diag.category == "host_oom" and diag.initiating.phase is None
    assert "cpu_oom_checkpoint" in [a.category for a in diag.alternatives]
    assert diag.confidence < 0.7
    assert "saving a checkpoint" in diag.missing_evidence[0].what


def test_a_log_that_stops_while_loading_a_checkpoint(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    diag = diagnose_dir(
        write(tmp_path, [*TRAIN, "Loading best model from out/checkpoint-1200 (score: 1.29)."])
    )
    assert diag.category == "cpu_oom_checkpoint" and diag.initiating.phase == "checkpoint_load"
    assert diag.confidence <= 0.4


def test_every_marker_is_valid_and_names_its_source() -> None:
    markers = load_markers()
    assert len(markers) >= 30
    assert {m.phase for m in markers} >= set(PHASES) - {"startup", "teardown"}
    assert all(m.source for m in markers)
    assert len({m.id for m in markers}) == len(markers)


def test_a_kill_without_a_clock_takes_the_phase_the_job_stopped_in(
    tmp_path: Path, diagnose_dir: Callable[[Path], Diagnosis]
) -> None:
    """The kernel's OOM line has no comparable time, but rank 0's log stops in the middle of a save."""
    write(tmp_path, ["step 3999 loss 1.21", "Saving model checkpoint to out/checkpoint-4000"], "rank0.log")
    write(tmp_path, ["step 3999 loss 1.19"], "rank1.log")
    write(tmp_path, ["[8123.456] Out of memory: Killed process 4242 (python3)"], "node-gpu-01.dmesg")
    diag = diagnose_dir(tmp_path)
    assert diag.category == "cpu_oom_checkpoint"
    assert diag.initiating.phase == "checkpoint_save"
    assert diag.initiating.phase_evidence is not None and diag.initiating.phase_evidence.source == "rank0.log"
