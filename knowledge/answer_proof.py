"""The lines themselves, asked as proof: a failed write's error text, the scheduler's kill line, and
what a silent rank was doing when its logs hold nothing about it.

Why: "what's the actual error text from the write? ENOSPC or something else?" got ENOSPC's meaning, not
the printed text (`unexpected pos 1088 vs 982`), which does not say ENOSPC; "where's the line proving
slurm killed it for time and not a crash?" got the help reply; "what exactly was rank 3 doing: a python
loop, I/O, a deadlock?" for a rank that printed no stack got the others' tracebacks, when the honest
answer is that its lines cannot tell, with what would (py-spy).
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_howfar as tx
from knowledge import answer_ending, answer_job, answer_silent
from knowledge.answer_types import Ctx, Reply, at_rank, rank_lines, ref, reply
from knowledge.intents import Match

#: asks for the error's own words ("the actual error text", "exact error message", "raw exception")
ERROR_TEXT_Q = re.compile(
    r"\b(?:actual|exact|real|raw|full|literal|verbatim)\s+(?:error|exception)\b"
    r"|\b(?:error|exception) (?:text|message|msg|string|output)\b"
)
_SAID_Q = re.compile(r"\bdid (?:it|the (?:error|log|write|save)) (?:literally |actually |really )?say\b")
_HOW_TO = re.compile(r"\bhow (?:do|can|could|would|should|to)\b|\bshow up\b")
#: an errno or its words named in the ask ("ENOSPC", "errno 28", "no space left")
_TOKEN = re.compile(
    r"\b(ENOSPC|EDQUOT|EIO|EROFS|EACCES|EPERM|ENOMEM|ENOENT|EFBIG|EPIPE|EAGAIN|ETIMEDOUT|ECONNRESET"
    r"|ECONNREFUSED|EADDRINUSE|errno \d+|no space left(?: on device)?|disk quota exceeded)\b",
    re.IGNORECASE,
)
_ERROR = re.compile(r"\b\w*(?:Error|Exception)\b:")
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")
#: asks for the line that proves the scheduler ended it ("the line proving slurm killed it for time")
KILL_LINE_Q = re.compile(
    r"\b(?:prov\w*|proof|evidence)\b[^?]{0,40}"
    r"\b(?:slurm|scheduler|time ?limit|for time|out of time|timed out|cancel\w*)\b"
    r"|\b(?:slurm|scheduler)\b[^?]{0,40}\b(?:proof|evidence)\b"
)
#: asks what a rank was doing inside its code, guesses offered or not
DOING_Q = re.compile(
    r"\bwhat (?:exactly )?(?:was|were|is) (?:rank \d+|r\d+|it|the rank|that rank) (?:actually |really )?"
    r"(?:doing|up to|stuck (?:on|in|at))\b"
    r"|\b(?:stuck|spinning|hung|hanging|blocked) in (?:a |an |the )?(?:python |busy )?"
    r"(?:loop|i/?o|io|deadlock)\b"
)


def error_text(c: Ctx, m: Match) -> Reply | None:
    """The failing rank's own error lines, as printed, in order; an errno the ask names is looked for
    in them and said missing when it is."""
    said_q = _SAID_Q.search(m.text) and _TOKEN.search(m.text)  # "did it literally say ENOSPC?"
    if not (ERROR_TEXT_Q.search(m.text) or said_q) or _HOW_TO.search(m.text):
        return None  # "how do i see the real error from the worker": how to surface it, not its text
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if r is None:
        return None
    own = max(rank_lines(c, r.rank).values(), key=len, default=[])
    seen: dict[str, object] = {}
    errors = []
    for ln in own:
        body = _PREFIX.sub("", ln.text.strip())
        if _ERROR.search(body) and body not in seen:
            seen[body] = ln
            errors.append((body, ln))
    if not errors:
        return None
    errors = errors[-3:]
    quoted = "; ".join(tx.ERROR_LINE.format(text=b[:240], ref=ref(ln)) for b, ln in errors)
    said = [f"{tx.ERROR_TEXT.format(rank=r.rank)} {quoted}."]
    if (tok := _TOKEN.search(m.text)) is not None:
        token = tok.group(1).upper() if tok.group(1).isalpha() else tok.group(1)
        found = any(token.lower() in b.lower() for b, _ in errors)
        said.append((tx.ERRNO_PRESENT if found else tx.ERRNO_ABSENT).format(token=token))
    return reply("quote", " ".join(said), [ln for _, ln in errors])


def kill_line(c: Ctx, m: Match) -> Reply | None:
    """The scheduler's `CANCELLED … DUE TO …` line, quoted with its place, and whether any rank failed
    on its own before it (a crash would show there)."""
    if not KILL_LINE_Q.search(m.text) or (end := answer_job.scheduler_end(c)) is None:
        return None
    ini = c.view.initiating
    if ini is None:
        why = tx.KILL_WHY_NO_RANK
    else:
        why = tx.KILL_WHY_RANK.format(rank=ini.rank, at=at_rank(ini), ref=ref(ini.first_line))
    lead = tx.KILL_LINE.format(ref=ref(end.line), text=end.line.text.strip()[:240], why=why)
    return reply("show_lines", lead, [end.line])


def silent_doing(c: Ctx, m: Match) -> Reply | None:
    """For a rank that started it in silence (no stack, no error of its own): that its lines cannot
    tell what it was doing, when it went quiet, and what would show it next time."""
    if not DOING_Q.search(m.text):
        return None
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if r is None or not answer_silent.silent(r) or answer_ending.own_error_line(c, r) is not None:
        return None
    lead = " ".join(
        [tx.SILENT_DOING.format(rank=r.rank), answer_silent.quiet(c, r), answer_silent.next_steps(c, r)]
    )
    lines = [x for x in (r.first_line,) if x is not None]
    return reply("activity", lead, lines)


__all__ = ["error_text", "kill_line", "silent_doing"]
