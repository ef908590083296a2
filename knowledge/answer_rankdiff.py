"""The ranks side by side: "did every rank see the error or just one?", "what did rank 0 do
differently?", "how is rank 3 any different from the other three?", "what does rank 2's log show that
theirs don't?", "which rank's log ends last?", "did all 8 start saving at the same time?".

Why: a comparison is answered by each rank's role, its first failure line and time, and its last line
of work before that (the step it reached, the batch it took, the save it started), grouped where ranks
did the same; then the collective each traceback stops in, and, when the others timed out in a
watchdog, that the initiating rank's own lines have none. Only lines of this job are quoted.
"""

from __future__ import annotations

import re
from datetime import datetime

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_rankdiff as tx
from knowledge import answer_code
from knowledge.answer_types import Ctx, Reply, at_rank, duration, rank_lines, rank_list, ref, reply, when
from knowledge.answer_where import strip_prefix
from knowledge.intents import Match, named_ranks
from knowledge.jobfacts_answers import RankView
from knowledge.lines import parse_timestamp

_RANKS = r"(?:ranks?\b|others?\b|\bthem\b|\bthey\b|\btheirs\b|\bworkers?\b)"
#: asks that set ranks against each other
COMPARE = re.compile(
    r"\b(?:did|do|does|have|were|was) (?:every|all|each|both|the other|other|all the other"
    r"|all (?:of )?the|all \d+)\b[^?]{0,50}?"
    r"(?:\bor (?:was |were |did )?(?:just|only|rank \d+)\b|\bat the same time\b|\btoo\b|\balso\b)"
    r"|\bdiffer(?:ent(?:ly)?|ence|s|ed)?\b"
    r"|\bshows? that (?:theirs|the others?'?s?|their)\b"
    r"|\bthat (?:theirs|the others'?s?) (?:don'?t|didn'?t|do not)\b"
    r"|\b(?:is ?n'?t|not) in (?:theirs|the others'?s?)\b"
    r"|\b(?:ends?|ended|stops?|stopped|finish(?:es|ed)?) (?:last|latest|later)\b"
    r"|\bat the same time\b"
    r"|\bor (?:just|only) (?:one|rank \d+)\b"
)
#: asks it leaves to others: why it happened, a fix, a count, a guess at the cause
_NOT = re.compile(
    r"\b(?:fix|restart|resume|how many|count|confidence|if we|would|should)\b"
    r"|\bdiffer\w* from (?:an?|this|that)\b"
)
_FAILS = re.compile(r"error|exception|traceback|\bfail|killed|watchdog|oom|signal|exit|terminate|abort", re.I)
_WORK = re.compile(r"\bstep|\bbatch|\bsav(?:e|ing)\b|checkpoint|\bload|\bdata\b|training|\bepoch", re.I)
_SIGNAL = re.compile(r"\bSignal (\d{1,2}) \((SIG\w+)\)|exitcode\s*:\s*-(\d{1,2})\b.*\((SIG\w+)\)")
_WATCHDOG = re.compile(r"Watchdog caught collective operation timeout")
MAX_QUOTE = 140
MAX_GROUPS = 6


def compare(c: Ctx, m: Match) -> Reply | None:
    """Each rank's role, first line and time and last line of work, grouped; the collectives."""
    q = m.text.lower()
    ini = c.view.initiating
    if ini is None or ini.first_line is None or len(c.view.ranks) < 2:
        return None
    if not COMPARE.search(q) or _NOT.search(q) or not re.search(_RANKS, q):
        return None
    if not named_ranks(m.text) and not re.search(r"\b(?:every|all|each|other|others|theirs|which rank)\b", q):
        return None
    groups = _groups(c)
    if len(groups) > MAX_GROUPS:
        return None
    said: list[str] = []
    shown: list[EvidenceLine] = []
    for members in groups:
        row, lines = _row(c, members)
        said.append(row)
        shown += lines
    said += _extras(c, ini, q)
    rows, odd = answer_code.collective_rows(c)
    if odd or rows:
        said.append(odd or "From their tracebacks: " + "; ".join(rows) + ".")
    return reply("others", " ".join(said), shown)


def _groups(c: Ctx) -> list[list[RankView]]:
    """Ranks that share role, first line and last line of work (numbers aside), initiating first."""
    by: dict[tuple[str, str, str], list[RankView]] = {}
    order = {"initiating": 0, "collateral": 1, "healthy": 2, "missing": 3}
    for r in sorted(c.view.ranks.values(), key=lambda r: (order[r.role], r.rank)):
        before = _before(c, r)
        key = (r.role, _kind(r.first_line), _kind(before))
        by.setdefault(key, []).append(r)
    return list(by.values())


def _kind(line: EvidenceLine | None) -> str:
    if line is None:
        return ""
    text = re.sub(r"\[?rank\d+\]?:?|\[Rank \d+\]", "", strip_prefix(line.text), flags=re.I)
    return re.sub(r"\d+(?:\.\d+)?", "#", text)[:120]


def _row(c: Ctx, members: list[RankView]) -> tuple[str, list[EvidenceLine]]:
    first = members[0]
    one = len(members) == 1
    who = f"Rank {first.rank}" if one else f"Ranks {rank_list(members)}"
    role = tx.ROLE_WORDS[first.role]
    line = first.first_line
    at = at_rank(first)
    if line is None:
        row = tx.RANK_ROW_NONE.format(who=who, role=role, their="its" if one else "their")
    elif (sig := _SIGNAL.search(line.text)) is not None:
        num, name = (sig.group(1), sig.group(2)) if sig.group(1) else (sig.group(3), sig.group(4))
        their = "its" if one else "their"
        row = tx.RANK_SIGNAL.format(
            who=who, role=role, their=their, signal=name, num=num, ref=ref(line), at=at
        )
    else:
        row = tx.RANK_ROW.format(who=who, role=role, text=_short(line.text), ref=ref(line), at=at)
    shown = [line] if line is not None else []
    if (before := _before(c, first)) is not None:
        row += tx.BEFORE.format(ref=ref(before), text=_short(before.text))
        shown.append(before)
    return row, shown


def _before(c: Ctx, r: RankView) -> EvidenceLine | None:
    """The rank's last line of work before its first failure line: a step, a batch, a save, data."""
    first = r.first_line
    found: list[EvidenceLine] = []
    for src, lines in rank_lines(c, r.rank).items():
        for ln in lines:
            if first is not None and src == first.source and ln.line >= first.line:
                break
            if _WORK.search(ln.text) and not _FAILS.search(ln.text):
                found.append(ln)
    limit = _stamp(first) if first is not None else None
    timed = [(s, ln) for ln in found if (s := _stamp(ln)) is not None and (limit is None or s <= limit)]
    if timed:
        return max(timed, key=lambda p: p[0])[1]
    return found[-1] if found else None


def _stamp(line: EvidenceLine) -> float | None:
    got = parse_timestamp(line.text, 2026)
    return got.value if got is not None else None


def _extras(c: Ctx, ini: RankView, q: str) -> list[str]:
    """What sets the initiating rank apart when the others timed out, and whose log ends last."""
    out: list[str] = []
    others = [r for r in c.view.ranks.values() if r.rank != ini.rank]
    if any(r.first_line and _WATCHDOG.search(r.first_line.text) for r in others) and not any(
        _WATCHDOG.search(ln.text) for lines in rank_lines(c, ini.rank).values() for ln in lines
    ):
        out.append(tx.NOT_ON_INI.format(rank=ini.rank, what="watchdog timeout"))
    if re.search(r"\b(?:ends?|ended|stops?|stopped|finish\w*) (?:last|latest|later)\b|\blater\b", q):
        out += _last(c, ini, others)
    return out


def _last(c: Ctx, ini: RankView, others: list[RankView]) -> list[str]:
    timed = [r for r in others if r.first_time and not r.borrowed]
    if not timed or not ini.first_time:
        return []
    latest = max(r.first_time or "" for r in timed)
    last = [r for r in timed if r.first_time == latest]
    gap = _seconds(ini.first_time, latest)
    if gap is None or gap <= 0:
        return []
    who = f"rank {last[0].rank}" if len(last) == 1 else f"ranks {rank_list(last)}"
    return [
        tx.LAST_ENDS.format(
            who=who, at=when(latest), why=tx.LAST_WHY.format(gap=duration(gap), rank=ini.rank)
        )
    ]


def _seconds(a: str, b: str) -> float | None:
    try:
        return (
            datetime.fromisoformat(b.replace("Z", "+00:00"))
            - datetime.fromisoformat(a.replace("Z", "+00:00"))
        ).total_seconds()
    except ValueError:
        return None


def _short(text: str) -> str:
    out = strip_prefix(text)
    out = re.sub(r"\[/[^\]\s]*/([^/\]\s]+)\]", r"[\1]", out)
    return out if len(out) <= MAX_QUOTE else out[: MAX_QUOTE - 1].rsplit(" ", 1)[0] + "…"


__all__ = ["COMPARE", "compare"]
