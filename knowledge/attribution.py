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
from collections import Counter

from knowledge import (
    fallback,
    launcher_rank,
    libcalls,
    mismatch_ranks,
    named_rank,
    roundstep,
    shadowing,
    srun_tasks,
    stall,
    version_split,
    wording,
)
from knowledge.candidates import (
    Cand,
    candidates,
    choose,
    demote_chained,
    demote_frames_before_an_exception,
    demote_teardown,
)
from knowledge.collateral_only import dead_child, from_collateral, odd_rank_out
from knowledge.phases import PhaseFact
from knowledge.scanner import SourceScan
from knowledge.schema import Entry
from knowledge.signals import Job, Signal, job_year
from knowledge.store_binder import binder_rank
from knowledge.verdict import (
    INCONCLUSIVE,
    LONE_EXIT_SCORE,
    Scored,
    Verdict,
    confidence,
    dedupe,
    phase_decides,
    score_entries,
)


def attribute(job: Job, fallback_entry: Entry | None) -> Verdict:
    named_rank.message_culprits(job)
    v = _named_culprit(job, _attribute(job, fallback_entry))
    mismatch_ranks.settle(job, v)
    named_rank.name_rank(job, v)
    if binder_rank(job, v) is not None:
        v.rank, v.actor, v.node = 0, ("rank", "0"), job.rank_node.get(0)
        v.notes.append(wording.store_binder())
    launcher_rank.name_from_launcher(job, v)  # torchrun's @record line, Horovod's coordinator frame
    if v.node is None and v.rank is None and len(job.hosts) == 1:
        v.node = next(iter(job.hosts))  # the scheduler ended the job on the one node it names
    if (found := shadowing.shadowed(job, v)) is not None:
        shadowing.as_code_error(job, v, wording.shadowed(*found))
        v.notes.append(wording.shadowed_note(*found))
    if sigs := libcalls.unframed_signature_errors(job, v):
        libcalls.as_api_drift(job, v, sigs)  # a signature error with no frame saying who called
    version_split.as_mixed_versions(job, v)  # ranks that name two releases of NCCL or torch
    return v


def _named_culprit(job: Job, v: Verdict) -> Verdict:
    """A desync report that names the ranks which never joined outranks the rank that printed it,
    unless a rank's own failure explains the job (a first-hand primary, not a wait or a timeout)."""
    named = bool(job.culprits)
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
    v.notes.append(wording.desync_report(sorted(culprits)) if named else _odd_call(job, culprits))
    if not named:
        _as_desync(job, v)
    return v


#: the entry for ranks found in different collectives; the generic timeout it replaces
DESYNC_ENTRY, GENERIC_TIMEOUT = "nccl-desync-report", "nccl-watchdog-timeout"


def _as_desync(job: Job, v: Verdict) -> None:
    """Ranks seen in different collectives make the generic collective timeout a desync: its fix
    (make the calls identical on every rank), not a longer timeout. Same category, so only the advice
    changes; the generic entry stays an alternative."""
    desync = job.entries.get(DESYNC_ENTRY)
    if desync is None or v.entry is None or v.entry.id != GENERIC_TIMEOUT:
        return
    v.alternatives = [v.entry, *(a for a in v.alternatives if a.id != DESYNC_ENTRY)]
    v.scores.setdefault(DESYNC_ENTRY, v.scores.get(GENERIC_TIMEOUT, 0.0))
    v.lost_why[GENERIC_TIMEOUT] = wording.DESYNC_NOT_SLOW
    v.entry = desync


def _odd_call(job: Job, culprits: set[int]) -> str:
    """What the odd ranks were in against the others: the c10d call of each traceback, else the
    collective (op and sequence number) of each watchdog line."""
    for per_rank, say in ((job.pending_op, str), (job.seq, lambda s: f"{s[0]} #{s[1]}")):
        odd = {say(per_rank[r]) for r in culprits if r in per_rank}
        rest = {r: say(x) for r, x in per_rank.items() if r not in culprits}
        if odd and rest:
            return wording.odd_collective(
                sorted(culprits), sorted(odd), sorted(rest), sorted(set(rest.values()))
            )
    return wording.odd_collective(sorted(culprits), [], [], [])


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
    demote_teardown(job)
    demote_chained(job)
    demote_frames_before_an_exception(job)
    cands = candidates(job)
    if cands:
        return _when_stalled(job, _from_primary(job, cands))
    coll = [s for s in job.signals if s.role == "collateral" or s.demoted]
    scored = _teardown_last(score_entries(coll, job))
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


#: the least share of the teardown's score another collateral entry needs to come before it
TEARDOWN_SHARE = 0.5


def _teardown_last(scored: list[Scored]) -> list[Scored]:
    """The launcher's teardown (`closing signal SIGTERM`, `ChildFailedError`, srun's `Exited with exit
    code`) describes how the job was stopped, not what failed: when any other collateral entry scored
    (the waiters' timeouts), it comes first, whatever the teardown's lines add up to. A torchrun hang
    under srun has five teardown lines and srun's exit line: they outweighed the three ranks' gloo
    timeouts, and the teardown then yielded to the last error line, read as a code error."""
    rest = [s for s in scored if fallback.TEARDOWN_TAG not in s.entry.tags]
    if not rest or len(rest) == len(scored) or rest[0].score < TEARDOWN_SHARE * scored[0].score:
        return scored  # a stray weak hit (one exit code) does not outrank the teardown either
    return rest + [s for s in scored if fallback.TEARDOWN_TAG in s.entry.tags]


def _all_at_once(cands: list[Cand], chosen: Cand) -> bool:
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
        if (fatal := fallback.last_fatal(job, i)) is not None and fatal.kind in fallback.CLASSES:
            return None  # it ended on a crash of its own (a traceback, a signal): not a silent death
        last = scan.numbered_tail[-1][0]
        fact = job.epoch_end(i, last, job.resumed(i, last, job.phases.at(i, last, scan.source.rank, None)))
        entry = _silent_entry(job, fact.phase) if fact is not None and _dies_there(job, fact) else None
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


def _dies_there(job: Job, fact: PhaseFact) -> bool:
    """Does a log that stops at `fact`'s marker read as a silent death (not a hang)? Its marker says."""
    markers = job.phases.markers if job.phases is not None else []
    return next((m.silent_end for m in markers if m.id == fact.marker), True)


def _silent_entry(job: Job, phase: str) -> Entry | None:
    """The entry that explains a silent stop in `phase` (its `silent_phases`), by priority."""
    for entry in sorted(job.entries.values(), key=lambda e: (-e.priority, e.id)):
        if phase in entry.silent_phases:
            return entry
    return None


def _from_primary(job: Job, cands: list[Cand]) -> Verdict:
    chosen, fallback = choose(job, cands)
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
        if (still := stall.quiet(job, v.stamp, job_year(job.scans))) is not None:
            v.after.append(wording.quiet_before(still[0].gap, still[0].last.iso() or "", still[1]))
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


def _locate(job: Job, v: Verdict, chosen: Cand) -> None:
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
    if not named and (task := srun_tasks.failed_task(job)) is not None:
        v.rank, v.node = task, v.node or job.rank_node.get(task)  # srun's one task that ended by itself
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
