"""How each rank's log ended, told per rank and quoted ("last step each rank logged, and when",
"quote the exact error rank 5 logged before it exited", "paste what rank 5 logged in its last seconds",
"how long until the last rank died").

Why: a reader checking the verdict wants the ranks' own last lines, not the verdict again: the step
line each rank logged last (ranks that agree said once), the failing rank's own error line (not the
kernel's or the launcher's line about it), its last seconds as they were printed, and the spread from
the first rank's failure to the last one's. Each is read from the rank's own lines and times only.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from knowledge import answer_code, answer_overview
from knowledge.answer_job import scheduler_end
from knowledge.answer_types import Ctx, Reply, duration, rank_lines, ref, reply, when
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, seconds_between
from knowledge.lines import parse_timestamp

#: asks for the last step line of every rank ("last step each rank logged", "per-rank last step")
EACH_STEP_Q = re.compile(
    r"\b(?:last|final|latest) (?:logged )?(?:step|iteration)s?\b[^?]{0,40}"
    r"\b(?:each|every|per|all(?: the)?) ?-?ranks?\b"
    r"|\b(?:each|every|per|all(?: the)?) ?-?ranks?\b[^?]{0,30}"
    r"\b(?:last|final|latest) (?:logged )?(?:step|iteration)\b"
)
#: asks how long from the first failure to the last rank's ("time to the last rank dying")
LAST_DEATH_Q = re.compile(
    r"\b(?:time|how long|long|gap|seconds?) (?:to|until|till|before|between \w+ and) (?:the )?last "
    r"(?:rank|one|process|worker)\b"
    r"|\blast (?:rank|one|process|worker) (?:dying|died|to die|to fail|failing|failed|to exit|exited)\b"
)
#: names the scheduler's own line ("quote the slurm line", "the exact cancel message")
SCHEDULER_Q = re.compile(
    r"\b(?:slurm|scheduler|slurmstepd|sbatch|cancel\w*)\b[^?]{0,20}\b(?:line|message|msg)\b"
)
#: doubts one rank is the cause when every rank prints the same error ("all 4 ranks show the same
#: timeout error, so how can one be the cause?"): the first rank's answer says what set it apart
SAME_ERROR_Q = re.compile(
    r"\b(?:all|every|each|both)\b[^?]{0,40}\b(?:same|identical)\b[^?]{0,30}"
    r"\b(?:error|timeout|exception|message|line|traceback)s?\b[^?]{0,60}"
    r"\b(?:the cause|caused|blame\w*|culprit|root|started|fault)\b"
)
#: asks for the words themselves
_QUOTE = re.compile(r"\bquote\b|\bpaste\b|\bexact(?:ly)?\b|\bverbatim\b|\bword for word\b")
#: asks for the rank's own error line ("quote the exact error rank 5 logged before it exited")
OWN_ERROR_Q = re.compile(
    r"\b(?:error|exception|message)\b[^?]{0,40}\b(?:logged|printed|wrote|raised|threw|said|spat out)\b"
    r"|\b(?:its|it's|their) own (?:error|exception|message|line)\b"
    # "what did rank 5 actually print from CUDA (exact string)", "what exactly did rank 0 print"
    r"|\bwhat (?:exactly )?did (?:rank \d+|r\d+|it|that rank) (?:actually |really |exactly )?"
    r"(?:print|log|say|write|spit out|throw|raise)\b"
)
#: asks where in the code too ("verbatim error + file:line for the ticket")
_FILE_LINE = re.compile(r"\bfile ?: ?line\b|\bwhich line\b|\bline (?:number|no)\b")
#: asks for everything the rank printed in its last moments ("paste everything rank 5 logged in the
#: last few seconds before the OOM", "dump rank 5's final lines before it died")
TAIL_Q = re.compile(
    r"\b(?:everything|all (?:the )?(?:lines|output)|(?:last|final) (?:few |\d+ )?(?:lines|seconds|secs"
    r"|moments))\b[^?]{0,60}\b(?:before|leading up|up to|prior)\b"
    r"|\b(?:last|final) (?:few |couple (?:of )?)?(?:seconds|secs|moments)\b"
)
#: a rank's error line: an exception's `Name: message`, or a line its logger marked as an error
_ERROR = re.compile(r"\b\w*(?:Error|Exception)\b:|\[ERROR\]|\bERROR\b")
_NOT_ERROR = re.compile(r"\bexit(?:ing|ed)? with (?:exit )?code\b|\bfailed\b\s*$", re.IGNORECASE)
#: a tail's window: the seconds before the rank's failure that are "its last few seconds"
TAIL_SECONDS = 10.0
TAIL_MAX = 6


def ending(c: Ctx, m: Match) -> Reply | None:
    """The ending asked about, per rank and quoted; None when the ask is about none of these."""
    if SAME_ERROR_Q.search(m.text):
        return answer_overview.rank_why(c, m)
    if EACH_STEP_Q.search(m.text):
        return each_step(c, m)
    if LAST_DEATH_Q.search(m.text):
        return last_death(c)
    if not _QUOTE.search(m.text) and not TAIL_Q.search(m.text):
        return None
    r = _asked(c, m)
    if r is None:
        return None
    if TAIL_Q.search(m.text):
        return tail(c, r)
    if not OWN_ERROR_Q.search(m.text) or (got := own_error(c, r)) is None:
        return None
    return _with_frame(c, r, got) if _FILE_LINE.search(m.text) else got


def _with_frame(c: Ctx, r: RankView, got: Reply) -> Reply:
    """The error line, then the user's own line it failed in (`train.py line 166, in save_checkpoint`)."""
    found = answer_code.user_frame(c, r.rank)
    if found is None:
        return got
    frame, code, _ = found
    said = tff.OWN_ERROR_FRAME.format(
        file=frame.path.rsplit("/", 1)[-1], line=frame.number, func=frame.func, ref=ref(frame.line)
    )
    said += f" `{code}`" if code else ""
    return reply(got.intent, f"{got.lead} {said}", [*got.lines, frame.line])


def scheduler_quote(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """The scheduler's own end line, quoted, when the ask wants it quoted ("quote the slurm line")."""
    if not _QUOTE.search(m.text) or not SCHEDULER_Q.search(m.text) or (end := scheduler_end(c)) is None:
        return "", []
    return tff.SCHEDULER_LINE.format(ref=ref(end.line), text=end.line.text.strip()[:240]), [end.line]


def _asked(c: Ctx, m: Match) -> RankView | None:
    v = c.view
    return v.ranks.get(m.rank) if m.rank is not None else v.initiating


def each_step(c: Ctx, m: Match) -> Reply | None:
    """Each rank's last logged step and its time, ranks that agree grouped (none: None)."""
    groups: dict[tuple[int | None, str], list[RankView]] = {}
    for r in sorted(c.view.ranks.values(), key=lambda x: x.rank):
        stamp = _stamp_of(r.last_step_line)
        groups.setdefault((r.last_step, stamp), []).append(r)
    if all(step is None for step, _ in groups):
        return None
    parts, shown = [], []
    for (step, stamp), ranks in groups.items():
        first = ranks[0].last_step_line
        if step is None or first is None:
            parts.append(tff.EACH_STEP_NONE.format(ranks=_ranks(ranks)))
            continue
        at = f" at {stamp}" if stamp else ""
        parts.append(tff.EACH_STEP.format(ranks=_ranks(ranks), step=step, at=at, ref=ref(first)))
        shown.append(first)
    return reply("activity", tff.EACH_STEP_LEAD + " " + "; ".join(parts) + ".", shown)


def _ranks(ranks: list[RankView]) -> str:
    return f"rank {ranks[0].rank}" if len(ranks) == 1 else f"ranks {rl(ranks)}"


def _stamp_of(line: EvidenceLine | None) -> str:
    st = parse_timestamp(line.text) if line is not None else None
    if st is None or st.relative or (iso := st.iso()) is None:
        return ""
    return iso.replace("T", " ")[:19] + " UTC"


def last_death(c: Ctx) -> Reply | None:
    """The first rank's failure, the last rank's, and the time between; the last step any rank logged."""
    timed = [r for r in c.view.ranks.values() if r.first_time and r.role in ("initiating", "collateral")]
    if len(timed) < 2:
        return None
    first = min(timed, key=lambda r: ((r.first_time or "")[:19], r.role != "initiating", r.rank))
    last = max(timed, key=lambda r: (r.first_time or "", r.rank))
    gap = seconds_between(first.first_time, last.first_time)
    if gap is None:
        return None
    said = [
        tff.LAST_DEATH.format(
            first=first.rank,
            first_at=when(first.first_time),
            last=last.rank,
            last_at=when(last.first_time),
            gap=f"about {gap:.0f} s" if 1 <= gap < 10 else duration(gap),
        )
    ]
    stepped = [r for r in timed if r.last_step is not None and r.last_step_line is not None]
    shown = [ln for ln in (first.first_line, last.first_line) if ln is not None]
    top = max(stepped, key=lambda r: (r.last_step or 0, -r.rank), default=None)
    if top is not None and top.last_step_line is not None:
        step_ref = ref(top.last_step_line)
        said.insert(0, tff.LAST_STEP_ANY.format(step=top.last_step, rank=top.rank, ref=step_ref))
        shown.insert(0, top.last_step_line)
    return reply("when", " ".join(said), shown)


def _own(c: Ctx, r: RankView) -> list[EvidenceLine]:
    """The rank's own log (the source with most of its lines), in order."""
    by = rank_lines(c, r.rank)
    return max(by.values(), key=len, default=[])


def own_error_line(c: Ctx, r: RankView) -> EvidenceLine | None:
    """The rank's own last error line in its own log (`CUDA error: unspecified launch failure`), which
    may not be the line that named its failure (the kernel's Xid line)."""
    errors = [ln for ln in _own(c, r) if _ERROR.search(ln.text) and not _NOT_ERROR.search(ln.text)]
    return errors[-1] if errors else None


def own_error(c: Ctx, r: RankView) -> Reply | None:
    """The rank's own last error line before it exited, quoted with its place."""
    line = own_error_line(c, r)
    if line is None:
        return None
    shown = [line, *([r.exit_line] if r.exit_line is not None and r.exit_line != line else [])]
    said = tff.OWN_ERROR.format(rank=r.rank, ref=ref(line), text=line.text.strip()[:240])
    return reply("quote", said, shown)


def tail(c: Ctx, r: RankView) -> Reply | None:
    """The rank's lines from its last seconds before its failure, as printed (a traceback's frames cut
    to its last line: the error itself)."""
    lines = _own(c, r)
    end = parse_timestamp(r.first_time.replace("T", " ")[:23]) if r.first_time else None
    if not lines or end is None or end.relative:
        return None
    timed = [(ln, st) for ln in lines if (st := parse_timestamp(ln.text)) is not None and not st.relative]
    recent = [ln for ln, st in timed if end.value - TAIL_SECONDS <= st.value <= end.value + 1]
    if not recent:
        return None
    shown = recent[-TAIL_MAX:]
    extra = [ln for ln in (r.first_line, r.exit_line) if ln is not None and ln not in shown]
    shown = sorted([*shown, *extra], key=lambda ln: (ln.source, ln.line))
    lead = tff.TAIL.format(rank=r.rank, n=len(shown), src=shown[0].source, at=when(r.first_time))
    return reply("quote", lead, shown)
