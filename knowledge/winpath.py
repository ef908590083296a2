"""A traceback printed on Windows is read with the path separators every cue expects.

Python on Windows prints its frames with the platform's paths: `File "C:\\Users\\me\\miniconda3\\envs\\x\\
Lib\\site-packages\\transformers\\trainer.py", line 1633, in train`, and warnings the same way
(`C:\\...\\torch\\utils\\data\\dataloader.py:665: UserWarning`). The cues read from frames (a frame in
site-/dist-packages or in a library's own package directory makes the failing call: an API drift, not
the user's bug; the user's deepest frame; a save or load in progress) are written with `/`, and the
corpus rewritten with Windows frames lost 7 of 575 categories (every one an env-library-api drift read
as a code error). Only the paths change: a backslash run inside a quoted frame path (`File "…"`,
spaces allowed) or in a drive-letter path (`C:\\…`, up to a blank or a quote) becomes one `/`, so
`C:/Users/me/…/site-packages/transformers/trainer.py` then matches what the POSIX form matches. The
bytes are tested for a drive letter's `:\\` or a frame's backslash before any per-line work, and
only a small source (a copy, `unwrap.MAX_BYTES`) is rewritten, as for the other copy forms.
"""

from __future__ import annotations

import re

from denpex.core.models import LogSource
from knowledge import unwrap

#: a drive-letter path (`C:\…`, `c:\\…` as JSON or a repr doubles it) or a frame path with a backslash
_CUE = re.compile(rb'(?<![A-Za-z])[A-Za-z]:\\|File "[^"\n]*\\')
#: a quoted frame path holding a backslash (Windows paths may hold blanks: `C:\Program Files\…`)
_FRAME = re.compile(r'(File ")([^"\n]*\\[^"\n]*)(")')
#: a drive-letter path outside a frame: to the first blank, quote or bracket
_DRIVE = re.compile(r"(?<![A-Za-z])[A-Za-z]:\\[^\s\"'<>|()\[\]]*")
_SEP = re.compile(r"\\+")


def normalize(source: LogSource) -> LogSource:
    """The source with Windows paths written with `/` (as in-memory data), else the source itself."""
    data = unwrap.small_data(source)
    if data is None or b"\\" not in data or _CUE.search(data) is None:  # no backslash: no regex
        return source
    text = rewrite(data.decode("utf-8", errors="replace"))
    return source.model_copy(update={"data": text.encode("utf-8"), "path": None})


def rewrite(text: str) -> str:
    """`text` with every frame path and drive-letter path's backslashes written as `/`."""
    text = _FRAME.sub(lambda m: m.group(1) + _SEP.sub("/", m.group(2)) + m.group(3), text)
    return _DRIVE.sub(lambda m: _SEP.sub("/", m.group(0)), text)
