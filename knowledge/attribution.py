"""Who started it and what it was: ordering failures across ranks and nodes.

Generic rules only. The initiating failure is the earliest *primary* signal across ranks and nodes;
when clocks are missing or not comparable, causal rules decide (a first-hand primary beats a
launcher's report about a rank; a kernel fault implicates its node) and the confidence drops. When
no primary exists, `knowledge/collateral_only.py` answers (the strongest collateral-only entry, and
the rank that behaved differently as the likely initiator); how entries are scored and what a
verdict holds is `knowledge/verdict.py`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass

from knowledge import fallback, roundstep, stall, wording
from knowledge.collateral_only import dead_child, from_collateral, odd_rank_out
from knowledge.phases import PhaseFact
from knowledge.scanner import SourceScan
from knowledge.schema import Entry
from knowledge.signals import ActorKey, Job, Signal, job_year
from knowledge.verdict import (
    INCONCLUSIVE,
    LONE_EXIT_SCORE,
    WEAK_SCORE,
    Scored,
    Verdict,
    confidence,
    dedupe,
    phase_decides,
    score_entries,
)


@dataclass(slots=True)
class _Cand:
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


def _candidates(job: Job) -> list[_Cand]:
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
            _Cand(
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


def _bound_untimed(job: Job, cands: list[_Cand]) -> dict[int, float]:
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


def _choose(job: Job, cands: list[_Cand]) -> tuple[_Cand, bool]:
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

    def strength(c: _Cand) -> tuple[float, int]:
        return c.best.score, c.best.entry.priority

    if kernel_untimed and len(pool) > len(kernel_untimed):
        return max(kernel_untimed, key=strength), True
    if timed:
        first = min(timed, key=lambda c: (c.when(), c.first.source, c.first.line))
        first = _stronger_soon_after(job, first, timed)
        near = _kernel_fault_near(first, timed)
        if near is not None:
            return near, True
        return first, len(timed) < len(pool) or first.bound is not None
    if len({c.first.source for c in pool}) == 1:  # one file without times: its line order is the order
        return min(pool, key=lambda c: c.first.line), len(pool) > 1
    return max(pool, key=lambda c: (*strength(c), -c.first.source, -c.first.line)), len(pool) > 1


def _stronger_soon_after(job: Job, first: _Cand, timed: list[_Cand]) -> _Cand:
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


def _attempt(job: Job, c: _Cand) -> int:
    """torchrun's restart attempt a candidate's file belongs to (`--log-dir …/attempt_N/`): a failure
    of a later attempt (a restart that could not rendezvous) never explains an earlier one."""
    m = _ATTEMPT.search(job.scans[c.first.source].source.name)
    return int(m.group(1)) if m else 0


#: a kernel fault this soon after a rank's first error on the same node explains it (driver logs lag,
#: and an untimed rank line only inherits the time of an earlier line)
KERNEL_EXPLAINS_SECONDS = 600.0


def _kernel_fault_near(first: _Cand, timed: list[_Cand]) -> _Cand | None:
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


def _demote_teardown(job: Job) -> None:
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


def _after(s: Signal, ref: Signal) -> bool:
    """Did `s` come after `ref`: by line within one file, else by time when both have one."""
    if s.source == ref.source:
        if s.line == ref.line:  # one line, two readings: the stronger one says what the line is
            return ref.pattern.weight > s.pattern.weight
        return s.line > ref.line
    t, r = s.abs_time(), ref.abs_time()
    return t is not None and r is not None and t > r


def attribute(job: Job, fallback_entry: Entry | None) -> Verdict:
    return _named_culprit(job, _attribute(job, fallback_entry))


def _named_culprit(job: Job, v: Verdict) -> Verdict:
    """A desync report that names the ranks which never joined outranks the rank that printed it,
    unless a rank's own failure explains the job (a first-hand primary, not a wait or a timeout)."""
    culprits = job.culprits or _desynced(job)
    if not culprits or (v.rank is not None and v.rank in culprits):
        return v
    if (
        not v.collateral_only
        and v.entry is not None
        and v.entry.category not in ("nccl_timeout", "hang_no_error")
    ):
        return v
    v.rank = min(culprits)
    v.node = job.rank_node.get(v.rank)
    v.actor = ("rank", str(v.rank))
    v.notes.append(wording.desync_report(sorted(culprits)))
    return v


def _desynced(job: Job) -> set[int]:
    """The ranks whose collective (op and sequence number, or the c10d call their traceback is blocked
    in) differs from what most ranks were in."""
    for per_rank in (job.seq, job.pending_op):
        if len(per_rank) < 3:
            continue
        majority, count = Counter(per_rank.values()).most_common(1)[0]
        odd = {r for r, s in per_rank.items() if s != majority}
        if odd and count > len(odd):
            return odd
    return set()


#: the shortest line without a pattern hit that still counts as log text
MIN_TEXT_LINE = 8


def _has_text(job: Job) -> bool:
    """Did any source hold readable lines? (0-byte files, core dumps and checkpoints hold none.)"""
    for scan in job.scans:
        for _, text in scan.numbered_tail:
            readable = sum((ch.isprintable() and ch != "\ufffd") or ch == "\t" for ch in text)
            # a few printable bytes between control characters of a binary file are not a log line
            if len(text.strip()) >= MIN_TEXT_LINE and readable >= 0.9 * len(text):
                return True
        if scan.hits:
            return True
    return False


def _attribute(job: Job, fallback_entry: Entry | None) -> Verdict:
    if not _has_text(job):
        return Verdict(
            category=wording.FALLBACK_CATEGORY,
            entry=None,
            confidence=0.0,
            notes=[wording.no_content(len(job.scans))],
        )
    _demote_teardown(job)
    cands = _candidates(job)
    if cands:
        return _when_stalled(job, _from_primary(job, cands))
    coll = [s for s in job.signals if s.role == "collateral" or s.demoted]
    scored = score_entries(coll, job)
    silent = _silent_end(job)
    if scored and silent is not None and scored[0].entry.category == wording.FALLBACK_CATEGORY:
        return silent  # only the launcher tearing the others down: a rank vanished mid-save or mid-load
    if scored and not fallback.yields_to_crash(job, scored[0].entry):  # a teardown never beats a crash
        return from_collateral(job, scored)
    if silent is not None:
        return silent
    m = fallback.no_match(job, fallback_entry)  # the last fatal line's class; a hang only without one
    return Verdict(
        category=m.category, entry=m.entry, confidence=m.confidence, rank=m.rank, node=m.node,
        stamp=m.stamp, actor=m.actor, context=m.context, notes=m.notes,
    )  # fmt: skip


def _all_at_once(cands: list[_Cand], chosen: _Cand) -> bool:
    """Every rank failed the same way in the same second, known only from the launcher's summary: no
    rank started it (a crash in a call every rank makes together), so none is named."""
    if not chosen.secondhand or chosen.when() is None:
        return False
    same = [
        c
        for c in cands
        if c.key[0] == "rank" and c.secondhand and c.best.entry.id == chosen.best.entry.id
        if c.when() is not None and abs((c.when() or 0.0) - (chosen.when() or 0.0)) <= 1.0
    ]
    ranks = [c for c in cands if c.key[0] == "rank"]
    return len(same) >= 2 and len(same) == len(ranks)


def _silent_end(job: Job) -> Verdict | None:
    """No failure line anywhere, but a log stops in a phase where a silent death has one usual cause.
    When several ranks' own logs stop alike, none of them is named: they stopped together."""
    if job.phases is None:
        return None
    found: list[tuple[SourceScan, PhaseFact, Entry]] = []
    for i, scan in enumerate(job.scans):
        if scan.source.kind in ("kernel", "scheduler") or not scan.numbered_tail:
            continue
        last = scan.numbered_tail[-1][0]
        fact = job.epoch_end(i, last, job.resumed(i, last, job.phases.at(i, last, scan.source.rank, None)))
        entry = _silent_entry(job, fact.phase) if fact is not None else None
        if fact is not None and entry is not None:
            found.append((scan, fact, entry))
    if not found:
        return None
    scan, fact, entry = found[0]
    together = len({s.source.rank for s, _, _ in found if s.source.rank is not None}) > 1
    return Verdict(
        category=entry.category,
        entry=entry,
        confidence=0.35,
        rank=None if together else scan.source.rank,
        node=None if together else scan.source.node,
        notes=[wording.silent_end(fact.phase)],
        phase=fact,
    )


def _silent_entry(job: Job, phase: str) -> Entry | None:
    """The entry that explains a silent stop in `phase` (its `silent_phases`), by priority."""
    for entry in sorted(job.entries.values(), key=lambda e: (-e.priority, e.id)):
        if phase in entry.silent_phases:
            return entry
    return None


def _from_primary(job: Job, cands: list[_Cand]) -> Verdict:
    chosen, fallback = _choose(job, cands)
    best = chosen.best
    runner = chosen.scored[1].score if len(chosen.scored) > 1 else None
    v = Verdict(
        category=best.entry.category,
        entry=best.entry,
        confidence=confidence(best.score, runner, fallback, chosen.secondhand),
        actor=chosen.key,
        stamp=min(best.signals, key=Signal.order).stamp,
        evidence=sorted(best.signals, key=Signal.order),
        context=best.context,
        phase=best.phase,
    )
    _locate(job, v, chosen)
    if _all_at_once(cands, chosen):
        v.rank, v.actor, v.node = None, None, None
        v.notes.append(wording.all_at_once(sorted(int(c.key[1]) for c in cands if c.key[0] == "rank")))
    alts = [s.entry for s in chosen.scored[1:]] + [c.best.entry for c in cands if c is not chosen]
    v.alternatives = dedupe(alts, best.entry)
    for sc in [*chosen.scored, *(c.best for c in cands if c is not chosen)]:
        v.scores.setdefault(sc.entry.id, sc.score)
    inferred = best.phase is not None and best.phase.marker == roundstep.MARKER
    if inferred or (best.phase is None and phase_decides(best.entry, v.alternatives)):
        v.confidence = round(v.confidence * 0.8, 2)  # the one fact that would settle it is missing
    if sum({s.pattern.sig_id: s.pattern.weight for s in best.signals}.values()) < LONE_EXIT_SCORE:
        v.confidence = min(v.confidence, INCONCLUSIVE)  # only a weak line (a bare SIGKILL exit code)
    if fallback:
        v.notes.append(wording.clock_fallback())
    return v


def _when_stalled(job: Job, v: Verdict) -> Verdict:
    """Defer to the entry's `when_stalled` entry if every rank had stopped progressing long before."""
    rule = v.entry.when_stalled if v.entry is not None else None
    target = job.entries.get(rule.entry) if rule is not None else None
    if rule is None or target is None:
        return v
    found = stall.stalled(job, rule, v.stamp, job_year(job.scans))
    if found is None:
        return v
    ended = v.entry
    v.alternatives = dedupe([ended, *v.alternatives], target)  # type: ignore[list-item]
    v.category, v.entry = target.category, target
    v.confidence = round(v.confidence * 0.9, 2)
    v.notes.append(wording.stalled(found.gap, found.last.iso(), ended.title))  # type: ignore[union-attr]
    if v.actor is None or v.actor[0] != "rank":  # the rank that lagged, if one did, is the likely start
        rank, note = odd_rank_out(job, set())
        if rank is not None:
            v.rank, v.actor, v.node = rank, ("rank", str(rank)), job.rank_node.get(rank)
            v.notes.append(note)
    return v


def _locate(job: Job, v: Verdict, chosen: _Cand) -> None:
    kind, name = chosen.key
    first = chosen.first
    if kind == "rank":
        v.rank = int(name)
        v.node = first.node or job.rank_node.get(v.rank)
    elif kind == "node":
        v.node = name
        on_node = sorted(r for r, n in job.rank_node.items() if n == name)
        v.rank = on_node[0] if len(on_node) == 1 else None
        if len(on_node) > 1:
            v.notes.append(wording.implicated(name, on_node))
    else:
        v.node = first.node
        _rank_from_text(job, v)
    for s in v.evidence:
        if s.xid is not None:
            v.notes.append(wording.xid_note(s.xid.code, s.xid_name, v.node, s.xid.pci, v.rank))
            break


_GPU_INDEX = re.compile(r"\(GPU (\d{1,3}); |\bGPU (\d{1,3}) has a total capacity")


def _rank_from_text(job: Job, v: Verdict) -> None:
    """A failure found in lines without a rank prefix: the rank the same failure names elsewhere (one
    rank only), else the GPU a CUDA OOM names, which is the local rank under the usual one-GPU-a-rank
    launch (trusted as the global rank only on one node, and with lower confidence)."""
    if v.entry is None:
        return
    named = {
        s.rank
        for s in job.signals
        if s.entry.category == v.entry.category and s.rank is not None and not s.hit.secondhand
    }
    if len(named) == 1:
        v.rank = named.pop()
        v.node = v.node or job.rank_node.get(v.rank)
        return
    if named or not job.single_node:
        return
    for s in v.evidence:
        m = _GPU_INDEX.search(s.hit.text)
        if m:
            v.rank = int(next(g for g in m.groups() if g))
            v.confidence = round(v.confidence * 0.9, 2)
            return
    child = dead_child(job)
    if child is not None:
        v.rank = child.rank
        v.node = v.node or job.rank_node.get(child.rank)
        v.notes.append(child.why)
        v.confidence = round(v.confidence * 0.85, 2)
