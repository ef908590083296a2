"""What a term or a quoted line means in THIS job, added for a newcomer's ask: "what's a collateral
rank, why are 1-3 in that table?", "what does 'Root Cause (first observed failure)' mean?", "'Loss is
nan' — who raised it and where?", "what's basic_ios::clear?", "what's a core dump, do we have one?".

Why: the glossary answer defines the word; a newcomer also needs where it shows in this job: the
collective the collateral ranks waited in, the frame of the user's code that raised the error, the
library call a quoted error came out of, the pid and host of the crashed process. Each is read from
the job's own tracebacks and launcher summary.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_grounds as tg
from knowledge import answer_code
from knowledge.answer_grounds import add, all_lines
from knowledge.answer_types import Ctx, Reply, rank_lines, ref

_COLLATERAL = re.compile(r"\bcollateral\b|\broot cause\b|\bfirst observed\b")
_RAISED = re.compile(
    r"\b(?:who|which rank|what)\b[^?]{0,30}\b(?:raised?|threw|throws?)\b"
    r"|\braised? (?:it|where|by)\b|\bwhere\b[^?]{0,30}\braised?\b"
)
_MEANS = re.compile(r"\bwhat(?:'s| is| does| do)\b|\bwhats\b|\bnever seen\b|\bmean\b")
_CORE = re.compile(r"\bcore ?dumps?\b|\bcore files?\b|\bcoredump")
_SUMMARY_PID = re.compile(r"exitcode\s*:\s*-\d+ \(pid: (\d+)\)")
_CODE_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")


def with_terms(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with where the asked term or quoted line shows in this job."""
    low = text.lower()
    if _COLLATERAL.search(low):
        got = add(got, *_collateral(c))
    if _RAISED.search(low):
        got = add(got, *_raised(c))
    if _MEANS.search(low) and (quote := _quoted(c, low)):
        got = add(got, *_under(c, quote))
    if _CORE.search(low):
        got = add(got, *_core(c))
    return got


_ERROR = re.compile(r"\b\w*(?:Error|Exception)\b:\s*(.{8,})$")


def _quoted(c: Ctx, low: str) -> str:
    """The error message of a rank's line that the message repeats (quotes are gone by now)."""
    for rank in sorted(c.view.ranks):
        for lines in rank_lines(c, rank).values():
            for ln in lines:
                m = _ERROR.search(ln.text)
                if m is not None and m.group(1).strip().lower()[:30] in low:
                    return m.group(1).strip()
    return ""


def _collateral(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    ini = c.view.initiating
    rows, _ = answer_code.collective_rows(c)
    if ini is None or not rows:
        return "", []
    said = tg.COLLATERAL_HERE.format(rows="; ".join(rows), ini=ini.rank, ref=ref(ini.first_line))
    return said.replace(" ()", ""), []


def _next_code(lines: list[EvidenceLine], f: answer_code.Frame) -> str:
    after = [ln for ln in lines if ln.source == f.line.source and ln.line == f.line.line + 1]
    text = _CODE_PREFIX.sub("", after[0].text).strip() if after else ""
    return "" if text.startswith("File ") else text


def _raised(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The initiating rank's frame whose source line is a `raise`."""
    ini = c.view.initiating
    if ini is None:
        return "", []
    _, frames, lines = answer_code.traceback(c, ini.rank)
    for f in reversed(frames):
        code = _next_code(lines, f)
        if code.startswith("raise "):
            said = tg.RAISED.format(
                rank=ini.rank,
                func=f.func,
                path=f.path.rsplit("/", 1)[-1],
                number=f.number,
                ref=ref(f.line),
                code=f": `{code[:120]}`",
            )
            return said, [f.line]
    return "", []


def _under(c: Ctx, quote: str) -> tuple[str, list[EvidenceLine]]:
    """The innermost frame above the quoted error line in its rank's traceback, and the one above it."""
    for rank in sorted(c.view.ranks):
        for lines in rank_lines(c, rank).values():
            hit = next((ln for ln in lines if quote in ln.text and "File " not in ln.text), None)
            if hit is None:
                continue
            frames = [
                f for f in answer_code._frames(lines) if f.line.line < hit.line and hit.line - f.line.line < 8
            ]
            if not frames:
                continue
            f = frames[-1]
            code = _next_code(lines, f)
            outer = f" in `{frames[-2].func}`" if len(frames) > 1 else ""
            call = f": `{code[:100]}`" if code else ""
            said = tg.UNDER.format(
                func=f.func,
                path=f.path.rsplit("/", 1)[-1],
                number=f.number,
                ref=ref(f.line),
                outer=call + outer,
                rank=rank,
            )
            return said, [f.line]
    return "", []


def _core(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    ini = c.view.initiating
    if ini is None:
        return "", []
    if any(re.search(r"core dumped|core\.\d+|coredump", ln.text, re.I) for ln in all_lines(c)):
        return "", []
    for ln in all_lines(c):
        m = _SUMMARY_PID.search(ln.text)
        if m is not None and ("SIGSEGV" in ln.text or "SIGABRT" in ln.text or "SIGBUS" in ln.text):
            node = ini.node or "its node"
            return tg.CORE_NONE.format(pid=m.group(1), rank=ini.rank, node=node, ref=ref(ln)), [ln]
    return "", []
