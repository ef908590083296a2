# ruff: noqa: E501 - realistic log lines are long
"""Lines whose meaning was lost to their layout or a redaction (round 16b).

nan_divergence: a loop that prints its step and loss bare (`print(ctr, lv)`, yanmtt's pretrain_nmt.py;
`print(step, loss)` of a scalar tensor, `200 tensor(nan, device='cuda:0', …)`) and a series that turns
`nan`; the step lines after a save or reload also say the job was training again, so a log that goes on
past `Loading from checkpoint` did not stop in that load.
shape_or_user_code_error: torch.save's `Parent directory … does not exist.` (PyTorchStreamWriter checks
the target's folder before writing: a path the job never created, e.g. only rank 0 ran os.makedirs), and
a fragment of a rich traceback box with no error line (frames through `save_pretrained`/`state_dict`):
a Python exception whose message is missing, not a silent kill in the save.
gpu_oom_checkpoint_gather: such a fragment whose frames are ZeRO-3's consolidation, then the OOM line.
dataloader_worker_killed: PyTorch's `DataLoader worker (pid …) is killed by signal: …` with the pid
redacted in the paste (`...`, `XXXXX`, `<pid>`): never a code error; host_oom with the kernel's report.
Lookalikes: pandas' `NaN` cells in a data summary before a KeyError, a full disk during torch.save.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
Case = tuple[dict[str, str], str, int | None]
SP = "/opt/conda/lib/python3.10/site-packages"
W = 98  # rich's box width in these pastes


def _box(text: str) -> str:
    """One line of a rich traceback box, padded to the box's width."""
    return "│ " + text.ljust(W - 4) + " │"


_RICH_SAVE = [
    _box(f"{SP}/transformers/trainer.py:2905 in _save_checkpoint"),
    _box(""),
    _box("  2902 │   │   │   self.save_model(output_dir, _internal_call=True)"),
    _box("❱ 2905 │   │   self.save_model(output_dir, _internal_call=True)"),
    _box(""),
    _box(f"{SP}/peft/peft_model.py:368 in save_pretrained"),
    _box(""),
    _box("❱  368 │   │   │   output_state_dict = get_peft_model_state_dict("),
    _box(""),
    _box(f"{SP}/torch/nn/modules/module.py:1919 in state_dict"),
    _box(""),
    _box("❱ 1919 │   │   self._save_to_state_dict(destination, prefix, keep_vars)"),
]
_RICH_ZERO3 = [
    _box(f"{SP}/deepspeed/runtime/engine.py:3585 in save_16bit_model"),
    _box(""),
    _box("❱ 3585 │   │   │   state_dict = self._zero3_consolidated_16bit_state_dict()"),
    _box(""),
    _box(f"{SP}/deepspeed/runtime/engine.py:3497 in _zero3_consolidated_16bit_state_dict"),
    _box(""),
    _box(
        "❱ 3497 │   │   │   with deepspeed.zero.GatheredParameters(list(module.parameters(recurse=False)), m"
    ),
    "╰" + "─" * (W - 2) + "╯",
    "OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free.",
]
_SAVE = [
    ("/work/nanogpt/train.py", 331, "<module>", "torch.save(checkpoint, os.path.join(out_dir, 'ckpt.pt'))"),
    (f"{SP}/torch/serialization.py", 627, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
    (f"{SP}/torch/serialization.py", 501, "_open_zipfile_writer", "return container(name_or_buffer)"),
    (
        f"{SP}/torch/serialization.py",
        472,
        "__init__",
        "super().__init__(torch._C.PyTorchFileWriter(self.name))",
    ),
]
_ITER = [
    (
        "/srv/espnet/espnet2/train/trainer.py",
        571,
        "train_one_epoch",
        "for iiter, (utt_id, batch) in enumerate(",
    ),
    (f"{SP}/torch/utils/data/dataloader.py", 1329, "_next_data", "idx, data = self._get_data()"),
    (
        f"{SP}/torch/utils/data/dataloader.py",
        1146,
        "_try_get_data",
        "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e",
    ),
]

CASES: dict[str, Case] = {
    # fairseq-style user loop under torchrun: the loss column turns nan, the job saves and goes on
    "bare-step-nan-after-save-rank-prefix": (
        {
            "train.log": pre(
                "[rank0]: ",
                [
                    "41200 2.3184",
                    "41210 2.2977",
                    "41220 2.4521",
                    "41230 nan",
                    "41240 nan",
                    "Saving model checkpoint to /ckpt/run3/step_41250",
                    "41250 nan",
                    "41260 nan",
                ],
            )
        },
        "nan_divergence",
        None,
    ),
    # a scalar tensor printed with its step, CRLF from a Windows console
    "tensor-print-nan-crlf": (
        {
            "console.log": "\r\n".join(
                [
                    "epoch 3",
                    "100 tensor(2.3418, device='cuda:0', grad_fn=<NllLossBackward0>)",
                    "200 tensor(2.1007, device='cuda:0', grad_fn=<NllLossBackward0>)",
                    "300 tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)",
                    "400 tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)",
                    "Loading from checkpoint",
                    "500 tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)",
                ]
            )
            + "\r\n"
        },
        "nan_divergence",
        None,
    ),
    # srun's task label before a bare step/loss print; the log ends on the periodic reload
    "srun-label-bare-nan-ends-in-reload": (
        {
            "slurm-88121.out": pre(
                "0: ",
                ["9980 1.7712", "9990 1.7694", "10000 nan", "Saving the model", "Loading from checkpoint"],
            )
            + pre("1: ", ["Loading from checkpoint"])
        },
        "nan_divergence",
        None,
    ),
    # pandas prints missing cells as `NaN`: a data summary, then the job's own KeyError
    "lookalike-pandas-nan-cells-then-keyerror": (
        {
            "console.log": "\n".join(
                [
                    "   n_tokens  score",
                    "0      512    NaN",
                    "1      498    NaN",
                    *tb(
                        [("/home/ml/sft/data.py", 88, "build", "text = row['prompt']")],
                        "KeyError: 'prompt'",
                    ),
                ]
            )
            + "\n"
        },
        "shape_or_user_code_error",
        None,
    ),
    # a paste cut out of accelerate's rich traceback: the frames of a save, no error line
    "rich-fragment-save-no-error-line": (
        {"console.log": "\n".join(["Saving model checkpoint to out/checkpoint-500", *_RICH_SAVE]) + "\n"},
        "shape_or_user_code_error",
        None,
    ),
    # the same kind of fragment ending on the box's bottom and the OOM: its frames are ZeRO-3's gather
    "rich-fragment-zero3-gather-oom": (
        {"console.log": "\n".join(_RICH_ZERO3) + "\n"},
        "gpu_oom_checkpoint_gather",
        None,
    ),
    "worker-killed-pid-redacted-dots": (
        {
            "console.log": "\n".join(
                tb(_ITER, "RuntimeError: DataLoader worker (pid ...) is killed by signal: Killed.")
            )
            + "\n"
        },
        "dataloader_worker_killed",
        None,
    ),
    "worker-killed-pid-xxxxx-segfault-rank2": (
        {
            "train.log": pre(
                "[rank2]: ",
                tb(
                    _ITER,
                    "RuntimeError: DataLoader worker (pid XXXXX) is killed by signal: Segmentation fault.",
                ),
            )
        },
        "dataloader_worker_killed",
        2,
    ),
    "worker-killed-pid-placeholder-kernel-oom": (
        {
            "console.log": "RuntimeError: DataLoader worker (pid <pid>) is killed by signal: Killed.\n",
            "node-07.dmesg": "[Tue May  6 03:12:44 2025] Out of memory: Killed process 51877 (pt_data_worker) total-vm:23418260kB, anon-rss:19120044kB\n",
        },
        "host_oom",
        None,
    ),
    "torch-save-parent-dir-missing-rank3": (
        {
            "rank3.log": pre(
                "[rank3]: ",
                tb(_SAVE, "RuntimeError: Parent directory /ckpt/run7/step_1000 does not exist."),
            ),
            "rank0.log": pre("[rank0]: ", ["saving checkpoint to /ckpt/run7/step_1000"]),
        },
        "shape_or_user_code_error",
        3,
    ),
    "parent-dir-missing-crlf-then-corrupt-reload": (
        {
            "save.log": "\r\n".join(
                [
                    "[2025-02-11 09:14:02] Saving checkpoint to s3mnt/ckpts/epoch_4",
                    *tb(_SAVE, "RuntimeError: Parent directory s3mnt/ckpts/epoch_4 does not exist."),
                ]
            )
            + "\r\n",
            "eval.log": "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory\n",
        },
        "shape_or_user_code_error",
        None,
    ),
    "lookalike-disk-full-in-torch-save": (
        {
            "console.log": "\n".join(
                [
                    *tb(
                        _SAVE,
                        "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 1853772224 vs 1853772112",
                    ),
                    "OSError: [Errno 28] No space left on device",
                ]
            )
            + "\n"
        },
        "disk_full_or_io",
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lines_whose_layout_or_redaction_hid_them(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
