"""A rank's lines around an event, and the steps a job completed.

Why: "what was printed on rank 5 right before the OOM?", "the last line before rank 2's traceback?",
"what did rank 5 print right after the Xid?" ask for the rank's few lines next to an event, each with
its file:line, including lines of the same rank in its other files (its stdout beside its stderr, its
own error after the kernel's Xid line). A rank that logs no step lines of its own also gets the job's
last step line. "How many steps completed before the crash?" and "the last training step logged, and
how long from there to the launcher teardown?" get the last step line (and the span, when asked).
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_around as tx
from knowledge import answer_spans
from knowledge.answer_job import last_progress
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match
from knowledge.lines import parse_timestamp

#: the lines next to an event asked ("printed right before the OOM", "last line before its traceback")
AROUND_Q = re.compile(
    r"\b(?:print\w*|logg?\w*|output\w*|said|say|write|wrote|lines?|emit\w*)\b[^?]{0,50}?"
    r"\b(?:right |just |immediately |directly )?(?P<dir>before|after|prior to|following|preceding)\b"
)
#: the event: the kernel's Xid line, else the rank's own first error line
_XID = re.compile(r"\bxid\b")
_ERROR = re.compile(r"Traceback|\bERROR\b|Error\b|\berror:|\bfailed\b|exception", re.IGNORECASE)
_STEP = re.compile(r"\bstep[ =:]*\d+", re.IGNORECASE)
_EVENTS = re.compile(
    r"\b(?:the |its |rank \d+'?s? )?(?:oom|xid|traceback|error|crash|failure|segfault|exception|kill)\b"
)
SHOWN = 3

#: the steps done asked ("how many steps completed before the crash?", "last training step logged?")
STEPS_Q = re.compile(
    r"\bhow many (?:training |optimi[sz]er )?(?:steps|iterations|iters)\b[^?]{0,30}"
    r"\b(?:complet\w*|finish\w*|ran|done|logged)\b"
    # "how many of the 10 planned steps actually completed", "out of the 10 steps, how many finished"
    r"|\bhow many of (?:the |its |my |our )?(?:\d+ )?(?:planned |total |scheduled |configured )?"
    r"(?:training )?(?:steps|iterations|iters)\b[^?]{0,30}\b(?:complet\w*|finish\w*|ran|done|logged|got)\b"
    r"|\bout of (?:the |its |my |our )?\d+ (?:planned |total )?(?:training )?(?:steps|iterations|iters)\b"
    r"[^?]{0,10}\bhow many\b"
    r"|\b(?:what'?s|what is|what was|which was) the (?:last|final|latest) (?:training )?(?:step|iteration)"
    r"(?: logged| completed| reached)?\b"
    # "number of last training step before save", "last training step everyone finished before the save?"
    r"|\bnumber of (?:the )?(?:last|final|latest) (?:training |completed |logged |good )?(?:step|iteration)\b"
    r"|^(?:the |and |so )?(?:last|final|latest) training (?:step|iteration)\b"
    r"[^?]{0,40}\b(?:before the save|before sav\w+|finished|completed|done)\b"
)
#: another question asked before the steps one (a multi-part message is answered in its order)
_EARLIER_ASK = re.compile(r"\b(?:when|why|who|which|where|what|how|did|was|is|were)\b", re.IGNORECASE)
_SPAN = re.compile(r"\bhow long\b|\bhow many (?:seconds|minutes)\b")


def around(c: Ctx, m: Match) -> Reply | None:
    """The rank's lines right before (or after) the event, each with its file:line and time."""
    found = AROUND_Q.search(m.text)
    if found is None or not _EVENTS.search(m.text[found.end() :]):
        return None
    rank = m.rank if m.rank is not None else (c.view.initiating.rank if c.view.initiating else None)
    own = [ln for t in c.d.tails if t.rank == rank for ln in t.lines]
    if rank is None or not own:
        return None
    after = found.group("dir") in ("after", "following")
    anchor = _xid(c) if _XID.search(m.text) else None
    anchor = anchor or next((ln for ln in own if _ERROR.search(ln.text)), None)
    if anchor is None:
        return None
    event = "the Xid" if _XID.search(m.text) else "its failure"
    near = _after(own, anchor) if after else _before(own, anchor)
    lines = [*near, anchor] if not after else [anchor, *near]
    own_error = c.view.ranks[rank].first_line if rank in c.view.ranks else None
    lines += [own_error] if own_error is not None and not after else []  # the error it then raised
    stamp = _iso(anchor)
    if not near:
        said = (tx.NOTHING_AFTER if after else tx.NOTHING_BEFORE).format(
            rank=rank, event=event, anchor=anchor.text.strip()[:120]
        )
        return reply("show_lines", said, [anchor])
    listed = "; ".join(
        tx.LISTED.format(
            text=ln.text.strip()[:160], ref=ref(ln), at=f", {t[11:19]}" if (t := _iso(ln)) else ""
        )
        for ln in near
    )
    text = tx.AFTER if after else tx.BEFORE
    said = text.format(
        event=event,
        anchor=anchor.text.strip()[:120],
        at=stamp[11:19] if stamp else "",
        rank=rank,
        listed=listed,
    )
    if not after and not any(_STEP.search(ln.text) for ln in near):
        step, shown = last_progress(c)
        if step and not any(x.source == shown[0].source for x in near):
            said += " " + tx.NOT_A_STEP.format(rank=rank, said=step)
            lines += shown
    return reply("show_lines", said, lines)


def _iso(ln: EvidenceLine) -> str:
    stamp = parse_timestamp(ln.text)
    return (stamp.iso() or "") if stamp is not None and not stamp.relative else ""


def _xid(c: Ctx) -> EvidenceLine | None:
    pool = [*c.view.evidence, *(ln for lines in c.d.nodes.values() for ln in lines)]
    return next((ln for ln in pool if re.search(r"\bXid\b", ln.text)), None)


def _before(own: list[EvidenceLine], anchor: EvidenceLine) -> list[EvidenceLine]:
    """The rank's lines before the anchor: earlier in its file, or in its other files and no error."""
    prior = [
        ln
        for ln in own
        if (ln.source == anchor.source and ln.line < anchor.line)
        or (ln.source != anchor.source and not _ERROR.search(ln.text))
    ]
    return prior[-SHOWN:]


def _after(own: list[EvidenceLine], anchor: EvidenceLine) -> list[EvidenceLine]:
    """The rank's lines after the anchor: later in its file, or timed at or after it in another."""
    at = _iso(anchor)[:19]
    later = [
        ln
        for ln in own
        if (ln.source == anchor.source and ln.line > anchor.line)
        or (ln.source != anchor.source and at and _iso(ln)[:19] >= at)
    ]
    return later[:SHOWN]


def steps_done(c: Ctx, m: Match) -> Reply | None:
    """The last step line the job logged (the steps it completed), and the span after it when asked."""
    asked = STEPS_Q.search(m.text)
    if asked is None or m.ranks or _EARLIER_ASK.search(m.text[: asked.start()]):
        return None  # "when was it cancelled, …, and the last step?": the first ask leads, the parts follow
    said, shown = last_progress(c)
    if not said or _ERROR.search(shown[0].text):
        return None  # "training step 2001 failed": the step answers say where it stopped
    if _SPAN.search(m.text):
        text = re.sub(r"\bfrom (?:there|then|that|it)\b", "from the last step", m.text)
        spanned = answer_spans.spans(c, replace(m, text=text))
        if spanned is not None:
            return reply("when", spanned.lead, spanned.lines)
    return reply("when", tx.STEPS_DONE.format(said=said), shown)


__all__ = ["AROUND_Q", "STEPS_Q", "around", "steps_done"]
