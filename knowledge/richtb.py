"""A traceback drawn by rich (`accelerate launch`, Typer apps, anything that installs rich's handler)
is read as the Python traceback it stands for.

`accelerate launch` installs rich's traceback handler when rich is installed, so threads paste:

    ╭──────────── Traceback (most recent call last) ────────────╮
    │ /opt/conda/lib/python3.10/site-packages/transformers/trainer.py:1633 in train │
    │   1630 │   │   inner_training_loop = find_executable_batch_size(           │
    │ ❱ 1633 │   │   return inner_training_loop(                                 │
    │ ╭──── locals ────╮                                                        │
    ╰───────────────────────────────────────────────────────────╯
    OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB ...

No line there reads `File "…", line N, in f`, and each sits inside a box, so the cues taken from frames
(which library made the failing call, a save or load in progress) were lost. Inside such a box each
frame is rewritten as Python writes it, with the failing line (rich's `❱`) under it; context lines,
locals and the box's borders are left out. Whatever a platform put before the box's border (a
timestamp) stays. Only small sources (a copy, `unwrap.MAX_BYTES`) are looked at.
"""

from __future__ import annotations

import re

from denpex.core.models import LogSource
from knowledge import unwrap

_CORNER = "╭".encode()
#: rich's marker of a frame's failing line: a fragment of a box without its corner still has it
_POINTER = "❱".encode()
_TOP = re.compile(r"╭─+ ?Traceback \(most recent call last\) ?─+")
_BOTTOM = re.compile(r"^\s*╰─+")
_FRAME = re.compile(r"^(\S+):(\d+) in ([\w.<>]+)\s*$")
_ARROW = re.compile(r"^❱\s*(\d+)\s(.*)$")
#: the start of a frame's header rich folded: a path alone, or a path and line with the name below
_FOLDED = re.compile(r"^(?:[~/.]|[A-Za-z]:\\)\S*(?::\d+ in)?$")
#: rich's indent guides inside a code line
_GUIDES = re.compile(r"│\s?")


def normalize(source: LogSource) -> LogSource:
    """The source with rich's tracebacks in Python's form (as in-memory data), else itself."""
    data = unwrap.small_data(source)
    if data is None or (_CORNER not in data and _POINTER not in data):  # a byte search first
        return source
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    lines = text.rstrip("\n").split("\n")
    if _TOP.search(text) is None and not _fragment(lines):
        return source
    out = "\n".join(rewrite(lines)) + "\n"
    return source.model_copy(update={"data": out.encode("utf-8"), "path": None})


def _box_line(line: str) -> bool:
    """Is `line` a line of a box's body (`│ … │`, after a platform's prefix)?"""
    at = line.find("│")
    return at >= 0 and line.rstrip().endswith("│") and line.rstrip() != line[: at + 1].rstrip()


def _fragment(lines: list[str]) -> bool:
    """A paste cut out of a rich box (no top border: a thread quotes the frames that matter) still holds
    rich's own frame headers (`│ /path/file.py:280 in train │`) and failing lines (`│ ❱ 280 │ …│`);
    both must be there, inside box lines, so an ordinary table drawn with `│` is not read as one."""
    bodies = [_body(line)[1] for line in lines if _box_line(line)]
    return any(_FRAME.match(b) for b in bodies) and any(_ARROW.match(b) for b in bodies)


def rewrite(lines: list[str]) -> list[str]:
    """Each line of a rich traceback box as Python writes it (or left out); other lines as they are.
    Without a top border (a fragment), each run of box lines is read as the inside of a box."""
    out: list[str] = []
    inside = False
    bare = not any(_TOP.search(line) for line in lines)  # a fragment: box lines only say where it is
    held = ""  # a frame's header rich folded over box lines (a long path, the name on the next line)
    for line in lines:
        top = _TOP.search(line)
        if bare:
            inside = _box_line(line)
        if top is not None:
            out.append(line[: top.start()] + "Traceback (most recent call last):")
            inside, held = True, ""
        elif inside and _BOTTOM.match(line[_start(line) :]):
            inside = False
        elif inside:
            prefix, body = _body(line)
            # rich folds `path:line in name` where it must: after `in`, or before it (`…/graph.py:825` /
            # `in _engine_run_backward`), or inside the path (`…/accelerator.py:22` / `46 in backward`)
            joined = held + (" " if held.endswith(" in") or body.startswith("in ") else "") + body
            if held and body and _FRAME.match(joined):
                body = joined
            held = ""
            kept = _frame_line(prefix, body)
            if kept is not None:
                out.append(kept)
            elif _FOLDED.match(body):
                held = body
        else:
            out.append(line)
    return out


def _start(line: str) -> int:
    """Where the box begins in `line` (after a platform's prefix), or 0."""
    for mark in ("│", "╰"):
        at = line.find(mark)
        if at >= 0:
            return at
    return 0


def _body(line: str) -> tuple[str, str]:
    """A box line's prefix (before its left border) and its content between the borders."""
    at = line.find("│")
    if at < 0:
        return "", ""
    body = line[at + 1 :]
    body = body[: body.rfind("│")] if body.rstrip().endswith("│") else body
    return line[:at], body.strip()


def _frame_line(prefix: str, body: str) -> str | None:
    """A box line's content as Python's frame or failing line (with the prefix), or None."""
    if (m := _FRAME.match(body)) is not None:
        name = m.group(3).rsplit(".", 1)[-1] if not m.group(3).startswith("<") else m.group(3)
        return f'{prefix}  File "{m.group(1)}", line {m.group(2)}, in {name}'
    if (m := _ARROW.match(body)) is not None:
        return f"{prefix}    {_GUIDES.sub('', m.group(2)).strip()}"
    return None
