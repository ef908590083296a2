"""A failure right after a progress bar stopped on a round step, or at its end: most likely a save.

Trainers save every `save_steps` / `save_interval` / `every_n_train_steps` steps, and those intervals are
round numbers (50, 100, 500, 1000). The bar is updated when the step ends and the save runs before the
next step, so a process killed while saving leaves the bar frozen on a multiple of the interval. A kill
with no traceback (SIGKILL, exit -9, the OOM killer) right after such a bar is therefore read as a death
in `checkpoint_save`, as an inference: the engine lowers its confidence and keeps the ordinary host
OOM as the alternative.

The same holds at an epoch's end: when the last progress bar before a failure had reached its total
(`47/47`, the training loop and its evaluation done) and nothing started since, the job was between
epochs, where trainers save (HF Trainer's `save_strategy="epoch"`, llama-recipes, Lightning's
`ModelCheckpoint`). Any failure there without a frame of its own is read as `checkpoint_save`, also
as an inference.
"""

from __future__ import annotations

import re

from knowledge.phases import PhaseFact
from knowledge.savestep import progress

#: a tqdm bar: `  5%|▍         | 200/4443 [11:11:27<255:23:04, 216.68s/it]`
_BAR = re.compile(r"\b\d{1,3}%\|[^|\n]{0,120}\| *(\d+)/(\d+) \[")
#: a bar of data preparation, not of training (HF datasets' `Map`/`Filter`, tokenizing, downloads, in
#: examples per second): a job that stops there was preparing data, not between epochs
_DATA_BAR = re.compile(
    r"(?:examples|ex|ba)/s\]|s/(?:examples|ex|ba)\]|\bnum_proc=|^\W*(?:Map|Filter\w*|Tokeniz\w*"
    r"|Generating|Downloading|Extracting|Packing|Grouping|Preprocessing|Resolving data files"
    r"|Saving the dataset|Casting)\b"
)
#: the smallest save interval worth trusting: a kill at step 10 says nothing about a save
ROUND = 100
#: how many lines above the kill the frozen bar may be (the launcher's own lines come in between)
WINDOW = 8
MARKER = "round-step-save"
#: how many lines above a failure the completed bar of an epoch's end may be
EPOCH_WINDOW = 40
#: the signatures of a kill that leaves no traceback (the entries' ids for them, knowledge/entries/)
KILL_SIGNATURES = frozenset(
    {
        "kernel-oom-kill", "oom-killer-kernel", "memcg-oom", "memcg-v1-limit", "oom-reaper",
        "slurm-oom-kill-event", "slurm-state-oom", "slurm-oom", "srun-task-oom", "k8s-oomkilled",
        "elastic-sigkill", "deepspeed-launcher-sigkill", "bare-killed", "bare-killed-marked",
        "ray-memory-pressure", "cgroup-oom-kill-count",
    }
)  # fmt: skip


def _last_bar(numbered: list[tuple[int, str]], line: int, window: int) -> tuple[int, str, int, int] | None:
    """(line, text, done, total) of the last progress bar at most `window` lines above `line`."""
    for number, text in reversed(numbered):
        if number > line:
            continue
        if number < line - window:
            return None
        bars = list(_BAR.finditer(text))
        if bars:
            if _DATA_BAR.search(text):
                return None  # the last bar prepared data: no training step or epoch to read a save from
            return number, text, int(bars[-1].group(1)), int(bars[-1].group(2))
    return None


def round_step_save(source: int, numbered: list[tuple[int, str]], line: int) -> PhaseFact | None:
    """The `checkpoint_save` phase inferred from the last progress bar just above `line` (or glued to
    its start), when it stopped on a round step short of the end; None otherwise."""
    bar = _last_bar(numbered, line, WINDOW)
    if bar is None:
        return None
    number, text, done, total = bar
    if done >= ROUND and done % ROUND == 0 and done < total:
        return PhaseFact("checkpoint_save", source, number, text, MARKER)
    return None


def epoch_end_save(source: int, numbered: list[tuple[int, str]], line: int) -> PhaseFact | None:
    """The `checkpoint_save` phase inferred from the last progress bar above `line` having reached its
    total (an epoch's end); None when the last bar is still running or none is near."""
    bar = _last_bar(numbered, line, EPOCH_WINDOW)
    if bar is None:
        return None
    number, text, done, total = bar
    if total >= 2 and done == total:
        return PhaseFact("checkpoint_save", source, number, text, MARKER)
    return None


def step_of(text: str) -> int | None:
    """The step the last progress display on a line shows (a tqdm bar, Transformers' notebook bar, a
    counter with a rate: `knowledge/savestep.py`)."""
    bars = list(_BAR.finditer(text))
    if bars:
        return int(bars[-1].group(1))
    shown = progress(text)
    return shown[0] if shown is not None else None


#: the step a save line names: HF `checkpoint-500`, DeepSpeed `global_step500`, Megatron `iter_0000500` /
#: `at iteration 500`, Lightning `step=500`
_SAVE_STEP = re.compile(r"(?:checkpoint-|global_step|iter_0*|step=|at iteration\s+)(\d{1,9})\b")
RESUMED = "bar-past-save"


def _bars(numbered: list[tuple[int, str]], start: int, stop: int) -> list[tuple[int, str, int, int]]:
    out = []
    for number, text in numbered:
        if start < number < stop:
            bars = list(_BAR.finditer(text))
            if bars:
                out.append((number, text, int(bars[-1].group(1)), int(bars[-1].group(2))))
    return out


def resumed_after_save(
    source: int, numbered: list[tuple[int, str]], save: PhaseFact, line: int
) -> PhaseFact | None:
    """`train` when the training bar moved past the step of the save that began at `save.line` before
    `line` (HF Trainer prints no line when a save ends, only the next step's bar); None otherwise.

    The bar counts only if it is the training bar: the same total as the last bar before the save, or,
    without one, past the step the save line names (a save's own progress bar counts files or tensors)."""
    if not numbered or save.line < numbered[0][0]:
        return None  # the save line is older than the tail: nothing to compare with
    before = _bars(numbered, numbered[0][0] - 1, save.line)
    named = _SAVE_STEP.search(save.text)
    step = int(named.group(1)) if named else None
    for number, text, done, total in _bars(numbered, save.line, line + 1):
        if before and total == before[-1][3] and done > before[-1][2]:
            return PhaseFact("train", source, number, text, RESUMED)
        if not before and step is not None and step < done < total:
            return PhaseFact("train", source, number, text, RESUMED)
    return None
