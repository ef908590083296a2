"""Cross-rank analysis of Flight Recorder traces, one process group at a time.

When a collective hangs every rank's log says "timeout"; the traces say who never arrived. Per group
(members from `pg_config`, else the world for the default group, else the ranks seen in it):

- the *front*: the highest collective sequence id any member entered; members that stopped short of
  it are `missing` — unless they are themselves blocked at the front of another group that is waiting
  for someone else (a tensor-parallel peer of a hung rank never reaches the next data-parallel
  collective: collateral, not a cause);
- `desync_op` / `desync_size`: at one sequence id some ranks recorded another op or other sizes;
- `p2p_unmatched`: more sends from a rank to a peer than the peer posted recvs (or the reverse);
- `not_completed`: where the dump has real states (NCCL with timing), a rank whose op started but
  never completed while others completed it.

Each rank is named once, for its most telling finding; the first by (reason, how early it stopped,
rank) is the one a log-less diagnosis names as initiating.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from denpex.core.models import CollectiveGroup, Collectives, CollectiveSuspect, RankActivity
from denpex.core.texts import flightrec as texts
from knowledge.flightrec.trace import OpRecord, RankTrace

#: a rank that diverged usually stopped there too (and so also looks "missing" from the next one):
#: the divergence is the cause, so it ranks first
PRIORITY = {"desync_op": 0, "desync_size": 1, "missing": 2, "p2p_unmatched": 3, "not_completed": 4}
#: ops whose sizes legitimately differ per rank (as in torch's fr_trace): only the op is compared
VARIABLE_SIZES = frozenset(
    {
        "all_to_all",
        "all_to_all_single",
        "all_to_all_v_single",
        "all_gather_v",
        "reduce_scatter_v",
        "gather",
        "scatter",
        "coalesced",
    }
)
MAX_ACTIVITY = 50


@dataclass(slots=True)
class Finding:
    suspect: CollectiveSuspect
    order: tuple[int, int, int, int]  # (reason priority, when its group stalled, how early it stopped, rank)
    index: int | None = None  # entry index in the rank's dump, for evidence


@dataclass(slots=True)
class Result:
    collectives: Collectives
    suspect_ranks: list[int]
    initiating: Finding | None
    missing_dumps: list[int] = field(default_factory=list)


@dataclass(slots=True)
class _Group:
    name: str
    desc: str
    members: list[int]
    present: list[int]
    front: int = 0
    front_ops: list[OpRecord] | None = None
    at_front: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    last: dict[int, int] = field(default_factory=dict)
    #: when the front collective was first created on a rank that entered it: the group that stalled
    #: first is where a rank that is missing from several groups is named
    front_time: int = 0


def fmt_sizes(sizes: tuple[Any, ...]) -> str:
    ins, outs = sizes if len(sizes) == 2 else ((), ())
    return f"{json.dumps(ins)}->{json.dumps(outs)}"


def _is_default(name: str, desc: str) -> bool:
    return desc == "default_pg" or name == "0"


def _world(traces: dict[int, RankTrace]) -> set[int]:
    world = set(traces)
    for t in traces.values():
        world.update(t.unnamed_members)
        for name, (desc, ranks) in t.config.items():
            if _is_default(name, desc):
                world.update(ranks)
    return world | set(range(max(world) + 1)) if world else world


def _groups(traces: dict[int, RankTrace]) -> list[_Group]:
    names: dict[str, str] = {}
    for t in traces.values():
        for g in t.groups.values():
            names.setdefault(g.name, g.desc)
    world = sorted(_world(traces))
    out = []
    for name in sorted(names, key=lambda n: (not n.isdigit(), int(n) if n.isdigit() else 0, n)):
        desc = names[name]
        configured = [t.config[name][1] for t in traces.values() if name in t.config]
        if configured:
            members = sorted(set().union(*configured))
        elif _is_default(name, desc):
            members = world
        else:
            members = sorted(r for r, t in traces.items() if name in t.groups)
        # a rank whose ring buffer wrapped past its last op in this group says nothing about it
        present = [r for r in members if r in traces and (name in traces[r].groups or not traces[r].wrapped)]
        out.append(_Group(name, desc, members, present))
    return out


def _front(g: _Group, traces: dict[int, RankTrace]) -> None:
    for r in g.present:
        gt = traces[r].groups.get(g.name)
        g.last[r] = gt.last_entered if gt is not None else 0
    g.front = max(g.last.values(), default=0)
    if g.front == 0:
        return
    g.at_front = [r for r in g.present if g.last[r] == g.front]
    g.missing = [r for r in g.present if g.last[r] < g.front]
    fps: Counter[tuple[Any, ...]] = Counter()
    sample: dict[tuple[Any, ...], list[OpRecord]] = {}
    for r in g.at_front:
        ops = traces[r].groups[g.name].at(g.front)
        if ops:
            fp = tuple(o.fingerprint for o in ops)
            fps[fp] += 1
            sample.setdefault(fp, ops)
            if ops[0].time_ns and (not g.front_time or ops[0].time_ns < g.front_time):
                g.front_time = ops[0].time_ns
    if fps:
        g.front_ops = sample[fps.most_common(1)[0][0]]


def _label(g: _Group) -> str:
    return g.desc if g.desc and g.desc != "undefined" else g.name


def _op_name(ops: Sequence[OpRecord] | None) -> str:
    if not ops:
        return "a collective"
    return ops[0].op if len(ops) == 1 else "coalesced(" + ",".join(o.op for o in ops) + ")"


def _missing(g: _Group, traces: dict[int, RankTrace], waiting: dict[int, str]) -> list[Finding]:
    out = []
    op = _op_name(g.front_ops)
    for r in g.missing:
        if waiting.get(r, g.name) != g.name:
            continue  # blocked at the front of another group that waits for someone else
        gt = traces[r].groups.get(g.name)
        last = g.last[r]
        ops = gt.at(last) if gt is not None and last else None
        state = ops[-1].state if ops and traces[r].states_informative else ""
        why = texts.missing(op, g.front, _label(g), g.at_front, last, state)
        s = CollectiveSuspect(
            rank=r,
            group_id=g.name,
            group_desc=g.desc,
            seq_id=g.front,
            op=op,
            reason="missing",
            why=why,
            state=None,
            source=traces[r].name,
        )
        order = (PRIORITY["missing"], g.front_time, last, r)
        out.append(Finding(s, order, ops[-1].index if ops else None))
    return out


def _waiting(groups: list[_Group], traces: dict[int, RankTrace]) -> dict[int, str]:
    """rank -> the group whose front it is blocked at, where that group is missing someone."""
    out: dict[int, str] = {}
    for g in groups:
        if not g.missing:
            continue
        for r in g.at_front:
            if traces[r].last_group == g.name:
                out[r] = g.name
    return out


def _by_seq(g: _Group, traces: dict[int, RankTrace]) -> dict[int, dict[tuple[Any, ...], list[int]]]:
    by_seq: dict[int, dict[tuple[Any, ...], list[int]]] = defaultdict(lambda: defaultdict(list))
    for r in g.present:
        gt = traces[r].groups.get(g.name)
        if gt is None:
            continue
        for seq, ops in gt.window.items():
            by_seq[seq][tuple(o.fingerprint for o in ops)].append(r)
    return by_seq


def _desync(g: _Group, traces: dict[int, RankTrace], by_seq: dict[int, Any]) -> list[Finding]:
    out: list[Finding] = []
    seen: set[int] = set()
    for seq in sorted(by_seq):
        fps = by_seq[seq]
        if len(fps) < 2:
            continue
        major = max(fps, key=lambda fp: (len(fps[fp]), -min(fps[fp])))
        ref = traces[fps[major][0]].groups[g.name].window[seq]
        for fp, ranks in fps.items():
            if fp == major:
                continue
            mine = traces[ranks[0]].groups[g.name].window[seq]
            if _op_name(mine) == _op_name(ref) and any(o.op in VARIABLE_SIZES for o in mine):
                continue
            for r in ranks:
                if r in seen:
                    continue
                seen.add(r)
                out.append(_desync_finding(g, traces[r], r, seq, ref, fps[major]))
    return out


def _desync_finding(
    g: _Group, t: RankTrace, r: int, seq: int, ref: list[OpRecord], others: list[int]
) -> Finding:
    mine = t.groups[g.name].window[seq]
    op, other_op = _op_name(mine), _op_name(ref)
    sizes, other_sizes = fmt_sizes(mine[0].sizes), fmt_sizes(ref[0].sizes)
    if op != other_op:
        reason, why = "desync_op", texts.desync_op(op, sizes, seq, _label(g), other_op, other_sizes, others)
    else:
        if sizes == other_sizes:
            sizes, other_sizes = f"{sizes} {mine[0].dtypes}", f"{other_sizes} {ref[0].dtypes}"
        reason, why = "desync_size", texts.desync_size(op, sizes, seq, _label(g), other_sizes, others)
    s = CollectiveSuspect(
        rank=r,
        group_id=g.name,
        group_desc=g.desc,
        seq_id=seq,
        op=op,
        reason=reason,
        why=why,
        state=mine[-1].state,
        source=t.name,
    )
    return Finding(s, (PRIORITY[reason], mine[0].time_ns, seq, r), mine[-1].index)


def _not_completed(g: _Group, traces: dict[int, RankTrace], by_seq: dict[int, Any]) -> list[Finding]:
    out: list[Finding] = []
    seen: set[int] = set()
    for seq in sorted(by_seq, reverse=True):
        done: list[tuple[int, list[OpRecord]]] = []
        stuck: list[tuple[int, list[OpRecord]]] = []
        for ranks in by_seq[seq].values():
            for r in ranks:
                ops = traces[r].groups[g.name].window[seq]
                (done if ops[-1].state == "completed" else stuck).append((r, ops))
        if not done:
            continue
        for r, ops in stuck:
            if r in seen:
                continue
            seen.add(r)
            why = texts.not_completed(_op_name(ops), seq, _label(g), ops[-1].state, [d for d, _ in done])
            s = CollectiveSuspect(
                rank=r,
                group_id=g.name,
                group_desc=g.desc,
                seq_id=seq,
                op=_op_name(ops),
                reason="not_completed",
                why=why,
                state=ops[-1].state,
                source=traces[r].name,
            )
            out.append(Finding(s, (PRIORITY["not_completed"], ops[0].time_ns, seq, r), ops[-1].index))
    return out


def _p2p(g: _Group, traces: dict[int, RankTrace]) -> list[Finding]:
    local = g.members if (g.members and (_is_default(g.name, g.desc) or _configured(g, traces))) else None
    if local is None:
        return []
    pairs: set[tuple[int, int]] = set()
    for r in g.present:
        gt = traces[r].groups.get(g.name)
        if gt is not None:
            pairs.update((s, d) for _, s, d in gt.p2p_counts)
    out = []
    for s, d in sorted(pairs):
        if s >= len(local) or d >= len(local):
            continue
        src, dst = local[s], local[d]
        ts, td = traces.get(src), traces.get(dst)
        if ts is None or td is None or ts.wrapped or td.wrapped:
            continue
        gs, gd = ts.groups.get(g.name), td.groups.get(g.name)
        sends = gs.p2p_counts[("send", s, d)] if gs else 0
        recvs = gd.p2p_counts[("recv", s, d)] if gd else 0
        if sends == recvs:
            continue
        kind, culprit, peer, n, m = (
            ("send", dst, src, sends, recvs) if sends > recvs else ("recv", src, dst, recvs, sends)
        )
        peer_g = gs if kind == "send" else gd
        last = peer_g.p2p_last.get((kind, s, d)) if peer_g else None
        why = texts.p2p_unmatched(peer, kind, n, m, _label(g), last.seq if last else None)
        sus = CollectiveSuspect(
            rank=culprit,
            group_id=g.name,
            group_desc=g.desc,
            seq_id=last.seq if last else None,
            op="recv" if kind == "send" else "send",
            reason="p2p_unmatched",
            why=why,
            state=last.state if last else None,
            source=traces[culprit].name,
        )
        out.append(Finding(sus, (PRIORITY["p2p_unmatched"], last.time_ns if last else 0, m, culprit), None))
    return out


def _configured(g: _Group, traces: dict[int, RankTrace]) -> bool:
    return any(g.name in t.config for t in traces.values())


def _activity(traces: dict[int, RankTrace], descs: dict[str, str]) -> list[RankActivity]:
    acts: dict[tuple[str, str, int, str], list[int]] = defaultdict(list)
    for r, t in sorted(traces.items()):
        if t.last_op is not None and t.last_group is not None:
            acts[(t.last_group, t.last_op.op, t.last_op.seq, t.last_op.state)].append(r)
    rows = [
        RankActivity(ranks=ranks, group_id=g, group_desc=descs.get(g, ""), op=op, seq_id=seq, state=state)
        for (g, op, seq, state), ranks in acts.items()
    ]
    rows.sort(key=lambda a: a.ranks[0])
    return rows[:MAX_ACTIVITY]


def analyse(traces: Iterable[RankTrace]) -> Result:
    """Every group's front, missing ranks, desyncs, p2p mismatches; each rank named once."""
    by_rank = {t.rank: t for t in traces if t.rank is not None}
    groups = _groups(by_rank)
    for g in groups:
        _front(g, by_rank)
    waiting = _waiting(groups, by_rank)
    findings: list[Finding] = []
    for g in groups:
        findings += _missing(g, by_rank, waiting)
        by_seq = _by_seq(g, by_rank)
        findings += _desync(g, by_rank, by_seq)
        findings += _p2p(g, by_rank)
        if any(by_rank[r].states_informative for r in g.present):
            findings += _not_completed(g, by_rank, by_seq)
    if not findings:  # every missing rank waits elsewhere: a cycle; name them all rather than none
        for g in groups:
            findings += _missing(g, by_rank, {})
    best: dict[int, Finding] = {}
    for f in sorted(findings, key=lambda f: f.order):
        best.setdefault(f.suspect.rank, f)
    ranked = sorted(best.values(), key=lambda f: f.order)
    absent = sorted({r for g in groups for r in g.members if r not in by_rank})
    coll = Collectives(
        dumps=len(by_rank),
        comm_lib_version=next((t.comm_lib for t in by_rank.values() if t.comm_lib), ""),
        suspects=[f.suspect for f in sorted(best.values(), key=lambda f: f.suspect.rank)],
        groups=[
            CollectiveGroup(
                group_id=g.name,
                group_desc=g.desc,
                size=len(g.members),
                front_seq=g.front or None,
                front_op=_op_name(g.front_ops) if g.front else "",
                entered=len(g.at_front),
                missing=g.missing,
            )
            for g in groups
        ],
        activity=_activity(by_rank, {g.name: g.desc for g in groups}),
    )
    return Result(coll, sorted(best), ranked[0] if ranked else None, absent)
