"""The checkpoint file the save was writing, when the message asks for it among other asks: "what ckpt
file was it writing, need to go rm the partial. and rank3 - crashed on its own or got killed?".

Why: a message whose other ask is answered for the whole message (the rank-3 verdict) got that answer
alone; the file it asked for, in the job's own save line, was left out. The step adds the file's full
path with its save line when the message asks which checkpoint file was being written and the answer
does not name it; nothing is added when the job kept no save line.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_schedend as ts
from knowledge import answer_asks, answer_quote
from knowledge.answer_types import Ctx, Reply, ref, when
from knowledge.lines import parse_timestamp

#: asks which checkpoint file was being written ("what ckpt file was it writing", "rm the partial")
_ASKS = re.compile(
    r"\b(?:what|which) (?:checkpoint|ckpt|save) ?(?:file|path|name)?\b[^?.!]{0,30}\b(?:writ\w*|sav\w*)\b"
    r"|\b(?:rm|remove|delete|clean ?up|wipe) (?:the )?(?:partial|half[- ]written|broken|incomplete)\b"
    r"|\bpartial (?:checkpoint|ckpt|file|save)\b",
    re.IGNORECASE,
)


def with_file(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the file the last save line named, when asked and not yet said."""
    if not _ASKS.search(text) or (found := answer_quote.saving_line(c)) is None:
        return got
    name, ln = found
    if name.lower() in answer_asks.said(got):
        return got
    full = re.search(r"(/\S*" + re.escape(name) + r")", ln.text)
    stamp = parse_timestamp(ln.text)
    time = f", {when(stamp.iso())}" if stamp is not None and not stamp.relative else ""
    said = ts.CKPT_FILE.format(path=full.group(1) if full else name, ref=ref(ln), time=time)
    return answer_asks.with_lead(got, said, [ln])


__all__ = ["with_file"]
