"""The verdict when only consequences were logged: timeouts, resets, a launcher's teardown.

No rank logged a failure of its own, so the strongest collateral-only entry is the answer (at most
`INCONCLUSIVE`) and the rank that behaved differently is the likely initiator: desynchronised (another
collective's sequence number), silent while the others timed out, busy elsewhere, lagging in steps,
the child a launcher singled out, or rank 0 when only the others waited and it wrote nothing.
"""

from __future__ import annotations

from collections import Counter

from knowledge import stragglers, wording
from knowledge.lines import parse_rank, parse_step
from knowledge.schema import Entry
from knowledge.signals import Job, Signal
from knowledge.verdict import INCONCLUSIVE, Scored, Verdict, confidence, dedupe


def dead_child(job: Job) -> stragglers.Inferred | None:
    """The child a launcher's own lines single out as the one that died (one node only)."""
    if not job.single_node:
        return None
    texts = [*(s.hit.text for s in job.signals), *(t for scan in job.scans for t in scan.tail_text)]
    return stragglers.failed_command(texts) or stragglers.unsignalled_child(texts)


def from_collateral(job: Job, scored: list[Scored]) -> Verdict:
    best = scored[0]
    runner = scored[1].score if len(scored) > 1 else None
    v = Verdict(
        category=best.entry.category,
        entry=best.entry,
        confidence=round(confidence(best.score, runner, False, False) * 0.75, 2),
        evidence=sorted(best.signals, key=Signal.order),
        context=best.context,
        alternatives=dedupe([s.entry for s in scored[1:]], best.entry),
        collateral_only=True,
        phase=best.phase,
        scores={sc.entry.id: sc.score for sc in scored},
    )
    v.stamp = v.evidence[0].stamp if v.evidence else None
    v.confidence = min(v.confidence, INCONCLUSIVE)  # only consequences seen: the cause is elsewhere
    _peer_vanished_mid_save(job, v)
    waiters = {s.rank for s in best.signals if s.rank is not None}
    rank, note = odd_rank_out(job, waiters)
    if rank is not None:
        v.rank, v.actor = rank, ("rank", str(rank))
        v.node = job.rank_node.get(rank)
        v.stamp = None  # inferred from the others' behaviour: when it stalled is not in the logs
        v.notes.append(note)
        v.confidence = round(v.confidence * 0.9, 2)
    elif (child := dead_child(job)) is not None and child.rank not in waiters:
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
    elif best.entry.category in WAITING_CATEGORIES and (silent := _silent_few(job, waiters)):
        v.notes.append(wording.silent_ranks(silent, waiters))
    return v


def _silent_few(job: Job, waiting: set[int]) -> list[int]:
    """Two or three ranks of a known world that never reported the timeout the others did: one of them
    stalled, and a launcher stopping the job can cut off a waiter before its own timeout fires, so
    the logs cannot tell which. Named as candidates, not as the initiating rank."""
    if not job.world or job.world < 3 or not waiting:
        return []
    silent = sorted(set(range(job.world)) - waiting)
    return silent if 2 <= len(silent) <= 3 else []


#: a lost connection that a silent death mid-phase explains better (the peer's socket closing)
PEER_LOST_CATEGORIES = frozenset({"nccl_comm_error"})
CHECKPOINT_PHASES = frozenset({"checkpoint_save", "checkpoint_load"})


def _peer_vanished_mid_save(job: Job, v: Verdict) -> None:
    """The ranks only lost their connection to a peer while they were saving or loading a checkpoint,
    and no rank logged a failure of its own: the peer vanished without a traceback there, and a process
    killed outright by the kernel (SIGKILL from the OOM killer, which leaves no Python error) while a
    full state dict is gathered into host RAM is the usual reason. The entry that explains a silent
    stop in that phase (`silent_phases`) answers, at lowered confidence; the communication error stays
    the first alternative, and the kernel log decides between them."""
    phase = v.phase.phase if v.phase is not None else None
    if v.category not in PEER_LOST_CATEGORIES or v.entry is None or phase not in CHECKPOINT_PHASES:
        return
    silent = [e for e in job.entries.values() if phase in e.silent_phases and e.category != v.category]
    if not silent:
        return
    entry = min(silent, key=lambda e: (-e.priority, e.id))
    v.lost_why[v.entry.id] = wording.peer_vanished(phase)
    v.alternatives = dedupe([v.entry, *v.alternatives], entry)
    v.category, v.entry = entry.category, entry
    v.confidence = round(v.confidence * 0.8, 2)
    v.notes.append(wording.peer_vanished(phase))


#: categories whose lines say a rank waited for another one: never a reason to name the waiting rank
WAITING_CATEGORIES = frozenset({"nccl_timeout", "hang_no_error"})


def _waiting_without_rank0(job: Job, best: Scored) -> set[int]:
    """The ranks that timed out waiting, when rank 0 is not among them and wrote no line at all.

    Rank-0-only work — saving the checkpoint, evaluating, logging, writing to a tracker — is the most
    common reason the others sit in a collective until the watchdog fires, and rank 0 is the rank
    that stays quiet meanwhile. Named only with no better lead (no desync, no silent rank in a known
    world, no dead child), at lowered confidence."""
    waiting = {s.rank for s in best.signals if s.rank is not None}
    if not waiting or 0 in waiting or 0 in job.ranks or _wrote_lines(job, 0):
        return set()
    return waiting


def _wrote_lines(job: Job, rank: int) -> bool:
    """Whether any kept line of the logs is labelled with `rank` (its node-local label counts on one
    node, where local and global ranks agree): a rank that logged progress did not log "nothing"."""
    for scan in job.scans:
        if scan.source.kind == "kernel":
            continue
        for _, text in scan.numbered_tail:
            info = parse_rank(text)
            if info.rank == rank or (info.rank is None and info.local == rank and job.single_node):
                return True
    return False


def _lone_excerpt(job: Job, entry: Entry) -> bool:
    """An excerpt of one rank's output (srun's `10: ` labels) whose own failure is a communication
    error, not a wait: the world size is only what that rank's number implies, so no other rank's
    lines were ever in the logs to blame."""
    (only,) = job.ranks
    return entry.category not in WAITING_CATEGORIES and job.world == only + 1


def odd_rank_out(job: Job, waiting: set[int]) -> tuple[int | None, str]:
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
    if (gap := _gap(job, waiting)) is not None:
        return gap, wording.silent_rank(gap, waiting)
    if (behind := _behind(job.enqueued)) is not None:
        return behind, wording.enqueued_behind(behind, job.enqueued)
    if job.single_node and (busy := stragglers.busy_elsewhere(job.phases, waiting)) is not None:
        return busy.rank, busy.why
    steps = _last_steps(job)
    if len(steps) >= 3:
        ordered = sorted(steps.items(), key=lambda kv: kv[1])
        (lag_rank, lag), (_, second) = ordered[0], ordered[1]
        if lag < second:
            return lag_rank, wording.straggler(lag_rank, lag, max(steps.values()))
    return None, ""


def tail_ranks(job: Job) -> set[int]:
    """Every rank a source's kept last lines are labelled with (`[rank3]:`, `[1,3]<stderr>:`, `3: `),
    whether or not a signature matched there: the ranks the logs show at all."""
    seen = set(job.ranks)
    for scan in job.scans:
        if scan.source.kind == "kernel":
            continue
        for _, text in scan.numbered_tail:
            rank = parse_rank(text).rank
            if rank is not None:
                seen.add(rank)
    return seen


def _gap(job: Job, waiting: set[int]) -> int | None:
    """With no world size from the logs: the one rank below the highest one seen that printed nothing
    while the ranks that did print waited or lost their peer (Horovod's shutdown, a closed connection)."""
    if not waiting or (job.world and job.world > max(tail_ranks(job)) + 1):
        return None
    seen = tail_ranks(job)
    if len(seen) < 2 or not waiting <= seen:
        return None
    gap = set(range(max(seen) + 1)) - seen
    return gap.pop() if len(gap) == 1 else None


def _behind(enqueued: dict[int, int]) -> int | None:
    """The one rank whose watchdog says it enqueued fewer collectives than every other rank's: it never
    reached the collective the others wait in (busy elsewhere, stuck, or on another code path)."""
    if len(enqueued) < 2:
        return None
    low = min(enqueued.values())
    holders = [r for r, n in enqueued.items() if n == low]
    return holders[0] if len(holders) == 1 else None


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
