"""The library frames below the user's call, when the message asks where in torch a rank was ("where in
the torch stack was rank 1, gather or the file write?", "inside the all-gather for the DTensor
redistribute?", "was it literally inside a collective?", "innermost torch frames").

Why: the answers walk the copy of the traceback with the user's frame (the combined log), and that copy
often keeps only the first library frame under it (`state_dict.py` line 1356, in `get_state_dict`); the
rank's own stderr keeps the innermost ones (`placement_types.py` line 609, in `_to_replicate_tensor` →
`_functional_collectives.py` line 209, in `all_gather_single`). Those frames decide the question: a
collective's frame (an all-gather) is where the allocation was made, and no `torch.save` or writer frame
means it failed before any file was written.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_frames as tff
from denpex.core.texts import followups_savecopy as ts
from knowledge import answer_asks, answer_code
from knowledge.answer_code import Frame
from knowledge.answer_types import Ctx, Reply, rank_lines, ref
from knowledge.intents import named_ranks

#: asks where in the library (torch) a rank was, or whether it was in a collective, a gather or a write
_ASKS = re.compile(
    r"\b(?:torch|pytorch|library|lib|framework|c10d|dtensor)\b[^?]{0,30}?\b(?:stack|frames?|traceback|trace)\b"
    r"|\b(?:stack|frames?|traceback)\b[^?]{0,20}?\b(?:torch|pytorch|library)\b"
    r"|\binnermost\b|\bdeepest (?:torch |library |pytorch )?frames?\b"
    r"|\b(?:inside|in|within|during) (?:a|an|the) (?:\w+ )?(?:collective|all[- _]?gather\w*|gather)\b"
    r"|\b(?:which|what) collective\b|\bstacks?\b[^?]{0,40}?\b(?:diverge|differ|split|part)\w*"
    r"|\ball[-_ ]?gather\w*|\bredistribute\b|\b_to_replicate_tensor\b"
    r"|\bgather\b[^?]{0,40}?\bwrit\w*|\bwrit\w*\b[^?]{0,60}?\bor (?:just )?before\b"
    r"|\b(?:which|what) (?:\w+ )?(?:call|function|func|frame|method)\b[^?]{0,40}?"
    r"\b(?:deepspeed|transformers|torch|pytorch|library|allocat\w*|oom)\b"
    r"|\b(?:deepspeed|transformers) (?:call|function|func|frame|method|stack|traceback)s?\b"
    # "where in DeepSpeed did it OOM: which function, what operation on the params?"
    r"|\bwhere in (?:the )?(?:deepspeed|transformers|accelerate|torch|pytorch|fsdp|library)\b"
    r"|\bwhat (?:op|operation)\b[^?]{0,30}\b(?:param\w*|tensors?|weights?)\b"
)
#: the message asks whether the file was being written
_WRITE_Q = re.compile(r"\bwrit\w*|\btorch\.save\b|\bto disk\b|\bthe save itself\b")
#: the message asks whether it was in a collective (then "So yes, it was inside a collective")
_COLLECTIVE_Q = re.compile(r"\bcollective\b|\ball[-_ ]?gather\w*|\bredistribute\b", re.IGNORECASE)
#: a frame that writes a file (torch.save, a DCP writer, a plain write)
_WRITE_FRAME = re.compile(r"\bsave\b|write|serializ|filesystem|_save", re.IGNORECASE)
#: the collective a frame (its function or its code line) is in
_OP = re.compile(
    r"\b(all_gather\w*|reduce_scatter\w*|all_reduce|broadcast\w*|all_to_all\w*|barrier|_gather_state_dict)\b"
)
#: a failing line that is a failed allocation (host or GPU)
_ALLOC = re.compile(r"allocate|out of memory|OutOfMemoryError", re.IGNORECASE)
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def _ranks(c: Ctx, text: str) -> list[int]:
    """The ranks the message names (the first three), else the one that started it."""
    named = [r for r in named_ranks(text) if r in c.view.ranks]
    if named:
        return named[:3]
    return [c.view.initiating.rank] if c.view.initiating is not None else []


def _code(lines: list[EvidenceLine], f: Frame) -> str:
    after = [ln for ln in lines if ln.source == f.line.source and ln.line == f.line.line + 1]
    text = _PREFIX.sub("", after[0].text).split("  #")[0].strip() if after else ""
    return "" if not text or text.startswith(("File ", "^")) else text[:100]


def lib_frames(c: Ctx, rank: int) -> tuple[list[Frame], list[EvidenceLine]]:
    """The rank's saved copy of its traceback with the most library frames: those frames and its lines."""
    best: tuple[list[Frame], list[EvidenceLine]] = ([], [])
    for lines in rank_lines(c, rank).values():
        frames = [f for f in answer_code._frames(lines) if not f.user]
        if len(frames) > len(best[0]):
            best = (frames, lines)
    return best


def _kept(frames: list[Frame]) -> list[Frame]:
    """torch.distributed's frames and the innermost one, in stack order."""
    keep = [f for f in frames if "/distributed/" in f.path][-3:]
    return [*keep, frames[-1]] if frames[-1] not in keep else keep


def _walk(frames: list[Frame], lines: list[EvidenceLine]) -> str:
    said = [tff.frame(f.path.rsplit("/", 1)[-1], f.number, f.func, _code(lines, f)) for f in _kept(frames)]
    return tff.chain(said)


def _op(frames: list[Frame], lines: list[EvidenceLine]) -> str:
    for f in reversed(frames):
        for text in (_code(lines, f), f.func):
            if (found := _OP.search(text)) is not None:
                return found.group(1)
    return ""


def said(c: Ctx, text: str, lead: str) -> tuple[str, list[EvidenceLine]]:
    """The library frames, the collective and (asked) the write, for each rank asked ("" when nothing
    new): two ranks' frames side by side show where their stacks part."""
    out: list[str] = []
    shown: list[EvidenceLine] = []
    for rank in _ranks(c, text):
        sentence, lines = _one(c, text, rank, lead)
        out += [sentence] if sentence else []
        shown += lines
    return " ".join(out), shown


def _one(c: Ctx, text: str, rank: int, lead: str) -> tuple[str, list[EvidenceLine]]:
    frames, lines = lib_frames(c, rank)
    if len(frames) < 2 or all(f"line {f.number}, in `{f.func}`" in lead for f in _kept(frames)):
        return "", []
    r = c.view.ranks[rank]
    err = ref(r.first_line) if r.first_line is not None else frames[-1].line.ref
    top = answer_code.user_frame(c, rank)
    call = (
        ts.BELOW_CALL.format(func=top[0].func, file=top[0].path.rsplit("/", 1)[-1], line=top[0].number)
        if top
        else ""
    )
    span = f"{frames[0].line.ref}-{frames[-1].line.line}"
    text_ = (ts.LIB_FRAMES if call else ts.LIB_FRAMES_NO_CALL).format(
        call=call, rank=rank, ref=span, walk=_walk(frames, lines), err=err
    )
    out = [text_]
    if op := _op(frames, lines):
        so = ts.SO_YES if _COLLECTIVE_Q.search(text) else ts.SO
        alloc = r.first_line is not None and _ALLOC.search(r.first_line.text) is not None
        inside = ts.INSIDE_ALLOC if alloc else ts.INSIDE_ERROR
        text_op = ts.COLLECTIVE if op.startswith("all_gather") else ts.COLLECTIVE_OTHER
        out.append(text_op.format(so=so, rank=rank, op=op, inside=inside))
    every = [f for ls in rank_lines(c, rank).values() for f in answer_code._frames(ls)]
    if _WRITE_Q.search(text) and op and not any(_WRITE_FRAME.search(f"{f.func} {f.path}") for f in every):
        out.append(ts.GATHER_NOT_WRITE.format(rank=rank))
    return " ".join(out), [frames[0].line, frames[-1].line]


def with_lib_frames(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the rank's library frames below its call, when the message asks where in torch it was."""
    if not _ASKS.search(text):
        return got
    sentence, shown = said(c, text, got.lead)
    if not sentence:
        return got
    return answer_asks.with_lead(got, sentence, shown)


__all__ = ["lib_frames", "said", "with_lib_frames"]
