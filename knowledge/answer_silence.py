"""The silence before the end counted in steps: "steps came every 4 s through step 150; given the kill at
03:11:40, how many step intervals of silence is that?", "how many steps' worth of time went by with no
step line before it was killed?".

Why: the answers gave the silence in seconds (100 s) and the step pace (every 4 s) in two sentences,
never the count asked for; it is the silence divided by the job's own median step time, both read
from the job's lines (the last step line, the end's line, the step lines of the same file).
"""

from __future__ import annotations

import itertools
import re
import statistics

from denpex.core.texts import followups_spans as ts
from knowledge import answer_asks, answer_pace, answer_story
from knowledge.answer_types import Ctx, Reply, duration
from knowledge.jobfacts_answers import seconds_between

#: asks how many step times the silence spans
INTERVALS_Q = re.compile(
    r"\bhow many (?:step |steps? )?(?:intervals?|periods|step ?times|cycles)\b"
    r"|\bhow many (?:steps?(?:'|’)?s? )?worth\b|\bhow many (?:missed|skipped|lost|silent) steps\b"
    r"|\bhow many steps (?:could|would|should) (?:have|it have|they have)\b",
    re.IGNORECASE,
)


def with_intervals(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the silence from the last step line to the end in step intervals, when asked."""
    if not INTERVALS_Q.search(text) or not c.view.end:
        return got
    year = c.view.end[:4]
    last = answer_story.last_step(c, year)
    if last is None:
        return got
    at, step, line = last
    ini = c.view.initiating
    failed = ini is not None and bool(ini.first_time) and not ini.borrowed
    end = ini.first_time if ini is not None and failed else c.view.end
    silence = seconds_between(at, end)
    every = _step_time(c, line.source)
    if silence is None or silence <= 0 or not every:
        return got
    ratio = silence / every
    count = f"{ratio:.0f}" if abs(ratio - round(ratio)) < 0.05 else f"{ratio:.1f}"
    told = answer_asks.said(got)
    if re.search(rf"\b{re.escape(count)} (?:step|steps)\b", told):
        return got  # "about 25 steps' worth of time with no step line": said already
    said = ts.INTERVALS.format(
        count=count,
        silence=duration(silence),
        every=answer_pace.secs(every),
        step=step,
        ref=line.ref,
        at=at[11:19],
        end=ts.INTERVALS_FAILED.format(rank=ini.rank) if ini is not None and failed else ts.INTERVALS_END,
        until=(end or "")[11:19],
    )
    return answer_asks.with_lead(got, said, [line])


def _step_time(c: Ctx, source: str) -> float | None:
    """The median seconds per step over the step lines of the file the last step line is in."""
    for rank in c.view.ranks:
        steps, _ = answer_pace.steps_of(c, rank)
        if steps and steps[-1].line.source == source:
            per = [(b.at - a.at) / (b.step - a.step) for a, b in itertools.pairwise(steps) if b.step > a.step]
            return statistics.median(per) if per else None
    return None


__all__ = ["INTERVALS_Q", "with_intervals"]
