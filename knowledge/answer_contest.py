"""A rank's blame contested ("why rank 2 and not rank 0?", "torchrun says root cause is rank 0, why
rank 3?", "the traceback is from rank 0, why pin it on rank 2?") and a verdict's confidence challenged
("how sure are you? it ran 2000 steps fine", "that line doesn't say disk full anywhere").

Why: the reader weighs one rank against another, or the verdict against a doubt. The usual answer says
who started it; this adds the lines that settle the contest: what torchrun's "Root Cause (first observed
failure)" names and why that is the first to exit rather than the first to fail, how the other ranks
ended, the launcher line tying a killed pid to its rank, the collectives the ranks were in, the step's
own batch line, the failing rank's other error lines, and for a silent rank what would show why.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_contest as tc
from knowledge import answer_asks, answer_code, answer_join, answer_launcher, answer_pid, answer_silent
from knowledge.answer_howfar import STEP_DIFF_Q
from knowledge.answer_sure import SURE_Q
from knowledge.answer_types import Ctx, Reply, ref
from knowledge.intents import Match
from knowledge.jobfacts_answers import LauncherExit, RankView, launcher_exits

_RANKS = r"(?:rank|r)\s?\d+"
#: one rank weighed against another, or against the launcher's root cause or the traceback's rank
BLAME_Q = re.compile(
    r"\bwhy (?:" + _RANKS + r"|\d+) (?:and|but|,)? ?not\b"
    r"|\b(?:rather than|instead of|and not|but not) (?:" + _RANKS + r"|one of the others|the others?)\b"
    r"|\b(?:torchrun|launcher|elastic|summary)\b[^?]{0,40}\broot ?cause\b[^?]{0,40}\b"
    + _RANKS
    + r"|\b(?:torchrun|launcher|elastic|summary)\b[^?]{0,40}\b"
    + _RANKS
    + r"\b[^?]{0,40}\broot ?cause\b"
    r"|\b(?:pin|pinning|pinned|blame|blaming|blamed|saying|say|pick|picking|accus\w+) (?:it on )?"
    + _RANKS
    + r"\b(?=[^?]{0,80}\b(?:traceback|torchrun|launcher|root|error|logged|lists?))"
    r"|\b(?:torchrun|launcher|elastic|summary)\b[^?]{0,40}\b(?:blames?|blamed|blaming|points? (?:at|to)"
    r"|pointed (?:at|to)|fingers?|fingered) " + _RANKS + r"\b"
    r"|\b(?:traceback|error|stack)s? (?:is |was |are |were )?(?:from|on|in) "
    + _RANKS
    + r"\b[^?]{0,60}\b(?:why|pin\w*|blam\w*)\b"
)
#: the verdict's certainty put in doubt ("how sure", "coin flip", "doesn't say disk full anywhere")
DOUBT_Q = re.compile(
    SURE_Q.pattern + r"|\bhow (?:sure|certain) r u\b|\bcoin ?flip\b"
    r"|\b(?:doesn'?t|does not|never|don'?t|do not) (?:say|says|mention|show)\b[^?]{0,40}\banywhere\b"
)
#: the challenge points at the wording of a line ("doesn't say disk full", "nothing says ENOSPC")
_WORDING = re.compile(
    r"\b(?:doesn'?t |does not |never |nothing (?:in (?:there|it|the logs?) )?)(?:say|says|mention)"
)
#: what it would take to know why a silent rank stopped ("what would you need to see to know why")
NEED_Q = re.compile(
    r"\bwhat (?:would|do|will) (?:you|we|i) need (?:to (?:see|know|have|collect|get))?\b[^?]{0,40}\bwhy\b"
    r"|\bwhat would (?:tell|show) (?:us|you|me) why\b"
)
#: a step that failed after many passed ("ran 2000 steps fine, why suddenly")
_SUDDEN = re.compile(r"\bsudden\w*\b|\bout of nowhere\b")
#: an error line in a traceback (`RuntimeError: …`)
_ERROR = re.compile(r"\b[A-Z]\w*(?:Error|Exception): (.+)$")
#: torchrun's summary header of the rank it blames
_ROOT = re.compile(r"Root Cause \(first observed failure\)")


def contested(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got` with the lines that settle a contested rank or a doubted verdict, none said twice."""
    ini = c.view.initiating
    if ini is None or got.intent == "help":
        return got
    low = m.text.lower()
    if BLAME_Q.search(low):
        parts = [_root(c, ini), _tie(c, ini, got), _others(c, ini, m, got)]
        return _with(got, parts, lead=False)
    if NEED_Q.search(low) and ini.inferred:
        return _with(got, [(tc.NEED.format(rank=ini.rank, steps=answer_silent.next_steps(c, ini)), [])], True)
    if DOUBT_Q.search(low):
        parts = [_desync(c), _tie(c, ini, got), _step(c, m, low), _own_error(c, ini, low)]
        return _with(got, parts, lead=True)
    return got


Part = tuple[str, list[EvidenceLine]]


def _with(got: Reply, parts: list[Part], lead: bool) -> Reply:
    """The parts not yet said: leading the answer (a doubt), or after its lead (a contest)."""
    fresh = [(s, ln) for s, ln in parts if s and s.lower() not in answer_asks.said(got)]
    if not fresh:
        return got
    said = " ".join(s for s, _ in fresh)
    lines = [x for _, ln in fresh for x in ln]
    return answer_join.first(got, said, lines) if lead else answer_asks.with_lead(got, said, lines)


def root_cause(c: Ctx) -> LauncherExit | None:
    """The rank torchrun's summary gives as its "Root Cause (first observed failure)", if it has one."""
    for tail in c.d.tails:
        head = next((ln for ln in tail.lines if _ROOT.search(ln.text)), None)
        if head is None:
            continue
        after = [e for e in launcher_exits(c.d) if e.line.source == head.source and e.line.line > head.line]
        if after:
            return min(after, key=lambda e: e.line.line)
    return None


def _root(c: Ctx, ini: RankView) -> Part:
    root = root_cause(c)
    if root is None:
        return "", []
    pid = f" (pid: {root.pid})" if root.pid is not None else ""
    exit_ = tc.EXIT.format(code=root.code, pid=pid)
    if root.rank == ini.rank:
        return tc.ROOT_SAME.format(rank=ini.rank, exit=exit_, ref=ref(root.line)), [root.line]
    first = ref(ini.first_line) if ini.first_line is not None else "its own line"
    said = tc.ROOT_OTHER.format(root=root.rank, exit=exit_, ref=ref(root.line), rank=ini.rank, first=first)
    return said, [root.line]


#: a process id a kernel or launcher line names (`Killed process 3312`, `(pid: 3312)`)
_PID = re.compile(r"\bkilled process (\d{2,7})\b|\bpid[=: ]+\(?(\d{2,7})\b")


def _tie(c: Ctx, ini: RankView, got: Reply) -> Part:
    """A rank killed by pid: the launcher line naming that pid as the rank's, and the kill line."""
    lines = [ln for ln in (ini.first_line, *c.view.evidence) if ln is not None]
    found = next(
        (f for ln in lines if "kill" in ln.text.lower() and (f := _PID.search(ln.text.lower()))), None
    )
    if found is None:
        return "", []
    pid = found.group(1) or found.group(2)
    if pid in answer_asks.said(got):
        return "", []
    whose = answer_pid.whose(c, f"whose is pid {pid}")
    return (whose.lead, list(whose.lines)) if whose is not None else ("", [])


def _others(c: Ctx, ini: RankView, m: Match, got: Reply) -> Part:
    """The other ranks weighed: the named ones (else every collateral one), how they ended."""
    named = [x for x in m.ranks if x != ini.rank and x in c.view.ranks]
    told = answer_asks.said(got)
    if named and all(f"rank {x} was collateral" in told for x in named):
        return "", []  # the answer already says how each named rank took part
    return answer_launcher.victims(c, named), []


def _desync(c: Ctx) -> Part:
    """The ranks in different collectives, when the tracebacks show it."""
    return answer_code.collective_rows(c)[1], []


def _step(c: Ctx, m: Match, low: str) -> Part:
    """A step that failed after many passed: the failing rank's own line about that step's batch."""
    if not (STEP_DIFF_Q.search(low) or _SUDDEN.search(low)):
        return "", []
    got = answer_code.batch(c, m)
    return (got.lead, list(got.lines)) if got is not None else ("", [])


def _own_error(c: Ctx, ini: RankView, low: str) -> Part:
    """The failing rank's other error line in its own traceback, and the code line that raised it."""
    if not _WORDING.search(low) or ini.first_line is None:
        return "", []
    _, _, lines = answer_code.traceback(c, ini.rank)
    first = _ERROR.search(ini.first_line.text)
    for i, ln in enumerate(lines):
        err = _ERROR.search(ln.text)
        if err is None or (first is not None and err.group(1) == first.group(1)):
            continue
        prev = lines[i - 1] if i > 0 and not _ERROR.search(lines[i - 1].text) else None
        code = prev.text.split("]:", 1)[-1].strip() if prev is not None else ""
        at = tc.RAISED_AT.format(code=code, ref=ref(prev)) if prev is not None and code else ""
        said = tc.OWN_ERROR.format(rank=ini.rank, error=err.group(0).strip(), ref=ref(ln), at=at)
        return said, [x for x in (prev, ln) if x is not None]
    return "", []


__all__ = ["BLAME_Q", "DOUBT_Q", "NEED_Q", "contested", "root_cause"]
