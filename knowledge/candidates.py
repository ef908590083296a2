"""Which actor's first failure is the candidate for the start: one candidate per rank, node or file
(its first primary signal and the entries that signal scores), the causal rules that choose between
candidates when clocks disagree or are missing, and the demotion of teardown tracebacks. Split from
`knowledge/attribution.py`, which turns the chosen candidate into a verdict."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from knowledge import fallback
from knowledge.signals import ActorKey, Job, Signal
from knowledge.verdict import WEAK_SCORE, Scored, score_entries


@dataclass(slots=True)
class Cand:
    key: ActorKey
    first: Signal
    best: Scored
    scored: list[Scored]
    secondhand: bool  # only a launcher's report about it (torchrun's failure summary)
    kernel: bool
    scheduler: bool = False  # only the scheduler's record: a summary written after the fact
    bound: float | None = None  # an upper bound on the time of an untimed first signal

    def when(self) -> float | None:
        t = self.first.abs_time()
        return t if t is not None else self.bound


def candidates(job: Job) -> list[Cand]:
    cands = []
    for key, sigs in job.by_actor().items():
        prims = [s for s in sigs if s.role == "primary" and not s.demoted]
        scored = score_entries(prims, job)
        if not scored:
            continue
        fits = {id(x) for sc in scored for x in sc.signals}
        fitting = [s for s in prims if id(s) in fits]
        first = min(fitting, key=Signal.order)
        cands.append(
            Cand(
                key,
                first,
                scored[0],
                scored,
                all(s.hit.secondhand for s in fitting),
                any(s.kernel for s in fitting),
                all(job.scans[s.source].source.kind == "scheduler" for s in fitting),
            )
        )
    return cands


def _bound_untimed(job: Job, cands: list[Cand]) -> dict[int, float]:
    """An untimed line happened no later than the next timed line of the same file."""
    timed: dict[int, list[tuple[int, float]]] = {}
    for s in job.signals:
        t = s.abs_time()
        if t is not None:
            timed.setdefault(s.source, []).append((s.line, t))
    suffix: dict[int, tuple[list[int], list[float]]] = {}
    for src, pairs in timed.items():
        pairs.sort()
        mins, low = [], float("inf")
        for _, t in reversed(pairs):
            low = min(low, t)
            mins.append(low)
        suffix[src] = ([line for line, _ in pairs], mins[::-1])
    out: dict[int, float] = {}
    for i, c in enumerate(cands):
        if c.first.abs_time() is not None or c.kernel or c.first.source not in suffix:
            continue
        lines, mins = suffix[c.first.source]
        k = bisect_right(lines, c.first.line)
        if k < len(lines):
            out[i] = mins[k] - 1e-6
    return out


def choose(job: Job, cands: list[Cand]) -> tuple[Cand, bool]:
    """The initiating candidate and whether causal fallback rules (not clocks) decided it."""
    pool = (
        [c for c in cands if not (c.secondhand or c.scheduler)] or [c for c in cands if c.scheduler] or cands
    )
    first_attempt = min(_attempt(job, c) for c in pool)
    pool = [c for c in pool if _attempt(job, c) == first_attempt]  # restarts follow the first failure
    bounds = _bound_untimed(job, pool)
    if bounds:
        for i, c in enumerate(pool):
            if i in bounds:
                c.bound = bounds[i]
    timed = [c for c in pool if c.when() is not None]
    kernel_untimed = [c for c in pool if c.kernel and c.when() is None]

    def strength(c: Cand) -> tuple[float, int]:
        return c.best.score, c.best.entry.priority

    if kernel_untimed and len(pool) > len(kernel_untimed):
        return max(kernel_untimed, key=strength), True
    if timed:
        first = min(timed, key=lambda c: (c.when(), c.first.source, c.first.line))
        first = _stronger_soon_after(job, first, timed)
        if (explains := _explained_by(first, cands)) is not None:
            return explains, True
        near = _kernel_fault_near(first, timed)
        if near is not None:
            return near, True
        return first, len(timed) < len(pool) or first.bound is not None
    if len({c.first.source for c in pool}) == 1:  # one file without times: its line order is the order
        return min(pool, key=lambda c: c.first.line), len(pool) > 1
    return max(pool, key=lambda c: (*strength(c), -c.first.source, -c.first.line)), len(pool) > 1


def _explained_by(first: Cand, cands: list[Cand]) -> Cand | None:
    """A stronger candidate whose entry reads `first`'s failure line as its own context: that entry
    declares the line a consequence of its failure (Slurm's bare cancel banner beside a step's
    `OUT_OF_MEMORY` in sacct, which has no time of its own and so can never come first by the clock)."""
    line = (first.first.source, first.first.hit.line)
    for c in cands:
        stronger = c is not first and c.best.score > first.best.score
        if stronger and any((src, hit.line) == line for src, hit in c.best.context):
            return c
    return None


def _stronger_soon_after(job: Job, first: Cand, timed: list[Cand]) -> Cand:
    """A weak first primary (a generic exception) loses to a strong primary on another actor that
    follows within `WEAK_WINDOW_SECONDS`: the generic line is more likely a symptom of it."""
    if first.best.score >= WEAK_SCORE:
        return first
    t0 = first.when() or 0.0
    attempt = _attempt(job, first)
    strong = [
        c
        for c in timed
        if c.key != first.key and c.best.score >= WEAK_SCORE and _attempt(job, c) == attempt
        if 0 <= (c.when() or 0.0) - t0 <= WEAK_WINDOW_SECONDS
    ]
    return min(strong, key=lambda c: (c.when(), c.first.source, c.first.line)) if strong else first


_ATTEMPT = re.compile(r"(?:^|/)attempt_(\d+)/")


def _attempt(job: Job, c: Cand) -> int:
    """torchrun's restart attempt a candidate's file belongs to (`--log-dir …/attempt_N/`): a failure
    of a later attempt (a restart that could not rendezvous) never explains an earlier one."""
    m = _ATTEMPT.search(job.scans[c.first.source].source.name)
    return int(m.group(1)) if m else 0


#: a kernel fault this soon after a rank's first error on the same node explains it (driver logs lag,
#: and an untimed rank line only inherits the time of an earlier line)
KERNEL_EXPLAINS_SECONDS = 600.0


def _kernel_fault_near(first: Cand, timed: list[Cand]) -> Cand | None:
    """A GPU fault (Xid) on the initiating rank's node, shortly after its error: the fault is the cause."""
    if first.kernel or first.first.node is None:
        return None
    t0 = first.when() or 0.0
    near = [
        c
        for c in timed
        if c.kernel and c.first.xid is not None and c.first.node == first.first.node
        if 0 <= (c.when() or 0.0) - t0 <= KERNEL_EXPLAINS_SECONDS
    ]
    return min(near, key=lambda c: (c.when(), c.first.line)) if near else None


#: how much earlier a weak primary may be and still lose to a strong one on another rank
WEAK_WINDOW_SECONDS = 60.0


def demote_teardown(job: Job) -> None:
    """A weak primary (a generic traceback) printed after its rank's own first collateral line (a
    watchdog timeout, a SIGTERM) is part of the teardown: evidence, never the cause."""
    first_in_source: dict[int, Signal] = {}
    for s in job.signals:
        if s.role == "collateral" and (
            s.source not in first_in_source or s.line < first_in_source[s.source].line
        ):
            first_in_source[s.source] = s
    for key, sigs in job.by_actor().items():
        coll = [s for s in sigs if s.role == "collateral"]
        if not coll and key[0] == "source" and sigs[0].source in first_in_source:
            coll = [first_in_source[sigs[0].source]]  # a line with no rank: the file's first collateral
        if not coll:
            continue
        first = min(coll, key=Signal.order)
        weights: dict[str, dict[str, float]] = {}
        for s in sigs:
            if s.role == "primary":
                weights.setdefault(s.entry.id, {})[s.pattern.sig_id] = s.pattern.weight
        for s in sigs:
            if s.role == "primary" and sum(weights[s.entry.id].values()) < WEAK_SCORE and _after(s, first):
                s.demoted = True


#: Python's line between an exception and one raised while handling it (CPython Lib/traceback.py,
#: `_context_message`): the later exception is a consequence (a half-written file after a MemoryError)
CHAINED = "During handling of the above exception, another exception occurred"
#: how far above the chain line the first exception may be, and how far below the consequence
CHAIN_ABOVE, CHAIN_BELOW = 60, 200


def demote_chained(job: Job) -> None:
    """A primary of another failure mode raised while handling an earlier primary (below Python's
    "During handling of the above exception" line) is a consequence of it: evidence, never the cause.
    Only the original exception of the chain can say what went wrong first."""
    for source, scan in enumerate(job.scans):
        chains = [n for n, text in scan.numbered_tail if CHAINED in text]
        if not chains:
            continue
        prims = [s for s in job.signals if s.source == source and s.role == "primary" and not s.demoted]
        for m in chains:
            before = [s for s in prims if m - CHAIN_ABOVE <= s.line < m]
            first_entries = {s.entry.category for s in before}
            for s in prims:
                consequence = m < s.line <= m + CHAIN_BELOW and s.entry.category not in first_entries
                if first_entries and consequence and all(b.rank == s.rank for b in before):
                    s.demoted = True


#: a traceback frame line (`File "x.py", line 3, in f`, or its `line 3, in f` half when wrapped)
_FRAME = re.compile(r'(?:^|[\s(])(?:File "[^"]*", )?line \d+, in [\w<>.]+\s*$|^\s*File "[^"]*"')
#: how far below a frame its traceback's exception may be
FRAME_SPAN = 150


def demote_frames_before_an_exception(job: Job) -> None:
    """A frame signature (a save's unshard frame: weak, for traces whose error line was cut) is
    evidence, never the cause, when its traceback's own exception is in the log and is not one of its
    entry's lines: that exception says what went wrong (an assertion during the save, not an OOM)."""
    for source in range(len(job.scans)):
        fatal = fallback.last_fatal(job, source)
        if fatal is None or fatal.kind != "exception":
            continue
        on_fatal = {s.entry.id for s in job.signals if s.source == source and s.line == fatal.line}
        for s in job.signals:
            frame = s.source == source and s.role == "primary" and _FRAME.search(s.hit.text)
            if frame and s.entry.id not in on_fatal and 0 < fatal.line - s.line <= FRAME_SPAN:
                s.demoted = True


def _after(s: Signal, ref: Signal) -> bool:
    """Did `s` come after `ref`: by line within one file, else by time when both have one."""
    if s.source == ref.source:
        if s.line == ref.line:  # one line, two readings: the stronger one says what the line is
            return ref.pattern.weight > s.pattern.weight
        return s.line > ref.line
    t, r = s.abs_time(), ref.abs_time()
    return t is not None and r is not None and t > r
