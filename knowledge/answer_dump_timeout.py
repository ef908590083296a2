"""The Flight Recorder entries' own `timeout_ms` against the watchdog's `Timeout(ms)`: "the FR dump says
timeout_ms 3000 but the watchdog line says 600000, which one is it?", "what timeout_ms do the Flight
Recorder entries record, and do the two agree?".

Why: the answers said the watchdog's timeout and the dumps' collectives, not the entries' field asked
about. The diagnosis reads each entry's collective, sequence and state, not its `timeout_ms`: the
answer says which timeout fired (the watchdog's line and how long it ran), that the entries' field is
not read here (a figure the reader quotes is named as theirs, not confirmed), and the command that
prints it from the dumps.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_proof as tp
from knowledge import answer_asks
from knowledge.answer_types import Ctx, Reply

#: the dumps' timeout field asked about
DUMP_TIMEOUT_Q = re.compile(
    r"\btimeout_ms\b|\b(?:fr|flight ?recorder|dumps?|trace|entries)\b[^?]{0,40}\btime ?outs?\b",
    re.IGNORECASE,
)
#: a figure the reader gives for the dumps' field ("timeout_ms 3000", "the dump says 3000")
_QUOTED = re.compile(
    r"\btimeout_ms\W{0,4}(?:(?:of|is|=|says?|was)\W{0,3})?(\d{2,})\b"
    r"|\b(?:fr|flight ?recorder|dumps?)\b[^?]{0,25}?\b(\d{3,})\b",
    re.IGNORECASE,
)
_WATCHDOG = re.compile(r"Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds")


def with_dump_timeout(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with which timeout fired and what the diagnosis can say of the entries' `timeout_ms`."""
    if not c.d.collectives.dumps or not DUMP_TIMEOUT_Q.search(text):
        return got
    line = _watchdog(c)
    if line is None:
        return got
    found = _WATCHDOG.search(line.text)
    assert found is not None
    quoted = _QUOTED.search(text)
    figure = next((g for g in quoted.groups() if g), "") if quoted else ""
    figure = "" if figure == found.group(1) else figure
    told = answer_asks.said(got)
    fired = found.group(2) in told and found.group(1) in told  # "ran for 600012 ms against 600000" said
    said = [] if fired else [tp.DUMP_FIRED.format(timeout=found.group(1), ran=found.group(2), ref=line.ref)]
    said.append(tp.DUMP_QUOTED.format(figure=figure) if figure else tp.DUMP_NOT_READ)
    said.append(tp.DUMP_CHECK.format(timeout=found.group(1)))
    sentence = " ".join(said)
    if "timeout_ms` field is not read" in told or "is not read into this diagnosis" in told:
        return got
    return answer_asks.with_lead(got, sentence, [line])


def _watchdog(c: Ctx) -> EvidenceLine | None:
    for r in c.view.with_role("collateral"):
        if r.first_line is not None and _WATCHDOG.search(r.first_line.text):
            return r.first_line
    return next((ln for ln in c.view.evidence if _WATCHDOG.search(ln.text)), None)


__all__ = ["DUMP_TIMEOUT_Q", "with_dump_timeout"]
