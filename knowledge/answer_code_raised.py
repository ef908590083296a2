"""Which code raised, asked outright ("which rendezvous path raised, static or c10d? file:line and the
exception class", "where's the check that raised and what did it say").

The answer is the traceback's innermost frame (file, line, function and its statement) and the
exception line under it, from the job's own lines; offered two code paths ("static or c10d"), it says
which one the frame's file is. Why: a failure before any worker started (a launcher's rendezvous) has
no rank and no frame of the user's code, so the code answer had nothing to name, and "c10d" was taken
for a word to define; a rank's own guard (`raise ValueError("Loss is nan")`) was taken for a command
to run.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_blame as tb
from denpex.core.texts import followups_verdicts as tv
from knowledge import answer_code
from knowledge.answer_code import Frame
from knowledge.answer_types import Ctx, Reply, rank_lines, reply
from knowledge.intents import Match

#: a raise named ("raised", "threw", "blew up", the exception) ...
_RAISE = re.compile(
    r"\b(?:rais\w*|threw|throw\w*|blew up|exception)\b"
    # "which rendezvous file / class tried to open the socket": the call that failed, named by its act
    r"|\btried to (?:open|bind|listen|create)\b|\bopen(?:ed)? the (?:server )?(?:socket|port)\b"
)
#: ... and what raised it asked for: a code path, a file:line, the exception's class, the check
_WHAT = re.compile(
    r"\bcode ?path\b|\bwhich (?:\w+ )?path\b|\bfile ?[:/+&] ?line\b"
    r"|\bwhich (?:\w+ ){0,2}?(?:file|module|function)\b"  # "which rendezvous file / class"
    r"|\bexception (?:class|type|name)\b|\bwhat exception\b|\b(?:check|guard|assert\w*) (?:that|which)\b"
    r"|\b(?:which|what) (?:\w+ ){0,2}?(?:class|object|component)\b"  # "which torch class raised it"
    r"|\bstatic\b[^?]{0,20}\b(?:or|vs\.?|versus)\b[^?]{0,12}\bc10d\b"
    r"|\bc10d\b[^?]{0,20}\b(?:or|vs\.?|versus)\b[^?]{0,12}\bstatic\b"
)


#: other facts asked beside it (the rank, its pid, its exit code): the code answer, which says them
_OTHER_FACTS = re.compile(r"\bwhich rank\b|\bpids?\b|\bexit ?codes?\b")
#: an exception line: `torch.distributed.DistNetworkError: …`, `ValueError: Loss is nan, …`
_EXC = re.compile(r"^((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit|Warning))\b:?\s*(.*)")
#: code paths a reader may offer, each as the words its file's name holds
_PATHS: dict[str, tuple[str, ...]] = {
    "static": ("static_tcp_rendezvous",),
    "c10d": ("c10d_rendezvous_backend", "dynamic_rendezvous"),
    "etcd": ("etcd_rendezvous",),
}


def raised(c: Ctx, m: Match) -> Reply | None:
    """The innermost frame and the exception under it, with which offered path it is."""
    text = m.text
    if not (_RAISE.search(text) and _WHAT.search(text)) or _OTHER_FACTS.search(text):
        return None
    found = _traceback(c)
    if found is None:
        return None
    frames, lines = found
    deepest = frames[-1]
    code = _statement(lines, deepest)
    exc = _exception(lines, deepest)
    if exc is None:
        return None
    ini = c.view.initiating
    mine = answer_code.user_frame(c, ini.rank) if ini is not None else None
    which = _which(text, deepest.path)
    name = deepest.path.rsplit("/", 1)[-1]
    if mine is None or ini is None:
        lead = which + tv.RAISED.format(file=name, line=deepest.number, func=deepest.func, code=_code(code))
    else:  # the user's own line first, and the library frame under it, when one was kept
        frame, stmt, inner = mine
        lead = which + tf.user_frame(ini.rank, frame.path, frame.number, frame.func, stmt, inner)
        if (frame.line.source, frame.line.line) != (deepest.line.source, deepest.line.line):
            lead += " " + tv.RAISED_INNER.format(file=name, line=deepest.number, func=deepest.func)
    lead += " " + tv.RAISED_EXC.format(exc=exc[1], message=exc[2])
    top = [mine[0].line] if mine is not None else []
    shown = [*top, deepest.line, *(ln for ln in lines if ln.line == deepest.line.line + 1 and code), exc[0]]
    return reply("code", lead, shown)


#: the framework taken to have crashed ("did pytorch crash?", "is this a torch bug?")
_LIB_CRASH = re.compile(
    r"\b(?:did|is|was|has) (?:pytorch|torch|cuda|nccl|python|deepspeed|the (?:framework|library))\b.{0,15}"
    r"\b(?:crash\w*|break|broke|brok\w*|fail\w*|die|died|bug\w*|blow up|blew up)\b"
    r"|\b(?:pytorch|torch|framework|library) (?:crash\w*|bug)\b"
)
_LIBS = ("pytorch", "torch", "cuda", "nccl", "deepspeed", "python")
_LIB = r"(?:pytorch|torch|cuda|nccl|deepspeed|the (?:framework|library)|a library)"
_MY_CODE = r"(?:my|our|the|user|your) (?:own )?(?:code|script|training code|train\.py)"
#: whose code it was, offered as a choice ("torch or my own code?", "my script or pytorch")
_CHOICE = re.compile(
    rf"\b{_LIB}\b[^?]{{0,15}}\bor\b (?:in |from )?{_MY_CODE}\b"
    rf"|\b{_MY_CODE}\b[^?]{{0,6}}\bor\b (?:in |from )?{_LIB}\b"
)
#: a bug or the machines, offered as a choice ("bug or infra?", "code or hardware")
_INFRA = re.compile(
    r"\b(?:bug|code|software)\b[^?]{0,10}\bor\b (?:the |an? )?"
    r"(?:infra\w*|hardware|cluster|machine|platform)\b"
    r"|\b(?:infra\w*|hardware|cluster) (?:or|vs) (?:a |my |our )?(?:bug|code)\b"
)


def own_raise(c: Ctx, m: Match) -> Reply | None:
    """ "Did pytorch crash? what is this": no, when the failing rank's innermost frame is its own code
    raising the exception (a guard such as `raise ValueError("Loss is nan")`); the line and what it
    raised. Why: a `ValueError` in the console reads as the framework failing, and the loss answer
    gave the losses without saying whose check stopped the run."""
    ini = c.view.initiating
    asked = _LIB_CRASH.search(m.text) or _CHOICE.search(m.text) or _INFRA.search(m.text)
    if ini is None or not asked or (found := _traceback(c)) is None:
        return None
    frames, lines = found
    deepest = frames[-1]
    code, exc = _statement(lines, deepest), _exception(lines, deepest)
    mine = answer_code.user_frame(c, ini.rank)
    own = mine is not None and (mine[0].line.source, mine[0].line.line) == (
        deepest.line.source,
        deepest.line.line,
    )
    if not own or exc is None or not code.startswith("raise "):
        return None
    lib = next((x for x in _LIBS if re.search(rf"\b{x}\b", m.text)), "the framework")
    lib = {"pytorch": "PyTorch", "torch": "PyTorch", "cuda": "CUDA", "nccl": "NCCL"}.get(lib, lib)
    said = tv.OWN_RAISE  # "did pytorch crash?": no; "torch or my code?", "bug or infra?": the choice
    if not _LIB_CRASH.search(m.text):
        said = tb.OWN_CHOICE if _CHOICE.search(m.text) else tb.OWN_INFRA
    lead = said.format(
        lib=lib,
        rank=ini.rank,
        file=deepest.path.rsplit("/", 1)[-1],
        line=deepest.number,
        func=deepest.func,
        code=code,
        exc=exc[1],
        message=exc[2],
    )
    return reply("code", lead, [deepest.line, exc[0]])


def _traceback(c: Ctx) -> tuple[list[Frame], list[EvidenceLine]] | None:
    """The initiating rank's traceback; with no rank (a launcher's own failure), the launcher's."""
    ini = c.view.initiating
    if ini is not None:
        _, frames, lines = answer_code.traceback(c, ini.rank)
        if frames:
            return frames, lines
    for tail in c.d.tails:
        if tail.rank is None and (frames := answer_code._frames(tail.lines)):
            return frames, tail.lines
    if ini is None:
        return None
    pooled = [ln for src in rank_lines(c, ini.rank).values() for ln in src]
    return (frames, pooled) if (frames := answer_code._frames(pooled)) else None


def _code(code: str) -> str:
    return f": `{code}`" if code else ""


def _statement(lines: list[EvidenceLine], frame: Frame) -> str:
    after = [ln for ln in lines if ln.source == frame.line.source and ln.line == frame.line.line + 1]
    if not after or answer_code._FRAME.search(after[0].text):
        return ""
    return answer_code._clean(after[0].text).split("  #")[0].strip()


def _exception(lines: list[EvidenceLine], frame: Frame) -> tuple[EvidenceLine, str, str] | None:
    """The exception line below the frame: the line, its class and its message."""
    for ln in lines:
        if ln.source != frame.line.source or ln.line <= frame.line.line:
            continue
        m = _EXC.match(answer_code._clean(ln.text))
        if m:
            return ln, m.group(1), m.group(2).strip()
    return None


def _which(text: str, path: str) -> str:
    """Which of the code paths the reader offered the frame's file is, in words ("" when none)."""
    low = text.lower()
    offered = [k for k in _PATHS if re.search(rf"\b{k}\b", low)]
    for key in offered:
        if any(word in path for word in _PATHS[key]):
            others = [k for k in offered if k != key]
            return tv.RAISED_PATH.format(path=key, others=" or ".join(others)) if others else ""
    return ""


__all__ = ["raised"]
