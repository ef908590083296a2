"""The first exception of a chained traceback, when the message asks for it ("first exception in the
chain — which serialization call failed before the inline_container enforce?", "what was the
original error before the one it ended in?").

Why: a rank's answer quotes the error its traceback ended in, but Python prints a chain ("During
handling of the above exception, another exception occurred") oldest first: the call that failed
first (`write_record`) is in the first traceback, not the last, and the last error (a cleanup's) can
hide it. The rank's own kept lines are read: the frame and error just above the chain's marker.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_chain as tc
from knowledge import answer_code
from knowledge.answer_types import Ctx, Reply, rank_lines, reply
from knowledge.intents import named_ranks

_ASK = re.compile(
    r"\bfirst (?:[\w/]+ ){0,2}(?:exception|error)\b"
    r"|\bwhat (?:came |was )?(?:right )?(?:preceded|before) (?:it|that)\b"
    r"|\b(?:original|underlying|inner|earlier|initial) (?:exception|error)\b"
    r"|\b(?:in|of) the (?:exception )?chain\b|\bchained\b|\bduring handling\b"
    r"|\bbefore the\b.{0,40}\b(?:enforce|exception|error)\b",
    re.IGNORECASE,
)
_MARK = re.compile(r"During handling of the above exception|The above exception was the direct cause")
_EXC = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*([\w.]*(?:Error|Exception)\b.*)$")
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def _code(lines: list[EvidenceLine], after: EvidenceLine) -> str:
    nxt = [ln for ln in lines if ln.line == after.line + 1]
    text = _PREFIX.sub("", nxt[0].text).strip() if nxt else ""
    return "" if text.startswith("File ") else text


def _link(lines: list[EvidenceLine]) -> tuple[str, str, str, str, list[EvidenceLine]] | None:
    """The chain's first error with its innermost frame, and the last error, from one source's lines."""
    marks = [ln for ln in lines if _MARK.search(ln.text)]
    if not marks:
        return None
    before = [ln for ln in lines if ln.line < marks[0].line]
    errors = [ln for ln in before if _EXC.match(ln.text) and 'File "' not in ln.text]
    frames = answer_code._frames(before)
    if not errors or not frames:
        return None
    inner = frames[-1]
    code = _code(lines, inner.line)
    frame = f"`{inner.path.rsplit('/', 1)[-1]}` line {inner.number}, in `{inner.func}`" + (
        f": `{code}`" if code else ""
    )
    after = [
        ln for ln in lines if ln.line > marks[0].line and _EXC.match(ln.text) and 'File "' not in ln.text
    ]
    first = _EXC.match(errors[-1].text)
    last = _EXC.match(after[-1].text) if after else None
    then = last.group(1)[:160] if last else ""
    shown = [inner.line, errors[-1], *(after[-1:])]
    said = first.group(1)[:160] if first else ""
    return frame, said, then, _PREFIX.sub("", marks[0].text).strip().rstrip(":"), shown


def with_chain(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the first exception of the asked rank's chained traceback, when it does not say it."""
    if not _ASK.search(text) or not c.view.ranks:
        return got
    ini = c.view.initiating
    ranks = named_ranks(text) or ([ini.rank] if ini is not None else [])
    for rank in ranks[:2]:
        for lines in rank_lines(c, rank).values():
            found = _link(lines)
            if found is None:
                continue
            frame, first, then, mark, shown = found
            if first[:40] in got.lead:
                return got
            said = tc.chain(rank, frame, first, then, f"while handling it ({mark})")
            if got.intent == "help":
                return reply("code", said, shown)
            lines_out = shown + [ln for ln in got.lines if ln not in shown]
            return replace(got, lead=f"{said} {got.lead}", lines=lines_out, material=[said, *got.material])
    return got
