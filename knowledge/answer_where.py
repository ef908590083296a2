"""Where the ranks were, and what their own logs said, when the job failed.

Why: "why did ranks 1-3 die too?", "where were the others sitting?", "what did that rank's log say?"
are answered by each rank's own lines: the collective and the line of the user's code their
tracebacks stop in, the rank's own error line (not the kernel's), the step lines' timestamps. The
engine's verdict names the rank; these facts show where it and the others were.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_job as tj
from denpex.core.texts import thread as t
from knowledge import answer_code
from knowledge.answer_types import Ctx, Reply, at_rank, duration, rank_lines, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, seconds_between
from knowledge.lines import parse_step, parse_timestamp

#: a question that asks where ranks were ("where were r1-r3 sitting", "who hung and where")
WHERE_Q = re.compile(
    r"\bwhere (?:were|was|are|is|did) (?:the )?(?:ranks?|r\d|others?|rest|they|it|each|every)\b"
    r"(?! (?:\w+ )?(?:run\w*|ran|located|hosted|on|placed|scheduled)\b)"
    r"|\b(?:and|hung|stuck|waiting|sitting) where\b"
    r"|\bwhere (?:\w+ ){0,4}?(?:(?:were|was|are|is) )?(?:sitting|stuck|waiting|hung|blocked)\b"
)
#: a question about how fast the steps went ("secs per step?", "step time", "how fast was it going")
RATE_Q = re.compile(
    r"\b(?:secs?|seconds?|s|time|how long|mins?|minutes?) (?:per|a|each|for each|/) ?(?:step|iter\w*|it)\b"
    r"|\bstep ?(?:time|rate|speed)s?\b|\bit/s\b|\bthroughput\b|\bhow fast\b"
    r"|\bsteps? per (?:sec\w*|min\w*|hour)\b"
)
#: a question about what a rank's own log said
OWN_LOG_Q = re.compile(
    r"\b(?:its|their|the rank'?s?|rank \d+'?s?) (?:own )?(?:log|stderr|stdout|output)\b"
    r"|\bwhat did (?:it|that rank|the rank|rank \d+) (?:itself |themselves |on its own )?"
    r"(?:log|say|print|write)\b"
    r"|\blog(?:s|ged)? say\b|\brank \d+ itself\b"
    # "did it print any error at all": whether the rank wrote an error of its own
    r"|\b(?:print|log|write|say|show)\w* (?:any|an|some|its own)(?: \w+)? (?:error|message|exception)s?\b"
)
#: an error line a rank printed itself
_ERROR = re.compile(r"\b\w*(?:Error|Exception)\b|\berror\b|\bfailure\b|\bfailed\b", re.I)
#: the launcher's report about a rank (torchrun's `failed (exitcode: -9) local_rank: 2`), not the rank's
_LAUNCHER = re.compile(r"torch\.distributed\.elastic|elastic/multiprocessing|\bexitcode\b|\blocal_rank: \d")
#: lines that are not the rank's own log (the kernel's, the scheduler's, the launcher's)
_NOT_OWN = re.compile(r"dmesg|kern|syslog|journal|slurm", re.I)


def _frame(c: Ctx, rank: int) -> tuple[str, int, str, str] | None:
    found = answer_code.user_frame(c, rank)
    if found is None:
        return None
    frame, code, _ = found
    return frame.path.rsplit("/", 1)[-1], frame.number, frame.func, code


def collateral_place(c: Ctx, r: RankView) -> str:
    """Where a collateral rank was when it failed: the collective its traceback stops in and the
    user's line that called it, else its deepest frame in the user's code; "" when none is saved."""
    ini = c.view.initiating
    if ini is None or r.role != "collateral":
        return ""
    got = answer_code.collective_of(c, r.rank)
    if got is not None:
        op, where = got
        text = tj.WAITED_IN if where else tj.WAITED_IN_BARE
        return text.format(op=op, where=where, ini=ini.rank)
    frame = _frame(c, r.rank)
    if frame is None:
        return ""
    file, line, func, code = frame  # "loss.backward()": the call says which collective it was under
    return tj.DEEPEST_AT.format(func=func, file=file, line=line, code=f": `{code}`" if code else "")


def group_place(c: Ctx, ranks: list[RankView]) -> str:
    """Where a group of collateral ranks waited, when each one's traceback stops in the same collective
    at the same line of the user's code ("ranks 1-3: all just in a barrier?"); "" otherwise."""
    ini = c.view.initiating
    if ini is None or len(ranks) < 2 or any(r.role != "collateral" for r in ranks):
        return ""
    found = {answer_code.collective_of(c, r.rank) for r in ranks}
    if len(found) != 1 or (got := found.pop()) is None or not got[1]:
        return ""
    return tj.WAITED_IN_ALL.format(ranks=rl(ranks), op=got[0], where=got[1], ini=ini.rank)


def places(c: Ctx) -> str:
    """Where the first rank failed in the user's code, and where the collateral ranks were then."""
    ini = c.view.initiating
    if ini is None:
        return ""
    parts = []
    if (frame := _frame(c, ini.rank)) is not None:
        file, line, func, code = frame
        shown = f": `{code}`" if code else ""
        parts.append(tj.FAILED_IN.format(rank=ini.rank, func=func, file=file, line=line, code=shown))
    coll = {r.rank for r in c.view.with_role("collateral")}
    rows = [
        tf.collective_row(rl(sorted(ranks & coll)), op, at) for (op, at), ranks in _by_op(c) if ranks & coll
    ]
    if rows:
        parts.append(tj.OTHERS_WERE.format(ini=ini.rank, rows="; ".join(rows)))
    stepped = [r for r in c.view.ranks.values() if r.last_step is not None and r.last_step_line is not None]
    if ini.last_step is None and stepped:
        top = max(stepped, key=lambda r: (r.last_step or 0, -r.rank))
        assert top.last_step_line is not None
        parts.append(
            tj.OTHERS_STEP.format(
                ini=ini.rank, step=top.last_step, rank=top.rank, ref=ref(top.last_step_line)
            )
        )
    return " ".join(parts)


def _by_op(c: Ctx) -> list[tuple[tuple[str, str], set[int]]]:
    """The ranks whose tracebacks stop in each collective, by collective and the user's line."""
    by_op: dict[tuple[str, str], set[int]] = {}
    for rank in sorted(c.view.ranks):
        if (got := answer_code.collective_of(c, rank)) is not None:
            by_op.setdefault(got, set()).add(rank)
    return list(by_op.items())


def what_failed(c: Ctx, r: RankView, text: str) -> str:
    """ "What failed: a CUDA out-of-memory error (`torch.OutOfMemoryError: CUDA out of memory.`)": a
    time answer that also names the failure, so a one-line ticket has the cause with the time."""
    if r.first_line is None or not r.category:
        return ""
    what = t.category_words(r.category)
    quoted = strip_prefix(_raised(c, r) or r.first_line.text)
    if quoted.startswith("File "):
        return ""
    short = re.split(r"(?<=[.!])\s", quoted, maxsplit=1)[0][:160]
    if what.lower() in text.lower() or short in text:
        return ""
    return tj.FAILED_WITH.format(what=what, text=short)


#: the exception a traceback ends with ("torch.OutOfMemoryError: CUDA out of memory. …")
_RAISED = re.compile(r"\b[\w.]*(?:Error|Exception):\s")


def _raised(c: Ctx, r: RankView) -> str:
    """The exception line of the rank's own traceback, at or after its first failure line."""
    first = r.first_line
    for lines in rank_lines(c, r.rank).values():
        for ln in lines:
            after = first is None or ln.source != first.source or ln.line >= first.line
            if after and _RAISED.search(ln.text):
                return ln.text
    return ""


def own_error(c: Ctx, r: RankView) -> EvidenceLine | None:
    """The first error line the rank printed in its own log after its last step (not the kernel's)."""
    after = r.last_step_line.line if r.last_step_line is not None else 0
    for source, lines in rank_lines(c, r.rank).items():
        if _NOT_OWN.search(source):
            continue
        for ln in lines:
            same = r.last_step_line is None or ln.source == r.last_step_line.source
            if (not same or ln.line > after) and _ERROR.search(ln.text) and not _LAUNCHER.search(ln.text):
                return ln
    return None


def own_log(c: Ctx, r: RankView) -> tuple[str, list[EvidenceLine]]:
    """ "Rank 5's own log says (rank5.log:207): `RuntimeError: CUDA error: …`", when it has one."""
    ln = own_error(c, r)
    if ln is None:
        last = r.last_step_line
        later = last is not None and any(
            ln.source == last.source and ln.line > last.line
            for lines in rank_lines(c, r.rank).values()
            for ln in lines
        )
        if last is None or r.last_step is None or later:  # it logged on after its step: it did not stop there
            return tj.OWN_LOG_NONE.format(rank=r.rank), []
        # a clean log that stops is the silent rank's, not a healthy one's: where it stopped, and when
        stamp = parse_timestamp(last.text)
        when = "" if stamp is None or stamp.relative else f", {utc_time(stamp.value)} UTC"
        stops = tj.OWN_LOG_STOPS.format(step=r.last_step, ref=ref(last), when=when)
        return f"{tj.OWN_LOG_NONE.format(rank=r.rank)} {stops}", [last]
    if r.first_line is not None and ln == r.first_line:
        return "", []
    text = strip_prefix(ln.text)[:200]
    return tj.OWN_LOG.format(rank=r.rank, ref=ref(ln), text=text), [ln]


def utc_time(value: float) -> str:
    """A stamp's wall-clock time, `03:00:02`."""
    return datetime.fromtimestamp(value, UTC).strftime("%H:%M:%S")


_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*(?:\[[^\]]*\]\s*)*")


def strip_prefix(text: str) -> str:
    """A log line without its launcher, timestamp and level prefixes."""
    return _PREFIX.sub("", text.strip()).strip() or text.strip()


_SAVE = re.compile(r"\bsav(?:e|ing)\b|checkpoint|\bfail\w*|\berror\b", re.IGNORECASE)


def step_rate(c: Ctx) -> str:
    """How long a step took, from the timestamps of the step lines one rank logged last."""
    best: list[tuple[float, int]] = []
    for tail in c.d.tails:
        got = []
        for ln in tail.lines:
            step, stamp = parse_step(ln.text), parse_timestamp(ln.text)
            if step is not None and stamp is not None and not stamp.relative and not _SAVE.search(ln.text):
                got.append((stamp.value, step))
        best = got if len(got) > len(best) else best
    if len(best) < 2 or best[-1][1] <= best[0][1]:
        return ""
    span = best[-1][0] - best[0][0]
    per = span / (best[-1][1] - best[0][1])
    if per <= 0:
        return ""
    return tj.STEP_RATE.format(secs=_secs(per), first=best[0][1], last=best[-1][1], span=_secs(span))


def _secs(value: float) -> str:
    """`35 ms`, `2.1 s`, `4 s`, `297 s (5 min)`: a short time as a step rate is read."""
    if value < 1:
        return f"{value * 1000:.0f} ms"
    if value < 10:
        return f"{value:.1f} s".replace(".0 s", " s")
    return duration(value)


def compare(c: Ctx, m: Match) -> Reply | None:
    """Two named ranks' first failures, the earlier first ("did rank 5 die before or after rank 0?")."""
    pair = [c.view.ranks.get(x) for x in m.ranks[:2]]
    a, b = pair
    if a is None or b is None or not a.first_time or not b.first_time:
        return None
    gap = seconds_between(a.first_time, b.first_time)
    if gap is None:
        return None
    first, second = (a, b) if gap >= 0 else (b, a)
    lead = tf.compare_times(
        first.rank, at_rank(first), second.rank, at_rank(second), duration(gap) if gap else ""
    )
    lines = [x.first_line for x in (first, second) if x.first_line is not None]
    return reply("when", lead, lines)


#: a question that asks about the batch a rank was on ("whats the batch shape", "long-seq batch?")
BATCH_Q = re.compile(
    r"\bbatch(?:es)? (?:shape|size|len\w*)\b|\bseq(?:uence)?[ _-]?len\w*\b|\blong[ -]?seq\w*\b"
    r"|\bbatch shape\b|\blongest sample\b|\b(?:long|big|large) (?:batch|sample|input)\b"
    r"|\bbatch (?:look|looked|looks) like\b|\bwhat (?:did|was|were) the batch\b"
)
#: "why rank 5 and not rank 0", "same config on every rank": what set this rank apart
APART_Q = re.compile(
    r"\band not (?:rank|r)\s?\d+\b|\bnot (?:the )?others?\b|\bsame (?:config|settings|setup|model|code)\b"
)
#: the router's own "why only rank 5?" test, which adds the batch line itself
_ONLY = re.compile(
    r"\bwhy (?:only|just) rank \d+\b|\bwhy rank \d+ and not\b|\bwhy only (?:that|this|one) rank\b"
)


def batch_said(c: Ctx, m: Match, text: str) -> tuple[str, list[EvidenceLine]]:
    """The rank's last batch line, when the question asks about its batch or what set it apart."""
    asked = BATCH_Q.search(m.text) or (APART_Q.search(m.text) and not _ONLY.search(m.text))
    if not asked or (got := answer_code.batch(c, m)) is None or got.lead in text:
        return "", []
    return got.lead, list(got.lines)


def rank_extra(c: Ctx, m: Match, r: RankView, text: str) -> tuple[str, list[EvidenceLine]]:
    """What a rank's "why" adds: where a collateral rank waited, a first rank's batch when asked."""
    if r.role == "collateral":
        place = collateral_place(c, r)
        got = answer_code.collective_of(c, r.rank)
        if not place or (got is not None and f"`{got[0]}`" in text) or answer_code.desync_note(c):
            return "", []
        return place, []
    if r.role == "initiating" and OWN_LOG_Q.search(m.text):  # "what did rank 5 itself print"
        own, shown = own_log(c, r)
        if own and own not in text:
            return own, shown
    if r.role == "initiating":
        return batch_said(c, m, text)
    return "", []


def which_extra(c: Ctx, m: Match, r: RankView | None, text: str) -> tuple[str, list[EvidenceLine]]:
    """What "which rank" adds when also asked where they were or what its own log said."""
    said: list[str] = []
    lines: list[EvidenceLine] = []
    if WHERE_Q.search(m.text) and (where := places(c)) and where not in text:
        said.append(where)
    if r is not None and OWN_LOG_Q.search(m.text):
        own, shown = own_log(c, r)
        if own and own not in text:
            said.append(own)
            lines += shown
    return " ".join(said), lines


__all__ = [
    "APART_Q",
    "BATCH_Q",
    "OWN_LOG_Q",
    "RATE_Q",
    "WHERE_Q",
    "batch_said",
    "collateral_place",
    "compare",
    "own_error",
    "own_log",
    "places",
    "rank_extra",
    "step_rate",
    "strip_prefix",
    "what_failed",
    "which_extra",
]
