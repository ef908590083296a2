"""Skeptical challenges of who started it, answered with each rank's own line: "prove rank 1 went first
and they're just victims", "all 8 ranks died. prove rank 0 started it", "r0 n r2 say 'connection reset
by peer', related or separate prob?", "prove rank 3 crashed first and the gloo errors on 0/2 aren't the
real failure", "could it be Xid or hardware instead? be honest".

Why: the answers named the initiating rank and its time, or the others' lines, but not the initiating
rank's own error line next to each other rank's own line: a reader who doubts the verdict needs both,
and why each other line is a consequence (a socket to a process that had exited, the launcher's
SIGTERM, a watchdog that waited out its timeout), not a second failure.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_proof as tp
from knowledge import answer_asks, answer_ending
from knowledge.answer_types import Ctx, Reply, at_rank, duration, quote_line, rank_list, reply
from knowledge.jobfacts_answers import RankView, seconds_between

_WHO = r"(?:first|started|start|began|begin|caused?|root|culprit|victims?|collateral|consequences?|kicked)"
#: a challenge of the verdict's order: prove it, or are the others' errors a separate problem
PROOF_Q = re.compile(
    rf"\bprove\b[^?]{{0,60}}\b{_WHO}\b|\b(?:proof|evidence)\b[^?]{{0,40}}\b{_WHO}\b"
    r"|\bjust (?:victims|collateral|bystanders|consequences?|symptoms?)\b"
    r"|\b(?:is|are) (?:it|they|these|those|the [\w' ]{1,50}?) (?:related|connected|linked)\b"
    r"|\b(?:related|connected)\b[^?]{0,20}\b(?:or|vs\.?)\b[^?]{0,10}\b(?:separate|independent|unrelated|different)\b"
    r"|\b(?:separate|independent|unrelated|second|different) "
    r"(?:prob\w*|issues?|failures?|bugs?|root causes?)\b"
    r"|\b(?:aren'?t|are not|isn'?t|is not|not) the real (?:failure|cause|problem|error)\b",
    re.IGNORECASE,
)
#: "could it be X instead?": what the rank's own error line says it was
INSTEAD_Q = re.compile(
    r"\bcould (?:it|this) (?:be|have been)\b[^?]{0,60}\binstead\b|\bbe honest\b", re.IGNORECASE
)
_PEER = re.compile(r"closed by peer|reset by peer|Connection (?:closed|reset)", re.IGNORECASE)
_SIGTERM = re.compile(r"SIGTERM|Signal 15|exitcode\s*:?\s*-15", re.IGNORECASE)
_FIX = re.compile(r"\bfix\w*|\bworked\b|\bworks\b|\bafter (?:the |a )?(?:change|rerun)\b", re.IGNORECASE)
_TIMEOUT = re.compile(r"Watchdog|Timed out|timeout", re.IGNORECASE)


def with_proof(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the initiating rank's own error line and time, and (for a challenge of the order)
    each other rank's own line with why it is a consequence, when the answer does not say them yet."""
    ini = c.view.initiating
    challenged = PROOF_Q.search(text) is not None
    if ini is None or ini.first_line is None or not (challenged or INSTEAD_Q.search(text)):
        return got
    alone = got.intent in ("verify", "help") and not _FIX.search(text)  # "prove": no fix check asked
    told = "" if alone else answer_asks.said(got)
    said: list[str] = []
    shown: list[EvidenceLine] = []
    err = answer_ending.own_error_line(c, ini)
    own = err or ini.first_line
    if quote_line(own).lower()[:60] not in told:
        named = re.search(rf"\brank {ini.rank}\b[^.]{{0,40}}\b(?:started it|failed first|went first)", told)
        said.append(_started(ini, own, err is not None, named is not None))
        shown.append(own)
    if challenged:
        others, lines = _others(c, ini, told)
        said += others
        shown += lines
        if others and err is not None and not _TIMEOUT.search(err.text):
            said.append(tp.NONE_OWN.format(ini=ini.rank))
    if not said:
        return got
    if alone:
        return reply("which_rank", " ".join(said), shown[:3])
    return answer_asks.with_lead(got, " ".join(said), shown[:3])


def _started(ini: RankView, own: EvidenceLine, error: bool, named: bool) -> str:
    what = f" ({ini.what})" if ini.what and ini.what.lower() not in quote_line(own).lower() else ""
    form = tp.STARTED if error else tp.STARTED_NO_ERROR
    if not error and _SIGTERM.search(own.text):  # a hung rank: stopped after the others timed out
        form = tp.STARTED_SILENT
    elif named:  # the answer says already that it started it: its line, not the claim again
        form = tp.OWN_ERROR if error else tp.OWN_LINE
    return form.format(rank=ini.rank, quote=quote_line(own), ref=own.ref, at=at_rank(ini), what=what)


def _others(c: Ctx, ini: RankView, told: str) -> tuple[list[str], list[EvidenceLine]]:
    """Each group of other ranks (by what ended them): its own line, time and why it is a consequence."""
    groups: dict[str, list[RankView]] = {}
    for r in c.view.with_role("collateral"):
        if r.first_line is not None:
            groups.setdefault(r.what or r.first_line.text, []).append(r)
    said, shown = [], []
    for ranks in groups.values():
        ln = ranks[0].first_line
        assert ln is not None
        if quote_line(ln).lower()[:60] in told and "waiting on rank" in told:
            continue  # the others' own line and their wait are said already
        form = tp.OTHERS if len(ranks) > 1 else tp.OTHER
        why = _why(ini, ranks[0], ln)
        said.append(
            form.format(
                ranks=rank_list(ranks), quote=quote_line(ln), ref=ln.ref, at=at_rank(ranks[0]), why=why
            )
        )
        shown.append(ln)
    return said, shown


def _why(ini: RankView, r: RankView, ln: EvidenceLine) -> str:
    if _PEER.search(ln.text):
        return tp.WHY_PEER.format(ini=ini.rank)
    if _SIGTERM.search(ln.text) or "SIGTERM" in (r.what or ""):
        return tp.WHY_SIGTERM.format(ini=ini.rank)
    if _TIMEOUT.search(ln.text) or "timed out" in (r.what or ""):
        gap = None if ini.borrowed or r.borrowed else seconds_between(ini.first_time, r.first_time)
        after = tp.WHY_TIMEOUT_GAP.format(gap=duration(gap), ini=ini.rank) if gap and gap > 0 else ""
        return tp.WHY_TIMEOUT.format(ini=ini.rank, gap=after)
    return tp.WHY_AFTER.format(ini=ini.rank)


__all__ = ["INSTEAD_Q", "PROOF_Q", "with_proof"]
