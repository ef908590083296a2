"""A progress bar's output in a log file is split into the lines a terminal showed.

tqdm (Transformers' Trainer, Accelerate, Lightning, DeepSpeed's data loading) redraws its bar with a
carriage return and never ends it with a newline while it runs. In a log file (`python train.py >
train.log 2>&1`, a pod's log) every redraw stays on one physical line, and whatever is printed next is
glued to the bar: `  5%|▌   | 50/1000 [00:10<03:10,  5.0it/s]Traceback (most recent call last):`, or
follows a bare `\\r`. The error's own line then starts mid-line, where no line-anchored signature looks
(the corpus rewritten with a bar before every third line changed 42 diagnoses glued, 15 after a `\\r`).
In a small source (a copy or a rank's log up to `unwrap.MAX_BYTES`) each bare `\\r` becomes a line end
and a bar's closing `]` followed by text is cut after it.
"""

from __future__ import annotations

import re

from denpex.core.models import LogSource
from knowledge import unwrap

#: a carriage return that does not end a Windows line
_BARE_CR = re.compile(r"\r(?!\n)")
#: tqdm's bar, then text glued to it: `50%|█████     | 500/1000 [01:02<01:02,  8.01it/s, loss=1.2]X`,
#: and the unsized form `500it [01:02,  8.01it/s]X`
_GLUED = re.compile(
    r"((?:[0-9]{1,3}%\|[^|\n]{0,120}\|[ 0-9./kMGB]{1,40}|[0-9.]+(?:it|B|kB|MB|GB)? )"
    r"\[[0-9:?]{1,12}(?:<[0-9:?]{1,12})?, +[^\]\n]{1,160}\])(?=\S)"
)
#: what tells these in the bytes, before anything is decoded (most sources have neither): a bare
#: carriage return, or a rate that closes a bar with text after it
_BARE_CR_BYTES = re.compile(rb"\r(?!\n)")
_GLUED_BYTES = re.compile(rb"/(?:s|it)(?:, [^\]\n]{0,160})?\]\S")


def split(source: LogSource) -> LogSource:
    """The source with its progress bars' redraws and glued lines split (as in-memory data), else
    the source itself."""
    data = unwrap.small_data(source)
    if data is None or not _has_cue(data):
        return source
    text = data.decode("utf-8", errors="replace")
    out = _GLUED.sub(r"\1\n", _BARE_CR.sub("\n", text))
    if out == text:
        return source
    return source.model_copy(update={"data": out.encode("utf-8"), "path": None})


def _has_cue(data: bytes) -> bool:
    """A byte search first (a thousand rank logs a job), a regex only where the bytes are there."""
    if b"\r" in data and _BARE_CR_BYTES.search(data) is not None:
        return True
    return (b"it/s" in data or b"s/it" in data) and _GLUED_BYTES.search(data) is not None
