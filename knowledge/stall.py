"""Did progress stop long before the job ended? (for entries with a `when_stalled` rule)

A scheduler kill at the time limit is the cause of a job's end only when training ran until the
kill. If every rank's last timestamped progress line (`step N`, `iteration N`) is much older than the
kill, the job had hung and the kill only ended it. This module measures that gap from what the scan
kept (each source's tail and its first timestamp); which entry defers to which is knowledge data
(`Entry.when_stalled`), never named here.
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.lines import Stamp, parse_step, parse_timestamp
from knowledge.schema import StallRule
from knowledge.signals import Job

#: sources whose lines are not a training process's own progress
_NOT_PROGRESS = frozenset({"kernel", "scheduler"})


@dataclass(frozen=True, slots=True)
class Stall:
    gap: float  # seconds from the newest progress line of any rank to the end
    last: Stamp  # that newest progress line's time


def last_progress(job: Job, until: float, year: int) -> list[Stamp]:
    """Per training source, the time of its last progress line at or before `until` (sources whose tail
    holds no timestamped progress line are left out: they cannot tell)."""
    out: list[Stamp] = []
    for scan in job.scans:
        if scan.source.kind in _NOT_PROGRESS:
            continue
        current: Stamp | None = None
        found: Stamp | None = None
        for text in scan.tail_text:
            stamp = parse_timestamp(text, year)
            if stamp is not None and not stamp.relative:
                current = stamp
            if current is None or current.value > until:
                continue
            if parse_step(text) is not None:
                found = current
        if found is not None:
            out.append(found)
    return out


def cadence(job: Job, until: float, year: int) -> float | None:
    """The usual time between a source's progress lines before `until` (median over all training
    sources' tails), None when no source printed two."""
    gaps: list[float] = []
    for scan in job.scans:
        if scan.source.kind in _NOT_PROGRESS:
            continue
        current: Stamp | None = None
        last: float | None = None
        for text in scan.tail_text:
            stamp = parse_timestamp(text, year)
            if stamp is not None and not stamp.relative:
                current = stamp
            if current is None or current.value > until or parse_step(text) is None:
                continue
            if last is not None and current.value > last:
                gaps.append(current.value - last)
            last = current.value
    return sorted(gaps)[len(gaps) // 2] if gaps else None


def quiet(job: Job, end: Stamp | None, year: int) -> tuple[Stall, float] | None:
    """Progress that stopped well before `end` without meeting the stall rule: the gap and the usual
    step cadence, when the gap is at least a minute and ten cadences (a reader should check for a hang)."""
    if end is None or end.relative:
        return None
    progress = last_progress(job, end.value, year)
    every = cadence(job, end.value, year)
    if not progress or every is None:
        return None
    newest = max(progress, key=lambda s: s.value)
    gap = end.value - newest.value
    return (Stall(gap, newest), every) if gap >= max(60.0, 10 * every) else None


def stalled(job: Job, rule: StallRule, end: Stamp | None, year: int) -> Stall | None:
    """The stall before `end` (the deferring entry's first signal) if it meets `rule`, else None."""
    if end is None or end.relative:
        return None
    progress = last_progress(job, end.value, year)
    if not progress:
        return None
    newest = max(progress, key=lambda s: s.value)
    gap = end.value - newest.value
    starts = [s.first_stamp.value for s in job.scans if s.first_stamp and not s.first_stamp.relative]
    run = end.value - min(starts) if starts else None
    long_gap = gap >= rule.after_seconds or (run is not None and run > 0 and gap >= rule.after_fraction * run)
    if gap >= rule.at_least_seconds and long_gap:
        return Stall(gap, newest)
    return None
