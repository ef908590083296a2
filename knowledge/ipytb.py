"""A traceback printed by Jupyter (IPython) is read as the Python traceback it stands for.

Training run from a notebook (Colab, Kaggle, a JupyterHub on the cluster) fails with IPython's own
traceback form, and threads paste it as it is:

    OutOfMemoryError                          Traceback (most recent call last)
    Cell In[9], line 22
    ---> 22 trainer.train()
    File ~/envs/x/lib/python3.10/site-packages/transformers/trainer.py:1633, in Trainer.train(self, ...)
    -> 1633 return inner_training_loop(

(IPython 8; IPython 7 writes `<ipython-input-5-2f2b…> in <module>` and `/usr/…/trainer.py in
train(self, …)`, the line number on the arrow below). No frame there reads `File "…", line N, in f`,
so the cues taken from frames (who made the failing call, a save or load in progress) were lost. Such
a source is rewritten frame by frame into Python's form: the header, `File "path", line N, in f` and the
failing line under it; the numbered context lines around the arrow are left out. Only a small source (a
copy, `unwrap.MAX_BYTES`) with IPython's header, a cell frame or an IPython 8 frame is rewritten
(a paste often starts below the header).
"""

from __future__ import annotations

import re

from denpex.core.models import LogSource
from knowledge import unwrap

_HEADER = re.compile(r"^[A-Za-z_][\w.]*\s{2,}Traceback \(most recent call last\)\s*$")
_CELL = re.compile(r"^Cell In\s?\[(\d*)\], line (\d+)")
_FRAME8 = re.compile(r"^File (\S+?):(\d+), in ([\w.<>]+)(?:\(.*)?\s*$")
_FRAME7 = re.compile(r"^(<ipython-input-[^>\s]+>|\S+\.py) in ([\w.<>]+)(?:\(.*)?\s*$")
_ARROW = re.compile(r"^\s*-*> ?(\d+) (.*)$")
#: the header, a cell frame or an IPython 8 frame anywhere in the bytes (one scan, no decoding: most
#: sources have none, and a job has a thousand of them)
_CUE = re.compile(
    rb"^[A-Za-z_][\w.]*[ \t]{2,}Traceback \(most recent call last\)[ \t\r]*$"
    rb"|^Cell In ?\[[0-9]*\], line [0-9]+|^File \S+?:[0-9]+, in [\w.<>]+(?:\(.*)?[ \t\r]*$",
    re.MULTILINE,
)
_RULE = re.compile(r"^-{20,}\s*$")
_CONTEXT = re.compile(r"^\s+\d+(?: |$)|^\s+\(\.\.\.\)\s*$|^-{20,}\s*$")


def normalize(source: LogSource) -> LogSource:
    """The source with IPython's tracebacks in Python's form (as in-memory data), else itself."""
    data = unwrap.small_data(source)
    if data is None or _CUE.search(data) is None:
        return source
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    lines = text.rstrip("\n").split("\n")
    out = "\n".join(rewrite(lines)) + "\n"
    return source.model_copy(update={"data": out.encode("utf-8"), "path": None})


def rewrite(lines: list[str]) -> list[str]:
    """Each IPython traceback line as Python writes it; every other line as it is."""
    out: list[str] = []
    frame: int | None = None  # where the open frame's line stands in `out`, to fill its line number
    inside = False  # between a header and its exception line, where IPython leaves blank lines
    for line in lines:
        if _HEADER.match(line):
            if out and _RULE.match(out[-1]):  # IPython's rule above the header is not the job's
                out.pop()
            # the header names the exception: a paste cut before the exception line keeps it
            out.extend((line, "Traceback (most recent call last):"))
            frame, inside = None, True
        elif (m := _CELL.match(line)) is not None:
            out.append(f'  File "<ipython-input-{m.group(1)}>", line {m.group(2)}, in <module>')
            frame, inside = len(out) - 1, True
        elif (m := _FRAME8.match(line)) is not None:
            out.append(f'  File "{m.group(1)}", line {m.group(2)}, in {_name(m.group(3))}')
            frame = len(out) - 1
        elif (m := _FRAME7.match(line)) is not None:
            out.append(f'  File "{m.group(1)}", line 0, in {_name(m.group(2))}')
            frame = len(out) - 1
        elif frame is not None and (m := _ARROW.match(line)) is not None:
            if not out[-1].startswith("    "):  # the frame's first arrow is the failing line
                out[frame] = re.sub(r", line 0, in ", f", line {m.group(1)}, in ", out[frame])
                out.append(f"    {m.group(2).strip()}")
        elif (frame is not None and _CONTEXT.match(line)) or (inside and not line.strip()):
            continue
        else:
            out.append(line)
            frame, inside = None, False
    return out


def _name(qualified: str) -> str:
    """`Trainer.train` as Python names the frame's function: `train`."""
    return qualified.rsplit(".", 1)[-1] if not qualified.startswith("<") else qualified
