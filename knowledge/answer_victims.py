"""Who waited on whom, asked in the reader's words: "ranks 1 and 3 died inside reduce_metric: do I need
to change that function, or are they just victims?", "what's the evidence 1 and 3 were waiting on rank
2 and not the other way round?", "why did they take ten minutes to notice?", "what's rank 0's last
line compared to what rank 2 died with?", "rank 5's own log say what error? not dmesg".

Why: each was answered with the first rank's own failure (its frame, its phase, its fix) and left the
asked ranks out: the function the waiting ranks sat in, the gloo error that shows their peer had gone,
the watchdog's timeout that made them wait, the line a named rank died with, the rank's own error line
when the kernel's is not the one wanted. Each check delegates to the answer that already says the fact
(`answer_blame`, `answer_waitout`, `answer_where`) once the message asks it, or quotes the ranks' lines.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_victims as tv
from knowledge import answer_blame, answer_code, answer_waitout, answer_where
from knowledge.answer_asks import said, with_lead
from knowledge.answer_join import first
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match, named_ranks

#: "why did they take ten minutes to notice?", "why so long before the others failed?"
SLOW_Q = re.compile(
    r"\b(?:why|how come)\b[^?]{0,60}\b(?:take|took|takes|taken|need|needed)\b[^?]{0,20}"
    r"\b(?:\d+|ten|five|several|a few|so long|that long|so much time|minutes)\b[^?]{0,40}"
    r"\b(?:notice|detect|realiz|react|fail|die|time ?out|give up|error|exit|crash)\w*"
    r"|\bwhy (?:so long|the (?:long )?wait)\b[^?]{0,40}\b(?:notice|fail|die|time ?out|give up)\w*"
)
#: "do I need to change that function", "should I fix reduce_metric?", "or are they just victims?"
CHANGE_Q = re.compile(
    r"\b(?:do|should|must|shall|would) (?:i|we) (?:\w+ )?(?:need to |have to )?"
    r"(?:change|fix|rewrite|modify|touch|patch|edit|refactor)\b"
    r"|\b(?:are|were) (?:they|those|these) (?:just |only |simply |merely )?"
    r"(?:victims|collateral|bystanders)\b"
)
#: a call or function named in the message: `reduce_metric`, `dist.barrier()`, a collective's name
_NAME = re.compile(
    r"\b([a-z_][a-z0-9_]*_[a-z0-9_]+|[a-z_][\w.]*\(\)|barrier|allreduce|broadcast|backward|allgather)"
)
#: what shows who waited on whom ("evidence 1 and 3 were waiting on rank 2", "not the other way round")
PROOF_Q = re.compile(
    r"\b(?:evidence|proof|prove|what shows|how (?:do|can|did) (?:you|we|u) (?:know|tell)"
    r"|why do (?:you|we) (?:say|think))\b[^?]{0,80}\b(?:wait\w*|blocked|stuck)\b[^?]{0,30}\b(?:on|for)\b"
    r"|\bother way (?:round|around)\b|\b(?:wasn\W?t|was not|isn\W?t|is not) the one waiting\b"
)
#: "what rank 2 died with", "rank 2 error", "what did rank 2 fail with"
DIED_Q = re.compile(
    r"\b(?:what|wat) (?:rank ?\d+|it|they) (?:died|failed|crashed|errored|exited|ended) with\b"
    r"|\bwhat did (?:rank ?\d+|it) (?:die|fail|crash|error out|exit) with\b"
    r"|\brank ?\d+s? (?:own )?(?:error|exception|failure line|crash message)\b"
)
_DIED_RANK = re.compile(
    r"\b(?:what|wat) rank ?(\d+) (?:died|failed|crashed|errored|exited|ended) with\b"
    r"|\bwhat did rank ?(\d+) (?:die|fail|crash|error out|exit) with\b"
    r"|\brank ?(\d+)s? (?:own )?(?:error|exception|failure line|crash message)\b"
)
#: the rank's own log is asked, not the kernel's ("not dmesg, the rank log")
_NOT_KERNEL = re.compile(r"\bnot (?:the )?(?:dmesg|kernel(?: log)?|syslog|node log)\b|\bown log\b|\bitself\b")
#: the process's own side, not the kernel's ("last error line from the app side", "the application's
#: error", "what did the python process log")
_APP_SIDE = re.compile(
    r"\b(?:app|apps|application|python|process|program|script|user[- ]?space|framework|pytorch|torch)"
    r"(?:'s)?[- ](?:side|level|log|logs|error|errors|own)\b|\bfrom the (?:app|application|python|process)\b",
    re.IGNORECASE,
)


def slow_notice(c: Ctx, m: Match) -> Reply | None:
    """ "Why did they take ten minutes to notice?": the collective they sat in and the timeout."""
    if not SLOW_Q.search(m.text):
        return None
    return answer_waitout.waited_out(c, replace(m, text="how long till the others timed out"))


def change_call(c: Ctx, m: Match) -> Reply | None:
    """ "Do I need to change reduce_metric, or are they victims?": the blame check of the call named."""
    if not CHANGE_Q.search(m.text):
        return None
    for name in dict.fromkeys(_NAME.findall(m.text)):
        got = answer_blame.blame_call(c, replace(m, text=f"is {name.removesuffix('()')} the bug"))
        if got is not None:
            return got
    return None


def _error(ln: EvidenceLine) -> str:
    text = answer_where.strip_prefix(ln.text)
    text = re.sub(r"^\[rank\d+\]:\s*", "", text)
    return text if len(text) <= 140 else text[:140] + "…"


def waited_proof(c: Ctx, m: Match) -> Reply | None:
    """What shows the waiting ranks waited on the first one: their collective and its closed peer, and
    the first rank's own failure in no collective; None when the tracebacks do not show it."""
    ini = c.view.initiating
    if not PROOF_Q.search(m.text) or ini is None or ini.first_line is None:
        return None
    if answer_code.collective_of(c, ini.rank) is not None:
        return None
    coll = [
        (r, got)
        for r in c.view.with_role("collateral")
        if r.first_line is not None and (got := answer_code.collective_of(c, r.rank)) is not None
    ]
    if not coll:
        return None
    r0, (op, where) = coll[0]
    assert r0.first_line is not None
    at = f" ({where})" if where else ""
    parts = [tv.waited(rl(r for r, _ in coll), op, at, _error(r0.first_line), r0.first_line.ref)]
    place = ""
    if (found := answer_code.user_frame(c, ini.rank)) is not None:
        frame, code, _ = found
        file = frame.path.rsplit("/", 1)[-1]
        place = tv.in_code(frame.func, file, frame.number, f": `{code}`" if code else "")
    parts.append(tv.own_failure(ini.rank, _error(ini.first_line), ini.first_line.ref, place))
    return reply("others", " ".join(parts), [r0.first_line, ini.first_line])


def with_died(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the line each rank the message asks "what it died with" failed on, when not quoted."""
    if not DIED_Q.search(text):
        return got
    asked = [int(next(g for g in x.groups() if g)) for x in _DIED_RANK.finditer(text)]
    ini = c.view.initiating
    if not asked and ini is not None:
        asked = [ini.rank]
    told = said(got)
    for rank in dict.fromkeys(asked):
        r = c.view.ranks.get(rank)
        ln = r.first_line if r is not None else None
        if ln is None or _error(ln).lower()[:60] in told:
            continue
        got = with_lead(got, tv.died_with(rank, _error(ln), ln.ref), [ln])
        told = said(got)
    return got


def with_own_log(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` led by the asked rank's own error line when the message asks what its own log said (not
    the kernel's line the answer quotes)."""
    app = _APP_SIDE.search(text) is not None
    if not app and (not answer_where.OWN_LOG_Q.search(text) or not _NOT_KERNEL.search(text)):
        return got
    named = [r for r in named_ranks(text) if r in c.view.ranks]
    r = c.view.ranks[named[0]] if named else c.view.initiating
    if r is None:
        return got
    own, shown = answer_where.own_log(c, r)
    if not own or own.lower()[:50] in said(got):
        return got
    if got.intent == "help" or not got.known:
        return reply("show_lines", own, shown)
    return first(got, own, shown)


__all__ = [
    "CHANGE_Q",
    "PROOF_Q",
    "SLOW_Q",
    "change_call",
    "slow_notice",
    "waited_proof",
    "with_died",
    "with_own_log",
]
