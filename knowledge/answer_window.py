"""A rank's lines in a window the reader names, and what it logged besides training just before its
failure: "paste what rank 5 logged between step 2000 and the OOM, every line, in order", "everything
rank 5 printed after step 2000 up to the crash", "was rank 5 doing anything besides training right
before it fell over, uploads, network traffic?", "the log said something about an upload to the hub
just before it died: which repo?".

Why: the failure answers quote one line before the failure (its "doing" line) and the memory figures;
a postmortem wants every kept line of the window in order (the batch line kept as a setting, an upload
line between the last step and the failure), each with its file:line and the time it prints. The lines
come masked: a token the log printed is never quoted. A traceback inside the window is told as its
span, then the error it ended in.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_memjobs as tm
from knowledge.answer_logged import own_lines
from knowledge.answer_types import Ctx, Reply, reply, when
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView
from knowledge.lines import parse_timestamp

_LOGGED = r"(?:logg?\w*|print\w*|wrote|writ\w*|lines?|output|everything|said|says?|emit\w*|paste|dump)"
_FROM = r"(?:between|after|since|from|starting (?:at|from))"
_STEP_ANCHOR = r"(?:its |the )?(?:last (?:good |completed |logged |clean |healthy )?step|step \d+)"
#: a window the reader bounds by a step line ("between step 2000 and the OOM", "after its last step")
WINDOW_Q = re.compile(
    rf"\b{_LOGGED}\b[^?]{{0,60}}?\b{_FROM} {_STEP_ANCHOR}\b"
    rf"|\b{_FROM} {_STEP_ANCHOR}\b[^?]{{0,60}}?\b{_LOGGED}\b"
)
#: the window's end is the failure ("… and the OOM", "up to the crash"), or the ask says "window"
_TO_FAILURE = re.compile(
    r"\b(?:and|to|until|till|up to|through|thru|before) (?:the |its |it |rank \d+'?s? )?"
    r"(?:oom|crash\w*|failure|fail\w*|error|traceback|death|died|die|exception|kill\w*|end|segfault)\b"
    r"|\bwindow\b"
)
#: something besides training asked, just before the failure ("anything besides training", "uploads")
BESIDE_Q = re.compile(
    r"\b(?:besides|other than|apart from|aside from|beyond|except(?: for)?) (?:the )?(?:train\w*|steps?)\b"
    r"|\bside (?:activit\w*|work|jobs?|tasks?|traffic)\b"
    # "the log said something about an upload to the hub just before it died: which repo?"
    r"|\b(?:say|said|says|log\w*|print\w*|mention\w*) (?:something|anything) (?:about|like|re) (?:an? |the )?"
    r"(?:upload\w*|push\w*|hub|mirror\w*|download\w*|sync\w*)"
)
#: the lines themselves asked ("paste the lines right before the OOM, incl the upload line"): the
#: lines-around answer quotes them, the upload among them
_PASTE = re.compile(r"\b(?:paste|show|quote|print|dump|give)\b[^?]{0,40}\blines?\b|\bverbatim\b")
_FRAME = re.compile(r'^\s*(?:\[[^\]]*\]:?\s*)*(?:Traceback \(most recent call last\)|File "|\s{2,}\S)')
_STEPLINE = re.compile(r"\bstep[ =:]*\d+", re.IGNORECASE)
#: a completed step's progress line (`step 2000/6000 loss=1.49 …`), not a step's batch or failure line
_DONE = re.compile(r"\bstep[ =:]*\d+(?:/\d+)?\b.*\b(?:loss|grad_norm|mem_alloc|lr)\b", re.IGNORECASE)
_ERRORISH = re.compile(r"Traceback|\bERROR\b|\w(?:Error|Exception)\b|\bfailed\b|exitcode|Watchdog")
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")
#: how many window lines are quoted in the sentence (the traceback counts as one)
MAX_LISTED = 10


def window(c: Ctx, m: Match) -> Reply | None:
    """The rank's kept lines from the step line the ask names to its failure line, in order."""
    found = WINDOW_Q.search(m.text)
    if found is None or not _TO_FAILURE.search(m.text):
        return None
    r, lines = _rank_lines(c, m)
    if r is None or r.first_line is None:
        return None
    end = _index(lines, r.first_line)
    named = re.search(r"\bstep (\d+)", found.group(0))
    start = _anchor(lines, end, named.group(1) if named else None)
    if start is None or end is None or end <= start:
        return None
    chosen = lines[start : end + 1]
    listed = "; ".join(_told(chosen)[:MAX_LISTED])
    said = tm.WINDOW.format(rank=r.rank, start=_short(chosen[0]), end=_short(chosen[-1]), listed=listed)
    shown = [ln for ln in chosen if not _FRAME.search(ln.text)]
    return reply("show_lines", said, shown[:6])


def beside(c: Ctx, m: Match) -> Reply | None:
    """What the rank logged besides its step lines between its last good step and its failure."""
    if not BESIDE_Q.search(m.text) or _PASTE.search(m.text):
        return None
    r, lines = _rank_lines(c, m)
    if r is None or r.first_line is None:
        return None
    end = _index(lines, r.first_line)
    start = _anchor(lines, end, None)
    if start is None or end is None:
        return None
    side = [ln for ln in lines[start + 1 : end] if not _busy(ln)]
    step, fail = _short(lines[start]), _short(lines[end])
    if not side:
        return reply("show_lines", tm.BESIDE_NONE.format(rank=r.rank, step=step, end=fail), [lines[start]])
    listed = "; ".join(f"`{_quote(ln)}` ({ln.ref})" for ln in side[:4])
    said = tm.BESIDE.format(rank=r.rank, step=step, end=fail, listed=listed)
    return reply("show_lines", said, side[:4])


def _rank_lines(c: Ctx, m: Match) -> tuple[RankView | None, list[EvidenceLine]]:
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    return (r, own_lines(c, r.rank)) if r is not None else (None, [])


def _index(lines: list[EvidenceLine], target: EvidenceLine) -> int | None:
    return next(
        (i for i, ln in enumerate(lines) if ln.source == target.source and ln.line == target.line), None
    )


def _anchor(lines: list[EvidenceLine], end: int | None, step: str | None) -> int | None:
    """The step line the window starts at: the named step's line, else the last step line before the
    failure that reports no failure (the last good step)."""
    if end is None:
        return None
    before = list(enumerate(lines[:end]))
    if step is not None:
        named = re.compile(rf"\bstep[ =:]*{step}\b", re.IGNORECASE)
        return next((i for i, ln in before if named.search(ln.text) and not _ERRORISH.search(ln.text)), None)
    good = [i for i, ln in before if _DONE.search(ln.text) and not _ERRORISH.search(ln.text)]
    good = [i for i in good if lines[i].source == lines[end].source] or good
    return good[-1] if good else None


def _busy(ln: EvidenceLine) -> bool:
    """A line of the training itself or of the failure: a step line, a frame, an error."""
    return bool(_STEPLINE.search(ln.text) or _FRAME.search(ln.text) or _ERRORISH.search(ln.text))


def _told(lines: list[EvidenceLine]) -> list[str]:
    """Each line quoted with its ref; a run of traceback lines as one span."""
    out: list[str] = []
    run: list[EvidenceLine] = []
    for ln in [*lines, None]:
        if ln is not None and _FRAME.search(ln.text):
            run.append(ln)
            continue
        if run:
            out.append(tm.WINDOW_TRACE.format(first=run[0].ref, last=run[-1].ref.rsplit(":", 1)[-1]))
            run = []
        if ln is not None:
            out.append(f"`{_quote(ln)}` ({ln.ref})")
    return out


def _quote(ln: EvidenceLine) -> str:
    text = _PREFIX.sub("", ln.text).strip()
    return text if len(text) <= 200 else text[:200] + "…"


def _short(ln: EvidenceLine) -> str:
    stamp = parse_timestamp(_PREFIX.sub("", ln.text))
    at = when(stamp.iso()) if stamp is not None else ""
    return f"{ln.ref}, {at}" if at else ln.ref


__all__ = ["BESIDE_Q", "WINDOW_Q", "beside", "window"]
