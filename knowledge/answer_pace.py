"""How fast the steps went, read from the step lines' own timestamps ("was step 2000 slower?").

Why: "was it just slow", "was the last stretch slower", "how long between step 100 and the save" are
answered by the times the step lines carry: the seconds a step took, the last step against the
usual, and the silence from the last step line to the next line and to the failure or kill. A job
whose lines carry no step times gets that said, never a guess.
"""

from __future__ import annotations

import itertools
import re
import statistics
from dataclasses import dataclass

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_job as tj
from knowledge import answer_ending, answer_more
from knowledge.answer_types import Ctx, Reply, duration, rank_lines, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.answer_where import strip_prefix
from knowledge.intents import Match
from knowledge.lines import parse_step, parse_timestamp

#: asks how long steps took or whether one stretch was slower ("how long were the steps taking",
#: "was step 2000 slower than the others", "how long between step 100 and the save")
ASKS_PACE = re.compile(
    r"\bsteps?\b(?: \d+)?[^?.!]{0,30}?\b(?:slower|faster|slowed|slowing|speed|pace|taking|took|take)\b"
    r"|\b(?:slower|faster|slowed) (?:\w+ ){0,3}?steps?\b"
    r"|\bhow long (?:were|was|did|do|does) (?:the |a |each |every )?(?:steps?|iterations?)\b"
    r"|\bhow long between (?:the )?(?:last )?step\b"
    r"|\b(?:last|final) (?:stretch|few steps|steps|bit|part|minutes?)\b[^?]{0,30}\bslow\w*"
    r"|\bwas (?:it|the run|training|the job) (?:just |only |simply )?(?:slow|too slow)\b"
    r"|\b(?:going|running|moving|training) (?:\w+ )?slow(?:ly|er)?\b"
    # "nothing got logged for a bit right before it was killed", "log silent before the cancel": the
    # stretch after the last step line, against the usual step time
    r"|\b(?:nothing|no (?:lines?|output|logs?|steps?)) (?:got |was |were |been )?(?:logged|printed|written"
    r"|came|showed up)\b[^?]{0,40}\bbefore\b"
    r"|\b(?:silen\w*|quiet|gap|pause|went dark)\b[^?]{0,40}\bbefore (?:it |the |slurm |they )?(?:was |got )?"
    r"(?:killed|kill|cancel\w*|end\w*|stopped|shut ?down|sigterm)\b"
)
#: names a rate outright ("s/step", "sec/step", "step time", "tokens/s"): a pace ask even when the
#: same message also asks how far it got ("s/step and what step were we at")
RATE_Q = re.compile(
    r"\b(?:s|secs?|seconds?)\s?/\s?(?:step|it(?:er\w*)?)\b|\bstep ?times?\b|\btime (?:per|a) step\b"
    r"|\bseconds? (?:per|a|an|each) step\b|\b(?:tokens?|tok|samples?)\s?/\s?s(?:ec)?\b|\bthroughput\b"
    # "step cadence before the save", "~1s/step or worse?"
    r"|\b(?:step |training |logging )?cadence\b|\d ?s(?:ecs?)?\s?/\s?(?:step|it(?:er\w*)?)\b"
)
#: asks for the lines that show the pace ("prove it from the log"): the last two step lines, both stamps
_PROOF_Q = re.compile(
    r"\bprove\b|\bshow\b|\bquote\b|\bfrom the logs?\b|\bevidence\b|\b(?:time)?stamps?\b|\bts\b"
)
#: names throughput ("tokens/s"): each rank's own figure, the asked rank against the rest
_TOKENS_Q = re.compile(r"\b(?:tokens?|tok)\s?/\s?s(?:ec)?\b|\bthroughput\b")
_TOKENS = re.compile(r"\btokens?/s(?:ec)?[=: ]+([0-9]+(?:\.[0-9]+)?)", re.IGNORECASE)
#: names memory beside a pace ask ("mem_alloc vs everyone else"): each rank's memory too
_MEM_Q = re.compile(r"\bmem(?:ory|_alloc\w*)?\b|\bhotter\b")
#: asks how far it got, not how fast ("how many steps did it take", "what step did it reach")
_NOT_PACE = re.compile(r"\bhow many (?:steps|iterations)\b|\b(?:what|which) step (?:did|was|were)\b")
#: "how long would 1000 steps take", "5k steps at this rate": a projection of the asked steps
_PROJECT_Q = re.compile(
    r"\bhow (?:long|much time)\b[^?]{0,40}?\b(\d[\d,]*k?) (?:more )?(?:steps|iters?|iterations)\b"
    r"|\b(\d[\d,]*k?) (?:more )?(?:steps|iters?|iterations)\b[^?]{0,30}?"
    r"\b(?:take|need|last|at (?:this|that|the|its|the same) (?:rate|pace|speed))\b",
    re.IGNORECASE,
)
#: a step line that is about a save, an error or a failure ("step 2001 failed"), not a finished step
_NOT_STEP = re.compile(r"\bsav(?:e|ing)\b|checkpoint|\bfail\w*|\berror\b|\bbatch of\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Step:
    step: int
    at: float
    stamp: str
    line: EvidenceLine


def _stamp(ln: EvidenceLine) -> tuple[float, str] | None:
    st = parse_timestamp(ln.text)
    if st is None or st.relative or (iso := st.iso()) is None:
        return None
    return st.value, iso.replace("T", " ")[:19]


def steps_of(c: Ctx, rank: int) -> tuple[list[Step], list[EvidenceLine]]:
    """The rank's finished-step lines with wall-clock times (one source: the one with most), and that
    source's every line, in order."""
    best: tuple[list[Step], list[EvidenceLine]] = ([], [])
    for lines in rank_lines(c, rank).values():
        got = []
        for ln in lines:
            step, st = parse_step(ln.text), _stamp(ln)
            if step is not None and st is not None and not _NOT_STEP.search(ln.text):
                got.append(Step(step, st[0], st[1], ln))
        if len(got) > len(best[0]):
            best = (got, lines)
    return best


def _rank(c: Ctx, m: Match) -> int | None:
    """The rank asked about, else the first rank, else the rank with the most step lines."""
    v = c.view
    if m.rank is not None and m.rank in v.ranks:
        return m.rank
    if v.initiating is not None:
        return v.initiating.rank
    counted = sorted((-len(steps_of(c, r)[0]), r) for r in v.ranks)
    return counted[0][1] if counted and counted[0][0] < 0 else None


def secs(value: float) -> str:
    """`28 ms`, `2.1 s`, `4 s`, `100 s`: a step time as people read it."""
    if value < 0.1:  # a toy run's steps: milliseconds, never "0 s"
        return f"{value * 1000:.0f} ms"
    if value < 10:
        return f"{value:.1f} s".replace(".0 s", " s")
    return duration(value)


def pace(c: Ctx, m: Match) -> Reply | None:
    """Per-step time, the asked (or last) step against the usual, and the gap after the last step.
    A rank with too few step lines kept is held against the rank with the most: ranks step together.
    How each rank's log ended is answered before this (`answer_routes.FIRST_CHECKS`, `answer_ending`)."""
    rate = RATE_Q.search(m.text)
    if not (rate or ASKS_PACE.search(m.text)) or (_NOT_PACE.search(m.text) and not rate):
        return None
    if (rank := _rank(c, m)) is None:
        return None
    steps, lines = steps_of(c, rank)
    if len(steps) < 2 and m.rank is None and rate:  # "s/step?" and the failing rank logs none: one that does
        rank = max(c.view.ranks, key=lambda r: len(steps_of(c, r)[0]))
        steps, lines = steps_of(c, rank)
    usual = steps
    if len(steps) < 3:
        most = max((steps_of(c, r)[0] for r in c.view.ranks), key=len, default=[])
        usual = most if len(most) > len(steps) else steps
    per = _per_step(usual)
    if len(steps) < 2 or not per:
        return None  # no step times kept: the question's other words say what else it asks
    typical = statistics.median(per[:-1] or per)
    said = [projection(m.text, rank, typical)]
    said.append(_rate(usual[0].line.source if usual is not steps else "", rank, steps, typical))
    said.append(_asked_step(m, steps, typical))
    after, shown = _after(c, rank, steps[-1], lines, typical)
    said.append(after)
    said.append(throughput(c, rank) if _TOKENS_Q.search(m.text) else "")
    said.append(answer_more.memory_by_rank(c) if _MEM_Q.search(m.text) else "")
    quoted, line = answer_ending.scheduler_quote(c, m)  # "quote the slurm line + how long …": it leads
    ends = [s.line for s in steps[-2:]] if _PROOF_Q.search(m.text) else [steps[-1].line]  # both stamps
    return reply("when", " ".join(x for x in [quoted, *said] if x), [*line, *ends, *shown])


def projection(text: str, rank: int, typical: float) -> str:
    """ "How long would 1000 steps take": the asked steps times the usual step time, said first."""
    if (found := _PROJECT_Q.search(text)) is None:
        return ""
    raw = (found.group(1) or found.group(2)).replace(",", "").lower()
    n = int(raw[:-1]) * 1000 if raw.endswith("k") else int(raw)
    if n < 2:
        return ""
    total = n * typical
    shown = f"{total:.0f} s ({duration(total)})" if total >= 120 else duration(total)
    return tj.PACE_PROJECT.format(per=secs(typical), rank=rank, n=n, total=shown)


def throughput(c: Ctx, rank: int) -> str:
    """Each rank's tokens/s from its last step line that gives one, the asked (or failing) rank against
    the rest: "was rank 5 slower before it dropped?" is read from its own figure, not guessed."""
    per: dict[int, float] = {}
    for r in c.view.ranks:
        got = [float(f.group(1)) for s in steps_of(c, r)[0] if (f := _TOKENS.search(s.line.text))]
        if got:
            per[r] = got[-1]
    if rank not in per or len(per) < 2:
        return ""
    rest = {r: v for r, v in per.items() if r != rank}
    lo, hi = min(rest.values()), max(rest.values())
    span = f"{lo:.0f}" if lo == hi else f"{lo:.0f}–{hi:.0f}"
    k = f"{statistics.median(per.values()) / 1000:.1f}k" if lo >= 1000 else f"{lo:.0f}"
    said = tj.PACE_TOKENS.format(rank=rank, value=f"{per[rank]:.0f}", others=rl(rest), span=span, k=k)
    slower = per[rank] < lo * 0.95
    return f"{said} {(tj.PACE_TOKENS_SLOWER if slower else tj.PACE_TOKENS_SAME).format(rank=rank)}"


def _per_step(steps: list[Step]) -> list[float]:
    return [(b.at - a.at) / (b.step - a.step) for a, b in itertools.pairwise(steps) if b.step > a.step]


def _rate(other: str, rank: int, steps: list[Step], typical: float) -> str:
    """The rank's step lines and the usual time a step took (from `other`'s lines when its own are few)."""
    gaps = [b.step - a.step for a, b in itertools.pairwise(steps)]
    n = statistics.mode(gaps) if gaps else 1
    every = tj.PACE_EVERY.format(n=n, gap=secs(typical * n)) if n > 1 else ""
    return tj.PACE_RATE.format(
        rank=rank,
        src=steps[0].line.source,
        first=steps[0].step,
        last=steps[-1].step,
        start=steps[0].stamp,
        end=steps[-1].stamp,
        per=secs(typical),
        every=every,
    ) + (f" {tj.PACE_USUAL.format(src=other, per=secs(typical))}" if other else "")


def _asked_step(m: Match, steps: list[Step], typical: float) -> str:
    """The step the question names (else the last logged) against the usual step time."""
    named = [int(x) for x in re.findall(r"\bstep (\d+)\b", m.text)]
    index = next((i for i, s in enumerate(steps) if i and named and s.step == named[0]), len(steps) - 1)
    cur, prev = steps[index], steps[index - 1]
    took = (cur.at - prev.at) / max(cur.step - prev.step, 1)
    text = tj.PACE_SLOWER if took > typical * 1.5 and took - typical >= 1 else tj.PACE_SAME
    return text.format(step=cur.step, at=cur.stamp, per=secs(took), prev=prev.step, typical=secs(typical))


def _after(
    c: Ctx, rank: int, last: Step, lines: list[EvidenceLine], typical: float
) -> tuple[str, list[EvidenceLine]]:
    """The next timed line after the last step (a save starting, an error), and the failure's time."""
    said: list[str] = []
    shown: list[EvidenceLine] = []
    nxt = next((ln for ln in lines if ln.line > last.line.line and _stamp(ln) is not None), None)
    got = _stamp(nxt) if nxt is not None else None
    if nxt is not None and got is not None:
        text = strip_prefix(nxt.text)[:160]
        gap = secs(got[0] - last.at)
        said.append(
            tj.PACE_AFTER.format(
                step=last.step, at=last.stamp, gap=gap, next_at=got[1], ref=ref(nxt), text=text
            )
        )
        shown.append(nxt)
        if got[0] - last.at > 5 * typical:  # a silence many steps long: no step finished in it
            said.append(tj.PACE_SILENT.format(n=int((got[0] - last.at) / typical)))
    r = c.view.ranks.get(rank)
    end = (r.first_time if r is not None else None) or c.d.initiating.time
    end_st = parse_timestamp(end.replace("T", " ")[:19]) if end else None
    late = end_st is not None and end_st.value >= last.at  # a failure in the step's own second: no gap
    if (
        end
        and end_st is not None
        and late
        and not end_st.relative
        and (got is None or end_st.value - got[0] >= 1)
    ):
        what = "kill" if c.view.category == "scheduler_kill" else "failure"
        said.append(
            tj.PACE_END.format(
                what=what,
                end=end.replace("T", " ")[:19],
                gap=secs(end_st.value - last.at),
                step=last.step,
                at=last.stamp,
                per=secs(typical),
            )
        )
    return " ".join(said), shown
