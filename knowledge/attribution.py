"""Who started it and what it was: ordering failures across ranks and nodes, scoring entries.

Generic rules only. The initiating failure is the earliest *primary* signal across ranks and nodes;
when clocks are missing or not comparable, causal rules decide (a first-hand primary beats a
launcher's report about a rank; a kernel fault implicates its node) and the confidence drops. When
no primary exists, the strongest collateral-only entry is the answer and the rank that behaved
differently (desynchronised, silent, lagging) is the likely initiator.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field

from knowledge import fallback, roundstep, stall, stragglers, wording
from knowledge.lines import Stamp, parse_step
from knowledge.phases import PhaseFact
from knowledge.scanner import LineHit, SourceScan
from knowledge.schema import Entry
from knowledge.signals import ActorKey, Job, Signal, job_year


@dataclass(slots=True)
class Scored:
    entry: Entry
    score: float
    signals: list[Signal]
    context: list[tuple[int, LineHit]]  # (source, hit) of the context patterns that counted
    phase: PhaseFact | None = None  # the phase of the entry's first signal


@dataclass(slots=True)
class Verdict:
    category: str
    entry: Entry | None
    confidence: float
    rank: int | None = None
    node: str | None = None
    stamp: Stamp | None = None
    actor: ActorKey | None = None
    evidence: list[Signal] = field(default_factory=list)
    context: list[tuple[int, LineHit]] = field(default_factory=list)
    alternatives: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    collateral_only: bool = False
    phase: PhaseFact | None = None
    scores: dict[str, float] = field(default_factory=dict)  # entry id -> its score (chosen and alternatives)


def score_entries(sigs: list[Signal], job: Job) -> list[Scored]:
    """Entries that fit `sigs`, best first: distinct signature weights plus context near them."""
    by_entry: dict[str, list[Signal]] = {}
    for s in sigs:
        by_entry.setdefault(s.entry.id, []).append(s)
    out: list[Scored] = []
    for ss in by_entry.values():
        entry = ss[0].entry
        weights = {s.pattern.sig_id: s.pattern.weight for s in ss}
        lines_by_source: dict[int, list[int]] = {}
        for s in ss:
            lines_by_source.setdefault(s.source, []).append(s.line)
        for ls in lines_by_source.values():
            ls.sort()
        ctx: dict[str, tuple[float, tuple[int, LineHit]]] = {}
        for src, hit, p in job.context.get(entry.id, []):
            if p.sig_id not in ctx and (
                p.window == 0 or _near(lines_by_source.get(src, []), hit.line, p.window)
            ):
                ctx[p.sig_id] = (p.weight, (src, hit))
        phase = job.phase_of(min(ss, key=Signal.order))
        bonus = _phase_bonus(entry, phase)
        if bonus is None or (entry.requires_context and not ctx and bonus <= 0):
            continue
        base = sum(weights.values()) + sum(w for w, _ in ctx.values())
        if entry.phase_only and phase is None and base < WEAK_SCORE:
            # weak evidence (a launcher line) names a phase-bound failure only when the phase is known;
            # it stays in the running at half weight, as the alternative that knowing the phase would pick
            base *= UNPHASED_WEIGHT
        total = base + bonus
        out.append(Scored(entry, total, ss, [c for _, c in ctx.values()], phase))
    out.sort(key=lambda s: (-s.score, -s.entry.priority, s.entry.id))
    return out


#: how much a phase-bound entry's weak evidence counts when nothing says the phase
UNPHASED_WEIGHT = 0.5
#: what a failure seen in one of an entry's phases adds to its score (about a strong context pattern)
PHASE_MATCH = 2.5
#: what a failure seen in another phase costs an entry that names its phases
PHASE_MISMATCH = 2.0


def _phase_bonus(entry: Entry, phase: PhaseFact | None) -> float | None:
    """The score an entry gains or loses for the phase its failure happened in; None: not a candidate."""
    if not entry.phases or phase is None:
        return 0.0
    if phase.phase in entry.phases:
        return PHASE_MATCH
    return None if entry.phase_only else -PHASE_MISMATCH


def _near(sorted_lines: list[int], line: int, window: int) -> bool:
    """Is some line of `sorted_lines` within `window` lines of `line`?"""
    i = bisect_left(sorted_lines, line - window)
    return i < len(sorted_lines) and sorted_lines[i] <= line + window


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


def _confidence(best: float, runner_up: float | None, fallback: bool, secondhand: bool) -> float:
    c = 0.5 + 0.45 * min(1.0, best / 4.0)
    if runner_up is not None and best > 0:
        c *= 0.75 + 0.25 * max(0.0, (best - runner_up) / best)
    if fallback:
        c *= 0.85
    if secondhand:
        c *= 0.7
    return round(min(0.97, max(0.05, c)), 2)


#: the most an answer resting only on weak or second-order lines may claim
INCONCLUSIVE = 0.5
#: below this an answer rests on an exit code or a launcher's report alone
LONE_EXIT_SCORE = 1.5
#: an entry whose signatures on an actor add up to less than this is only a generic symptom (a bare
#: Python exception line): it neither starts a cascade ahead of a real failure nor survives teardown
WEAK_SCORE = 1.0
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
        return _from_collateral(job, scored)
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


def _phase_decides(entry: Entry, alternatives: list[Entry]) -> Entry | None:
    """An alternative of another category bound to other phases: knowing the phase would decide."""
    for alt in alternatives:
        bound = alt.category != entry.category and alt.phases and entry.phases
        if bound and not set(alt.phases) & set(entry.phases):
            return alt
    return None


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
        confidence=_confidence(best.score, runner, fallback, chosen.secondhand),
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
    v.alternatives = _dedupe(alts, best.entry)
    for sc in [*chosen.scored, *(c.best for c in cands if c is not chosen)]:
        v.scores.setdefault(sc.entry.id, sc.score)
    inferred = best.phase is not None and best.phase.marker == roundstep.MARKER
    if inferred or (best.phase is None and _phase_decides(best.entry, v.alternatives)):
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
    v.alternatives = _dedupe([ended, *v.alternatives], target)  # type: ignore[list-item]
    v.category, v.entry = target.category, target
    v.confidence = round(v.confidence * 0.9, 2)
    v.notes.append(wording.stalled(found.gap, found.last.iso(), ended.title))  # type: ignore[union-attr]
    if v.actor is None or v.actor[0] != "rank":  # the rank that lagged, if one did, is the likely start
        rank, note = _odd_rank_out(job, set())
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
    child = _dead_child(job)
    if child is not None:
        v.rank = child.rank
        v.node = v.node or job.rank_node.get(child.rank)
        v.notes.append(child.why)
        v.confidence = round(v.confidence * 0.85, 2)


def _dead_child(job: Job) -> stragglers.Inferred | None:
    """The child a launcher's own lines single out as the one that died (one node only)."""
    if not job.single_node:
        return None
    texts = [*(s.hit.text for s in job.signals), *(t for scan in job.scans for t in scan.tail_text)]
    return stragglers.failed_command(texts) or stragglers.unsignalled_child(texts)


def _dedupe(entries: list[Entry], chosen: Entry) -> list[Entry]:
    seen = {chosen.id}
    out = []
    for e in entries:
        if e.id not in seen:
            seen.add(e.id)
            out.append(e)
    return out[:4]


def _from_collateral(job: Job, scored: list[Scored]) -> Verdict:
    best = scored[0]
    runner = scored[1].score if len(scored) > 1 else None
    v = Verdict(
        category=best.entry.category,
        entry=best.entry,
        confidence=round(_confidence(best.score, runner, False, False) * 0.75, 2),
        evidence=sorted(best.signals, key=Signal.order),
        context=best.context,
        alternatives=_dedupe([s.entry for s in scored[1:]], best.entry),
        collateral_only=True,
        phase=best.phase,
        scores={sc.entry.id: sc.score for sc in scored},
    )
    v.stamp = v.evidence[0].stamp if v.evidence else None
    v.confidence = min(v.confidence, INCONCLUSIVE)  # only consequences seen: the cause is elsewhere
    rank, note = _odd_rank_out(job, {s.rank for s in best.signals if s.rank is not None})
    if rank is not None:
        v.rank, v.actor = rank, ("rank", str(rank))
        v.node = job.rank_node.get(rank)
        v.stamp = None  # inferred from the others' behaviour: when it stalled is not in the logs
        v.notes.append(note)
        v.confidence = round(v.confidence * 0.9, 2)
    elif (child := _dead_child(job)) is not None:
        v.rank, v.actor, v.node = child.rank, ("rank", str(child.rank)), job.rank_node.get(child.rank)
        v.notes.append(child.why)
        v.confidence = round(v.confidence * 0.85, 2)
    elif best.entry.category in WAITING_CATEGORIES and (waiting := _waiting_without_rank0(job, best)):
        v.rank, v.actor, v.node = 0, ("rank", "0"), job.rank_node.get(0)
        v.stamp = None
        v.notes.append(wording.rank0_absent(waiting))
        v.confidence = round(v.confidence * 0.7, 2)
    elif len(job.ranks) == 1 and ((job.world or 1) <= 1 or _lone_excerpt(job, best.entry)):
        (only,) = job.ranks  # the only rank the logs show: it is all there is to name
        v.rank, v.actor, v.node = only, ("rank", str(only)), job.rank_node.get(only)
        v.notes.append(wording.only_rank_seen(only))
        v.confidence = round(v.confidence * 0.8, 2)
    return v


#: categories whose lines say a rank waited for another one: never a reason to name the waiting rank
WAITING_CATEGORIES = frozenset({"nccl_timeout", "hang_no_error"})


def _waiting_without_rank0(job: Job, best: Scored) -> set[int]:
    """The ranks that timed out waiting, when rank 0 is not among them and wrote no line at all.

    Rank-0-only work — saving the checkpoint, evaluating, logging, writing to a tracker — is the most
    common reason the others sit in a collective until the watchdog fires, and rank 0 is the rank
    that stays quiet meanwhile. Named only with no better lead (no desync, no silent rank in a known
    world, no dead child), at lowered confidence."""
    waiting = {s.rank for s in best.signals if s.rank is not None}
    if not waiting or 0 in waiting or 0 in job.ranks:
        return set()
    return waiting


def _lone_excerpt(job: Job, entry: Entry) -> bool:
    """An excerpt of one rank's output (srun's `10: ` labels) whose own failure is a communication
    error, not a wait: the world size is only what that rank's number implies, so no other rank's
    lines were ever in the logs to blame."""
    (only,) = job.ranks
    return entry.category not in WAITING_CATEGORIES and job.world == only + 1


def _odd_rank_out(job: Job, waiting: set[int]) -> tuple[int | None, str]:
    """The rank that behaved differently: desynchronised, silent while others timed out, or lagging."""
    if len(job.seq) >= 3:
        majority, count = Counter(job.seq.values()).most_common(1)[0]
        odd = {r: s for r, s in job.seq.items() if s != majority}
        if odd and count > len(odd):
            return min(odd), wording.desync(odd, majority)
    if job.world and job.world > 1 and waiting:
        silent = set(range(job.world)) - waiting
        if len(silent) == 1:
            rank = silent.pop()
            return rank, wording.silent_rank(rank, waiting)
    if job.single_node and (busy := stragglers.busy_elsewhere(job.phases, waiting)) is not None:
        return busy.rank, busy.why
    steps = _last_steps(job)
    if len(steps) >= 3:
        ordered = sorted(steps.items(), key=lambda kv: kv[1])
        (lag_rank, lag), (_, second) = ordered[0], ordered[1]
        if lag < second:
            return lag_rank, wording.straggler(lag_rank, lag, max(steps.values()))
    return None, ""


def _last_steps(job: Job) -> dict[int, int]:
    steps: dict[int, int] = {}
    for scan in job.scans:
        rank = scan.source.rank
        if rank is None:
            continue
        for text in reversed(scan.tail_text):
            step = parse_step(text)
            if step is not None:
                steps[rank] = step
                break
    return steps
