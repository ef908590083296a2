"""The script line that holds a call the message names: "train.py line with the FSDP.state_dict_type
call", "which line calls dist.broadcast?".

Why: a message naming a call by its dotted name (`FSDP.state_dict_type`) was read as a question about
the term (FSDP) and got its definition, not the line number. The tracebacks the ranks printed hold
the call: a `File "…train.py", line 301, in save` frame whose next line is the source line with it.
"""

from __future__ import annotations

import itertools
import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_callline as tc
from knowledge import answer_asks, answer_code, answer_quote
from knowledge.answer_types import Ctx, Reply, reply

#: a line-number ask: "train.py line with …", "which line calls …", "line no of …"
_LINE_Q = re.compile(r"\bline(?:s| numbers?| no\.?)?\b", re.IGNORECASE)
#: a dotted call the message names: `FSDP.state_dict_type`, `dist.broadcast(`
_CALL = re.compile(r"\b([A-Za-z_]\w*\.[A-Za-z_]\w*)\b(?!\.py)")
_FRAME = re.compile(r'File "(?:[^"]*/)?([^"/]+\.py)", line (\d+), in (\S+)')
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def _lines(c: Ctx) -> list[EvidenceLine]:
    """Every kept line (evidence, tails and each rank's saved traceback), each once, in file order."""
    seen: dict[tuple[str, int], EvidenceLine] = {}
    ranked = [ln for rank in sorted(c.view.ranks) for ln in answer_code.traceback(c, rank)[2]]
    for ln in [*answer_quote.pool(c), *(x for t in c.d.tails for x in t.lines), *ranked]:
        seen.setdefault((ln.source, ln.line), ln)
    return sorted(seen.values(), key=lambda x: (x.source, x.line))


def _found(c: Ctx, call: str) -> tuple[re.Match[str], EvidenceLine] | None:
    """The frame line just before a source line that holds `call(`, else None."""
    lines = _lines(c)
    for prev, ln in itertools.pairwise(lines):
        if prev.source != ln.source or ln.line != prev.line + 1 or f"{call.lower()}(" not in ln.text.lower():
            continue
        if (frame := _FRAME.search(prev.text)) is not None:
            return frame, ln
    return None


def _sentence(call: str, frame: re.Match[str], ln: EvidenceLine) -> str:
    at = ln.text.lower().find(call.lower())
    return tc.CALL_LINE.format(
        call=ln.text[at : at + len(call)],
        file=frame.group(1),
        line=frame.group(2),
        fn=frame.group(3),
        ref=ln.ref,
        code=_PREFIX.sub("", ln.text).strip(),
    )


def with_call_line(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the file, line and function of each named call when a line is asked and not told."""
    if not _LINE_Q.search(text):
        return got
    told = answer_asks.said(got)
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for m in list(_CALL.finditer(text))[:4]:
        if (found := _found(c, m.group(1))) is None or found[1] in shown:
            continue
        frame, ln = found
        if f"line {frame.group(2)}" not in told:
            said.append(_sentence(m.group(1), frame, ln))
            shown.append(ln)
    if not said:
        return got
    lead = " ".join(said)
    if got.intent == "help":
        return reply("code", lead, shown)
    if got.intent == "explain":  # the term's definition follows the line asked for
        return reply("code", f"{lead} {got.lead}", shown)
    return answer_asks.with_lead(got, lead, shown)


__all__ = ["with_call_line"]
