"""How big the tensor in the stuck collective was ("how big was the tensor in the stuck allreduce",
"numel?", "message size of the reduce_scatter"), asked alone or beside another fact.

Why: the watchdog's own line prints the work item's sizes (`NumelIn=1048576, NumelOut=1048576`), so
the element count is this job's fact, quoted from that line; the bytes depend on the dtype, which the
line does not print, so they are given per dtype, never as one figure.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tf
from knowledge.answer_asks import said, with_lead
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, ref, reply

#: asks for the size of the tensor or message in a collective ("how big was the tensor", "numel")
ASKS_SIZE = re.compile(
    r"\bhow (?:big|large|many elements)\b[^?]{0,40}\b(?:tensor|message|buffer|allreduce|all_reduce"
    r"|collective|reduce_scatter|all_gather|broadcast)"
    r"|\b(?:tensor|message|buffer|payload) (?:size|shape|numel|length)\b|\bnumel\w*\b"
    r"|\bsize of the (?:tensor|message|buffer|allreduce|all_reduce|collective|payload)\b"
    # "which collective were they stuck in, and how big was it?": the collective named, its size asked
    r"|\b(?:collective|allreduce|all_reduce|all_gather|allgather|reduce_scatter|broadcast)\b[^?]{0,60}?"
    r"\bhow (?:big|large) (?:was|is) (?:it|that|that one)\b"
    # "how many elements was it?", "the element count of the stuck all-reduce", "number of elements"
    r"|\bhow many elements\b|\belement ?counts?\b|\bnumber of elements\b|\bcount of elements\b"
)
_WORK = re.compile(r"SeqNum=(\d+), OpType=(\w+), NumelIn=(\d+), NumelOut=(\d+)")
#: bytes per element of the usual training dtypes, for the size the line cannot give in bytes
_BYTES = (("fp32", 4), ("bf16/fp16", 2))


def size_sentence(c: Ctx, text: str) -> tuple[str, EvidenceLine | None]:
    """The stuck work item's sizes from the watchdog's line; ("", None) when not asked or not logged."""
    if not ASKS_SIZE.search(text):
        return "", None
    line = next((ln for ln in pool(c) if _WORK.search(ln.text)), None)
    if line is None:
        return tf.TENSOR_UNLOGGED, None
    found = _WORK.search(line.text)
    assert found is not None
    seq, op, n_in, n_out = found.group(1), found.group(2), int(found.group(3)), int(found.group(4))
    out = "" if n_out == n_in else tf.TENSOR_OUT.format(n=n_out)
    sizes = ", ".join(f"{_mib(n_in * b)} in {name}" for name, b in _BYTES)
    return (
        tf.TENSOR_SIZE.format(op=op, seq=seq, n=f"{n_in:,}", raw=n_in, out=out, sizes=sizes, ref=ref(line)),
        line,
    )


def _mib(n_bytes: int) -> str:
    mib = n_bytes / 2**20
    return f"{mib:,.0f} MiB" if mib >= 1 else f"{n_bytes / 1024:,.0f} KiB"


def with_size(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the collective's tensor size when asked and not already said."""
    sentence, line = size_sentence(c, text)
    if not sentence:
        return got
    found = _WORK.search(line.text) if line is not None else None
    if found is not None and f"{int(found.group(3)):,}" in said(got):
        return got
    shown = [line] if line is not None else []
    if got.intent == "help":
        return reply("when", sentence, shown)
    if got.intent == "explain":  # "how big was the tensor in the stuck allreduce": the figure, then the term
        lines = [*shown, *(ln for ln in got.lines if ln not in shown)]
        return replace(got, lead=f"{sentence} {got.lead}", lines=lines, material=[sentence, *got.material])
    return with_lead(got, sentence, shown)
