"""A failure where the training progress stopped on a step the job saves at: most likely the save.

The trainers save right after the step that ends an interval, before the next step starts, and their
progress display is updated when a step ends, so a process that dies while saving leaves the display
frozen on the save step:

- tqdm's bar (Transformers' `ProgressCallback`, Accelerate and Lightning loops): `500/2500 [`;
- Transformers' notebook bar (`NotebookProgressCallback.on_step_end` shows `state.global_step + 1`):
  `[ 501/1500 06:35 < 13:11, 1.26 it/s, Epoch 1/3]` is step 500 done;
- a counter with a rate (`128 / 7296 … 1.10 s/it`, a web UI's training tab);
- Megatron's `iteration      500/   10000 | consumed samples`.

A step is a save step when the job printed its interval (`save_steps=500`, `save_interval: 250`) and
the step is a multiple of it; when a checkpoint folder named for that very step appears in the logs
(`checkpoint-128`, `global_step128`, `iter_0000128`, not a folder it resumed from); or, with neither, when
the step is a multiple of 100 (trainers' intervals are round numbers). A printed interval the step is
not a multiple of rules the save out.

A CUDA OOM is read this way only when nothing of its own traceback says otherwise: any frame marker
decides first (`knowledge/phases.py`), and a traceback that runs through a forward, backward or
optimizer step (`in forward`, `in _call_impl`, `in backward`, `in step`) is a training step whatever
the bar showed. A GPU OOM in the step after a completed save moved the bar past the save step.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from knowledge.phases import PhaseFact

#: the GPU OOM signatures of the CUDA-OOM and gather entries (knowledge/entries/)
GPU_OOM_SIGNATURES = frozenset(
    {
        "cuda-oom", "torch-oom-error", "ipython-oom-header", "cuda-error-oom", "hip-oom", "framework-oom",
        "thc-out-of-memory", "nccl-cuda-oom", "nccl-cuda-malloc-failed", "allowed-memory-exceeded",
    }
)  # fmt: skip
#: the same marker as the round-step reading: the report calls both an inference (`knowledge/report.py`)
MARKER = "round-step-save"
#: a kill just after the progress stopped on a step the printed save interval rules out: training
OFF_SAVE_MARKER = "off-save-step"
#: a GPU OOM whose own traceback runs through a training step's compute (a frame: nothing read from
#: the progress overrules it)
COMPUTE_MARKER = "frame-compute"
#: the smallest save interval worth trusting when the job did not print its own
ROUND = 100
#: how many lines above the failure (or its traceback's header) the frozen progress may be
WINDOW = 8
#: how far a traceback may reach above and below its failure line
TRACEBACK_SPAN = 150

_TQDM = re.compile(r"\b\d{1,3}%\|[^|\n]{0,120}\| *(\d+)/(\d+) \[")
#: Transformers' notebook bar for training: its value is the step done plus one
_NOTEBOOK = re.compile(r"\[ *(\d+)/(\d+) [^\]\n]{0,80}, Epoch [0-9.]+/[0-9.]+\]")
_MEGATRON = re.compile(r"\biteration +(\d+)/ *(\d+) \|")
_COUNTER = re.compile(r"(?<![\d./:])(\d+) ?/ ?(\d+)(?![\d./:])[^\n]{0,60}?(?:it/s|s/it|steps?/s|s/steps?)\b")
#: a bar of data preparation or of a save's own files, never the training progress
_NOT_TRAINING = re.compile(
    r"(?:examples|ex|ba|files?|shards?|B|MB|GB)/s\]|s/(?:examples|ex|ba)\]|\bnum_proc=|^\W*(?:Map|Filter\w*"
    r"|Tokeniz\w*|Generating|Downloading|Extracting|Packing|Grouping|Preprocessing|Loading checkpoint shards"
    r"|Saving|Writing|Uploading)\b"
)
_INTERVAL = re.compile(
    r"\b(?:save_steps|save_interval|save[-_]every[-_]n?[-_]?steps|checkpointing_steps|checkpoint_interval"
    r"|ckpt_interval|save_freq|every_n_train_steps)\b[\"' ]{0,2}[:= ][ \t]*[\"']?(\d+)\b",
    re.IGNORECASE,
)
#: a checkpoint folder named for its step (HF, DeepSpeed, Megatron, Lightning)
_FOLDER = re.compile(r"(?:\bcheckpoint-|\bglobal_step|\biter_0*|[-_]step=)(\d{1,9})\b")
#: a line that names a folder the job resumes or loads from, not one it saves to
_LOADING = re.compile(r"[Rr]esum|[Ll]oad|[Rr]estor|[Cc]ontinu|from_pretrained|[Rr]ead")
#: Lightning's bar counts the batches of one epoch, not the global step its interval counts: past the
#: first epoch the two differ, and the bar says nothing about a save step
_LATER_EPOCH = re.compile(r"\bEpoch [1-9][0-9]*: +[0-9]{1,3}%\|")
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
#: a traceback frame's own line (`File "…/engine.py", line 3496, in get_layer_state_dict`)
_FRAME = re.compile(r'\bFile "[^"\n]+", line \d+, in ')
#: frames of a training step's compute: the OOM is the step's, whatever the progress showed
_COMPUTE = re.compile(
    r"\bin (?:[A-Za-z_][A-Za-z0-9_]*\.)?(?:forward|_call_impl|_wrapped_call_impl|backward|run_backward"
    r"|_engine_run_backward|step|training_step|compute_loss|train_step|forward_backward\w*|generate"
    r"|_forward\w*|_pre_forward|_post_backward\w*|pre_backward\w*|fetch_sub_module)\b"
)


def progress(text: str) -> tuple[int, int] | None:
    """(steps done, total) the last progress display on a line shows; None when it shows none or
    counts something else (data preparation, a save's own files)."""
    if (nb := list(_NOTEBOOK.finditer(text))) and not _NOT_TRAINING.search(text):
        return int(nb[-1].group(1)) - 1, int(nb[-1].group(2))
    for rx in (_TQDM, _MEGATRON, _COUNTER):
        found = list(rx.finditer(text))
        if found:
            if _NOT_TRAINING.search(text):
                return None
            return int(found[-1].group(1)), int(found[-1].group(2))
    return None


def interval(texts: Iterable[str]) -> int | None:
    """The save interval the job printed (the last one seen), or None."""
    found = None
    for text in texts:
        for m in _INTERVAL.finditer(text):
            if int(m.group(1)) > 0:
                found = int(m.group(1))
    return found


def named_steps(texts: Iterable[str]) -> set[int]:
    """Steps a checkpoint folder is named for, on lines that do not load or resume from it."""
    out: set[int] = set()
    for text in texts:
        if _LOADING.search(text):
            continue
        out.update(int(m.group(1)) for m in _FOLDER.finditer(text))
    return out


def is_save_step(step: int, total: int, every: int | None, named: set[int]) -> bool:
    """Does the job save after step `step` of `total`?"""
    if step <= 0 or step >= total:
        return False  # nothing done yet, or the end: the final save has markers of its own
    if every is not None:
        return step % every == 0
    return step in named or step % ROUND == 0


def _traceback_top(numbered: list[tuple[int, str]], at: int) -> int:
    """The index of the traceback header above the failure at index `at`; for a traceback pasted without
    its header (cut to its last frames), its first frame; the failure's own index when there are none."""
    top = at
    for j in range(at, max(-1, at - TRACEBACK_SPAN), -1):
        text = numbered[j][1]
        if j < at and progress(text) is not None:
            break
        if _TRACEBACK.search(text):
            return j
        if _FRAME.search(text):
            top = j
        elif top - j > 1:
            break  # past a frame and its code line: the frames above the failure have ended
    return top


def in_compute(numbered: list[tuple[int, str]], at: int) -> bool:
    """Does the traceback around the failure at index `at` run through a training step's compute?"""
    top = _traceback_top(numbered, at)
    for j in range(top, min(len(numbered), at + TRACEBACK_SPAN)):
        text = numbered[j][1]
        if j > at and progress(text) is not None:
            break
        if _COMPUTE.search(text):
            return True
    return False


def _frozen(numbered: list[tuple[int, str]], line: int) -> tuple[int, str, int, int] | None:
    """(line, text, step, total) of the progress display frozen just above `line` (or above its
    traceback); None when there is none, or it is Lightning's bar of a later epoch."""
    at = _index(numbered, line)
    if at is None:
        return None
    top = _traceback_top(numbered, at)
    for j in range(top, max(-1, top - WINDOW - 1), -1):
        number, text = numbered[j]
        shown = progress(text)
        if shown is None:
            continue
        if _LATER_EPOCH.search(text):
            return None
        return number, text, shown[0], shown[1]
    return None


def save_step(
    source: int, numbered: list[tuple[int, str]], line: int, every: int | None, named: set[int]
) -> PhaseFact | None:
    """The `checkpoint_save` phase read from the progress frozen on a save step just above `line` (or
    above its traceback); None otherwise."""
    frozen = _frozen(numbered, line)
    if frozen is None or not is_save_step(frozen[2], frozen[3], every, named):
        return None
    return PhaseFact("checkpoint_save", source, frozen[0], frozen[1], MARKER)


def off_save_step(
    source: int, numbered: list[tuple[int, str]], line: int, every: int | None, named: set[int]
) -> PhaseFact | None:
    """The `train` phase read from the progress frozen just above `line` on a step the job's printed
    save interval rules out (`save_steps=500`, the bar on 1437/5000: the job was between two training
    steps, nowhere near a save); None without a printed interval, or on a step a checkpoint folder names."""
    frozen = _frozen(numbered, line)
    if every is None or frozen is None:
        return None
    _, _, step, total = frozen
    if not 0 < step < total or step in named or is_save_step(step, total, every, named):
        return None
    return PhaseFact("train", source, frozen[0], frozen[1], OFF_SAVE_MARKER)


def compute_step(source: int, numbered: list[tuple[int, str]], line: int) -> PhaseFact | None:
    """The `train` phase of a GPU OOM at `line` that nothing else placed, read from its own traceback
    running through a step's compute (a forward, its ZeRO-3 parameter fetch, a backward, an optimizer
    step): a save never runs there, whatever a save setting printed at start-up says."""
    at = _index(numbered, line)
    if at is None or numbered[at][0] != line or not in_compute(numbered, at):
        return None
    return PhaseFact("train", source, line, numbered[at][1], COMPUTE_MARKER)


def open_to(fact: PhaseFact | None) -> bool:
    """Is a phase open to the save-step reading: unknown, or training read from progress lines (never a
    traceback frame)?"""
    return fact is None or (fact.phase == "train" and not fact.marker.startswith("frame-"))


def gpu_save_step(
    source: int, numbered: list[tuple[int, str]], line: int, every: int | None, named: set[int]
) -> PhaseFact | None:
    """`save_step` for a GPU OOM at `line`, unless its traceback runs through a training step's compute."""
    at = _index(numbered, line)
    if at is None or numbered[at][0] != line or in_compute(numbered, at):
        return None
    return save_step(source, numbered, line, every, named)


def _index(numbered: list[tuple[int, str]], line: int) -> int | None:
    for j in range(len(numbered) - 1, -1, -1):
        if numbered[j][0] <= line:
            return j
    return None


def job_saves(texts: Iterable[str]) -> tuple[int | None, set[int]]:
    """The save interval a job printed and the steps its checkpoint folders are named for."""
    kept = list(texts)
    return interval(kept), named_steps(kept)
