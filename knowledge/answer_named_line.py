"""The line a message names, quoted with its file:line and time: "what does the WARNING line at step
2001 say about the batch shape?", "which folder was it writing the checkpoint to", "which source line
does the FullStateDictConfig call come from per the traceback?", "seq id, op, last completed work for
ranks 1-7", "rank 1's pid from the launcher summary", "list each supporting line with its timestamp, in
chronological order".

Why: the answer for the message's first ask states a conclusion; an audit asks for the one line of the
job's own logs it points at. Each step finds that line among the job's kept lines and quotes it with
where it is and when; nothing is added when the job has no such line.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.ranks import ranges
from denpex.core.texts import followups_named as tn
from knowledge import answer_grounds
from knowledge.answer_types import Ctx, Reply, line_time, quote_line
from knowledge.intents import named_ranks
from knowledge.lines import parse_rank

_WARN_ASK = re.compile(
    r"\bwarn(?:ing)?s?\b|\bbatch[- ]shape\b|\bpacking\b|\bthe batch (?:at|of|in) step\b", re.IGNORECASE
)
_WARN = re.compile(r"\[WARN(?:ING)?\]|\bWARNING\b|\bpacking\b|\bbatch of \d+ x \d+", re.IGNORECASE)
_STEP_N = re.compile(r"\bstep (\d+)\b", re.IGNORECASE)
_FOLDER_ASK = re.compile(
    r"\b(?:folder|directory|dir|path|where)\b[^?]{0,50}\b(?:checkpoint|ckpt|sav\w*|writ\w*)"
    r"|\b(?:checkpoint|ckpt|sav\w*|writ\w*)\b[^?]{0,50}\b(?:folder|directory|dir|path)\b",
    re.IGNORECASE,
)
_FOLDER = re.compile(
    r"\b(?:checkpoint|model|state)\w* (?:to|in|into|at) ['\"]?([\w./~-]+/[\w./-]*)", re.IGNORECASE
)
_SEQ_ASK = re.compile(
    r"\blast completed\b|\bseq ?(?:id|num\w*)\b|\bop ?type\b|\bseq\b[^?]{0,20}\bop\b", re.IGNORECASE
)
_SEQ = re.compile(r"last completed NCCL work|SeqNum=\d+, OpType=", re.IGNORECASE)
_PID_ASK = re.compile(r"\bpids?\b", re.IGNORECASE)
_PID = re.compile(r"local_rank: (\d+) \(pid: (\d+)\)")
_CALL_ASK = re.compile(r"\b(\w{7,})\(")
_SRC_ASK = re.compile(r"\b(?:source|file|line|traceback|frame|where)\b", re.IGNORECASE)
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
_CHRONO_ASK = re.compile(
    r"\bchronolog\w*|\bin order\b|\bsupporting line|\beach (?:supporting )?line\b", re.IGNORECASE
)


def _add_all(got: Reply, said: list[str], shown: list[EvidenceLine]) -> Reply:
    for s in said:
        got = answer_grounds.add(got, s, shown)
    return got


def _warnings(c: Ctx, text: str) -> tuple[list[str], list[EvidenceLine]]:
    steps = set(_STEP_N.findall(text))
    found = [ln for ln in answer_grounds.all_lines(c) if _WARN.search(ln.text)]
    if steps:
        found = [ln for ln in found if set(_STEP_N.findall(ln.text)) & steps] or found
    found = found[:2]
    return [tn.quoted("The warning", quote_line(ln), ln.ref, line_time(ln)) for ln in found], found


def _folder(c: Ctx) -> tuple[list[str], list[EvidenceLine]]:
    for ln in answer_grounds.all_lines(c):
        if (m := _FOLDER.search(ln.text)) is not None:
            return [tn.folder(m.group(1), ln.ref, line_time(ln))], [ln]
    return [], []


def _seq(c: Ctx) -> tuple[list[str], list[EvidenceLine]]:
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for kind in ("SeqNum=", "last completed"):
        groups: dict[str, list[tuple[int, EvidenceLine]]] = {}
        for ln in answer_grounds.all_lines(c):
            rank = parse_rank(ln.text).rank
            if kind.lower() in ln.text.lower() and _SEQ.search(ln.text) and rank is not None:
                key = re.sub(r"\brank ?\d+\b|\d+ milliseconds", "", quote_line(ln), flags=re.IGNORECASE)
                groups.setdefault(key, []).append((rank, ln))
        for group in groups.values():
            ranks = sorted({r for r, _ in group})
            ln = group[0][1]
            shown.append(ln)
            quote, at = quote_line(ln), line_time(ln)
            if len(ranks) > 1:
                said.append(tn.shared("The watchdog line", ranges(ranks), quote, ln.ref, at))
            else:
                said.append(tn.quoted(f"Rank {ranks[0]}'s watchdog line", quote, ln.ref, at))
    return said[:4], shown[:4]


def _pids(c: Ctx, text: str) -> tuple[list[str], list[EvidenceLine]]:
    asked = set(named_ranks(text))
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for ln in answer_grounds.all_lines(c):
        m = _PID.search(ln.text)
        if m is not None and (not asked or int(m.group(1)) in asked):
            rank = int(m.group(1))
            if not any(f"Rank {rank}'s pid" in s for s in said):
                said.append(tn.pid(rank, m.group(2), ln.ref))
                shown.append(ln)
    return said, shown


def _call_frame(c: Ctx, text: str) -> tuple[list[str], list[EvidenceLine]]:
    names = _CALL_ASK.findall(text)
    lines = answer_grounds.all_lines(c)
    for name in names:
        for ln in lines:
            if name.lower() in ln.text.lower() and not _FRAME.search(ln.text):
                frame = _frame_before(lines, ln)
                rank = parse_rank(ln.text).rank
                if frame is not None and rank is not None:
                    m = _FRAME.search(frame.text)
                    assert m is not None
                    return [tn.frame(rank, m.group(1), m.group(2), m.group(3), frame.ref)], [frame, ln]
    return [], []


def _frame_before(lines: list[EvidenceLine], ln: EvidenceLine) -> EvidenceLine | None:
    """The `File "…", line N` frame right above `ln` in its file (the line is that frame's source)."""
    for other in lines:
        if other.source == ln.source and other.line == ln.line - 1 and _FRAME.search(other.text):
            return other
    return None


def _chrono(c: Ctx) -> tuple[list[str], list[EvidenceLine]]:
    timed = [(line_time(ln), ln) for ln in c.view.evidence if line_time(ln)]
    timed.sort(key=lambda p: (p[0], p[1].source, p[1].line))
    said = [f"{i}. {ln.ref}, {t}: `{quote_line(ln)}`" for i, (t, ln) in enumerate(timed, 1)]
    if not said:
        return [], []
    return ["The evidence lines with a time, in order: " + "; ".join(said) + "."], [ln for _, ln in timed]


def with_named(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the job's lines the message names, each quoted with file:line and time."""
    if _WARN_ASK.search(text):
        got = _add_all(got, *_warnings(c, text))
    if _FOLDER_ASK.search(text):
        got = _add_all(got, *_folder(c))
    if _SEQ_ASK.search(text):
        got = _add_all(got, *_seq(c))
    if _PID_ASK.search(text):
        got = _add_all(got, *_pids(c, text))
    if _SRC_ASK.search(text) and _CALL_ASK.search(text):
        got = _add_all(got, *_call_frame(c, text))
    if _CHRONO_ASK.search(text):
        got = _add_all(got, *_chrono(c))
    return got
