"""The entry's mechanism said for this job: the line of the job's code that builds the copy, and how
many copies a node held at once.

"Why would host RAM blow up on a save, FSDP shards everything?", "16777216 bytes is tiny?", "how much
RAM would the node need?", "does 8 ranks a node make it worse?": the entry knows the mechanism (every
rank builds a full CPU copy), the job knows the rest (the code line in its traceback, 8 ranks on
gpu-01, 239.60 GiB resident in the killed one). Said together, the answer is about this job.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_job as tj
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, first_sentence, gib, ref

#: an entry whose cause is a copy held by every rank (or process) at once
_PER_RANK = re.compile(
    r"\bevery rank\b|\beach rank\b|\bper (?:process|rank)\b|\bevery (?:process|worker)\b", re.IGNORECASE
)
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
_LIBRARY = re.compile(r"/(?:site-packages|dist-packages)/|/lib/python\d[\d.]*/")
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def per_rank(c: Ctx) -> bool:
    """Does the entry say every rank (process) holds its own copy?"""
    return c.entry is not None and _PER_RANK.search(c.entry.root_cause) is not None


def ranks_per_node(c: Ctx) -> tuple[int, str] | None:
    """How many ranks shared the failing rank's node, and its name (one node: the whole world)."""
    v, ini = c.view, c.view.initiating
    node = (ini.node if ini is not None else None) or (v.nodes[0] if len(v.nodes) == 1 else None)
    if node is None:
        return None
    here = [r for r in v.ranks.values() if r.node == node]
    if len(v.nodes) == 1 and v.world_size:
        return v.world_size, node
    if v.world_size and v.nodes and v.world_size % len(v.nodes) == 0:
        return v.world_size // len(v.nodes), node
    return (len(here), node) if len(here) > 1 else None


def cause_line(c: Ctx) -> EvidenceLine | None:
    """The line of the user's code the verdict kept (the source line under a user frame): the call
    that builds the copy (`get_state_dict(…, full_state_dict=True)`)."""
    found = _cause(c)
    return found[0] if found is not None else None


def _cause(c: Ctx) -> tuple[EvidenceLine, str] | None:
    """The user's code line under its frame, with the frame's `train.py line 174`."""
    lines = {(ln.source, ln.line): ln for ln in pool(c)}
    for ln in c.view.evidence:
        above = lines.get((ln.source, ln.line - 1))
        if above is None or _FRAME.search(ln.text):
            continue
        frame = _FRAME.search(above.text)
        if frame is not None and _LIBRARY.search(frame.group(1)) is None:
            return ln, f"{frame.group(1).rsplit('/', 1)[-1]} line {frame.group(2)}"
    return None


def cause_sentence(c: Ctx) -> str:
    """ "In this job the copy is built here: `…` (train.py line 174, console.log:25)." ("" if unknown).
    Why the file and line of the code: that is where the reader edits, the log line only shows it."""
    found = _cause(c)
    if found is None:
        return ""
    line, at = found
    return tj.CAUSE_LINE.format(code=code_of(line), ref=f"{at}, {ref(line)}")


def code_of(ln: EvidenceLine) -> str:
    return _PREFIX.sub("", ln.text).strip()


def copies(c: Ctx) -> str:
    """ "8 ranks on gpu-01 each built a full copy: 8 copies at once, about 8 × 239.60 GiB" ("" when
    the entry's cause is not a per-rank copy, or the job's shape is unknown)."""
    shape = ranks_per_node(c)
    if not per_rank(c) or shape is None or shape[0] < 2:
        return ""
    n, node = shape
    kill = c.view.numbers.kill
    rss = kill[0].anon_rss_gib if kill is not None else None
    total = ""
    if rss is not None:
        whole = n * rss
        tib = f" ≈ {whole / 1024:.2f} TiB" if whole >= 1024 else ""
        pid = f" (pid {kill[0].pid})" if kill is not None else ""
        total = tj.COPIES_TOTAL.format(n=n, rss=gib(rss), total=gib(whole), tib=tib, pid=pid)
    return tj.COPIES.format(n=n, node=node, total=total)


def in_code(c: Ctx) -> str:
    """This job's code line that builds the copy, and how many copies its node held ("" when unknown)."""
    if not per_rank(c):
        return ""
    return " ".join(x for x in (cause_sentence(c), copies(c)) if x)


def mechanism(c: Ctx) -> str:
    """The entry's cause in one sentence, then this job's code line that does it and the copies."""
    if c.entry is None:
        return ""
    first = first_sentence(c.entry.root_cause) + "."
    return " ".join(x for x in (first, cause_sentence(c), copies(c)) if x)


__all__ = [
    "cause_line",
    "cause_sentence",
    "code_of",
    "copies",
    "in_code",
    "mechanism",
    "per_rank",
    "ranks_per_node",
]


#: asks which library or native module crashed ("do we know which library crashed", "what .so segfaulted")
LIBRARY_Q = re.compile(
    r"\b(?:which|what) (?:\w+ )?(?:library|lib|\.so|shared object|extension|native module|c\+\+ code)\b"
    r"|\b(?:library|lib|\.so|extension) (?:crashed|segfaulted|faulted|died)\b"
)
#: asks for the native (C/C++) stack itself ("show me the native backtrace for rank 3", "gdb bt?")
BACKTRACE_Q = re.compile(
    r"\b(?:native|c\+\+|c|cuda|gdb|core|low[- ]level) (?:back ?trace|stack(?: ?trace)?|frames?|bt)\b"
    r"|\bback ?trace\b[^?]{0,30}\b(?:native|c\+\+|gdb|core ?dump)\b"
)
#: a native frame of a backtrace (gdb's `#3 0x… in f () from libx.so`, glibc's `libx.so(+0x…)`,
#: faulthandler's `Fatal Python error: Segmentation fault`) or the kernel's `segfault at … in libx.so`
_NATIVE = re.compile(
    r"^\s*#\d+\s+0x[0-9a-f]+|\b[\w.+-]+\.so(?:\.\d+)*\(|\bsegfault at\b.*\bin [\w.+-]+\.so"
    r"|Fatal Python error",
    re.IGNORECASE,
)


def crashed_library(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """Which native library crashed, from a native frame the logs kept; with none, that the logs don't
    say and how to get the backtrace that would. Only for a native crash (SIGSEGV and kin)."""
    ini = c.view.initiating
    trace = BACKTRACE_Q.search(text) is not None
    if not (trace or LIBRARY_Q.search(text)) or c.view.category != "segfault" or ini is None:
        return "", []
    native = [ln for ln in pool(c) if _NATIVE.search(ln.text)]
    if native:
        return tj.LIBRARY_SEEN.format(
            rank=ini.rank, ref=ref(native[0]), text=native[0].text.strip()[:200]
        ), native[:2]
    return (tj.BACKTRACE_NONE if trace else tj.LIBRARY_UNKNOWN).format(rank=ini.rank), []
