"""What attribution decides and how entries are scored: the `Verdict`, `Scored`, the score of an
entry for a set of signals (distinct signature weights, context near them, the phase bonus) and the
confidence that follows from the winner's lead over the runner-up.

Shared by the two ways a verdict is reached (a primary failure, `knowledge/attribution.py`; only
consequences seen, `knowledge/collateral_only.py`) and by the report that turns it into JSON.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from knowledge.lines import Stamp
from knowledge.phases import PhaseFact
from knowledge.scanner import LineHit
from knowledge.schema import Entry
from knowledge.signals import ActorKey, Job, Signal


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
    #: said after the entry's root cause: what the reader will meet elsewhere in the logs and should not
    #: be misled by (torchrun's Root Cause naming another rank)
    after: list[str] = field(default_factory=list)
    collateral_only: bool = False
    phase: PhaseFact | None = None
    scores: dict[str, float] = field(default_factory=dict)  # entry id -> its score (chosen and alternatives)
    #: why an alternative lost, when a rule decided it rather than the scores (entry id -> reason)
    lost_why: dict[str, str] = field(default_factory=dict)


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
                p.window == 0 or _near(lines_by_source.get(src, []), hit.line, p.window, p.before)
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
    return None if entry.phase_only or phase.decided else -PHASE_MISMATCH


def _near(sorted_lines: list[int], line: int, window: int, before: bool = False) -> bool:
    """Is some line of `sorted_lines` within `window` lines of `line`? With `before`, only lines
    below `line` count: the context (at `line`) must have been printed before the hit it explains."""
    i = bisect_left(sorted_lines, line + 1 if before else line - window)
    return i < len(sorted_lines) and sorted_lines[i] <= line + window


def confidence(best: float, runner_up: float | None, fallback: bool, secondhand: bool) -> float:
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


def phase_decides(entry: Entry, alternatives: list[Entry]) -> Entry | None:
    """An alternative of another category bound to other phases: knowing the phase would decide."""
    for alt in alternatives:
        bound = alt.category != entry.category and alt.phases and entry.phases
        if bound and not set(alt.phases) & set(entry.phases):
            return alt
    return None


def dedupe(entries: list[Entry], chosen: Entry) -> list[Entry]:
    seen = {chosen.id}
    out = []
    for e in entries:
        if e.id not in seen:
            seen.add(e.id)
            out.append(e)
    return out[:4]
