"""What the thread quotes from the initiating rank's own lines: the deepest frame of the job's own
code in its traceback, and the trigger (the last progress or context line before the error).

A traceback through `site-packages` ends in a library frame (`autograd/graph.py`, DeepSpeed's
`engine.py`) that says nothing the job's owner can change; the frame of *their* code that led there
does. The trigger line (`step 2001: batch of 4 x 16384 tokens`) is often the whole explanation of an
OOM. Both come from the diagnosis' evidence and the initiating rank's tail, already masked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.slack.mrkdwn import inline_code, shorten
from denpex.core.models import Diagnosis, EvidenceLine

_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)')
#: paths of libraries, not of the job's own code
_LIBRARY = re.compile(
    r"site-packages/|dist-packages/|/lib/python\d|^<|/(?:torch|deepspeed|transformers|accelerate|megatron/core"
    r"|apex|lightning|pytorch_lightning|triton|flash_attn)/"
)
LOG_PREFIX = re.compile(r"^(?:\s*\[[^\]]{1,80}\]:?)+\s*")  # `[2026-… 03:14:01,870] [WARNING] [rank5]`
_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\)")
_PROGRESS = re.compile(r"\b(?:step|iter(?:ation)?|epoch|batch|shape|tokens|seq(?:uence)?[_ ]len)\b", re.I)
_DETAIL = re.compile(r"\b(?:batch|shape|tokens|seq(?:uence)?[_ ]len|size)\b", re.I)


def initiating_lines(d: Diagnosis) -> list[EvidenceLine]:
    """The initiating rank's retained lines (evidence and tail), in log order, once each."""
    seen: dict[tuple[str, int], EvidenceLine] = {(e.source, e.line): e for e in d.initiating.evidence}
    sources = {e.source for e in d.initiating.evidence}
    for tail in d.tails:
        if (d.initiating.rank is not None and tail.rank == d.initiating.rank) or tail.source in sources:
            for ln in tail.lines:
                seen.setdefault((ln.source, ln.line), ln)
    return sorted(seen.values(), key=lambda e: (e.source, e.line))


def user_frame(lines: Sequence[EvidenceLine]) -> tuple[EvidenceLine, EvidenceLine | None] | None:
    """The deepest frame of the job's own code in the traceback (not a library's), with its code line."""
    best: tuple[EvidenceLine, EvidenceLine | None] | None = None
    for i, ln in enumerate(lines):
        m = _FRAME.match(ln.text)
        if m is None or _LIBRARY.search(m.group(1)):
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        code = nxt if nxt is not None and nxt.line == ln.line + 1 and not _FRAME.match(nxt.text) else None
        best = (ln, code)
    return best


def frame_row(frame: tuple[EvidenceLine, EvidenceLine | None]) -> str:
    ln, code = frame
    m = _FRAME.match(ln.text)
    assert m is not None
    where = f"{inline_code(m.group(1) + ':' + m.group(2))} in {inline_code(m.group(3))}"
    said = f": {inline_code(shorten(code.text.strip(), 160))}" if code is not None else ""
    return f"*In your code:* {where}{said}"


def trigger_line(lines: Sequence[EvidenceLine]) -> EvidenceLine | None:
    """The last progress or context line before the traceback (the step, the batch shape)."""
    start = next((i for i, ln in enumerate(lines) if _TRACEBACK.match(ln.text)), None)
    if start is None:
        return None
    before = [ln for ln in lines[max(0, start - 6) : start] if ln.line >= lines[start].line - 6]
    detail = [ln for ln in before if _DETAIL.search(ln.text)]
    progress = [ln for ln in before if _PROGRESS.search(ln.text)]
    found = detail or progress
    return found[-1] if found else None
