"""The compact per-rank form of a Flight Recorder dump, and the builder that reduces one dump to it.

A 20,000-entry dump decodes to ~20,000 dicts; kept for 1,000 ranks that is tens of gigabytes. The
analysis needs far less: per process group the highest sequence id each rank entered, started and
completed, the last `WINDOW` collectives in full (op, sizes, dtypes, state) to compare ranks at the
same sequence id, and per peer pair the number of sends and recvs. That is what a `RankTrace` keeps.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: distinct sequence ids kept in full per group and rank (the hang is at the end of the buffer)
WINDOW = 32
STATES = ("scheduled", "started", "completed")
P2P_OPS = frozenset({"send", "recv"})
_MAX_SIZE_NUMBERS = 4096
_RANKS_STR = re.compile(r"^\[\s*(?:\d+\s*(?:,\s*\d+\s*)*)?\]$")


@dataclass(slots=True, frozen=True)
class OpRecord:
    """One recorded operation; `seq` is the collective (or, for p2p, the p2p) sequence id."""

    seq: int
    op: str
    profiling_name: str
    sizes: tuple[Any, ...]
    dtypes: tuple[Any, ...]
    state: str
    retired: bool
    index: int
    peer: tuple[int, int] | None = None
    time_ns: int = 0

    @property
    def fingerprint(self) -> tuple[Any, ...]:
        return (self.op, self.sizes, self.dtypes)


@dataclass(slots=True)
class GroupTrace:
    """One process group as one rank recorded it."""

    name: str
    desc: str
    pg_id: int | None = None
    last_entered: int = 0
    last_started: int = 0
    last_completed: int = 0
    first_seq: int | None = None
    #: seq -> the ops recorded at it (several for a coalesced group), newest `WINDOW` seqs
    window: dict[int, list[OpRecord]] = field(default_factory=dict)
    #: (kind, src, dst) in group-local ranks -> count; and the newest op of each
    p2p_counts: Counter[tuple[str, int, int]] = field(default_factory=Counter)
    p2p_last: dict[tuple[str, int, int], OpRecord] = field(default_factory=dict)
    status: dict[str, int] = field(default_factory=dict)

    def at(self, seq: int) -> list[OpRecord] | None:
        return self.window.get(seq)


@dataclass(slots=True)
class RankTrace:
    name: str
    rank: int | None
    version: str
    groups: dict[str, GroupTrace] = field(default_factory=dict)
    #: pg name -> (desc, member global ranks) from `pg_config`, where it names them
    config: dict[str, tuple[str, tuple[int, ...]]] = field(default_factory=dict)
    #: ranks listed under an unnamed `pg_config` key (gloo in torch 2.13 records the world there)
    unnamed_members: tuple[int, ...] = ()
    last_group: str | None = None
    last_op: OpRecord | None = None
    #: `comm_lib_version` of the dump (NCCL's version; empty when not recorded)
    comm_lib: str = ""
    entries: int = 0
    bad: int = 0
    wrapped: bool = False
    states_informative: bool = False


def parse_ranks(value: Any) -> tuple[int, ...] | None:
    """`pg_config` ranks: torch writes the string `"[0, 1, 2]"`; a plain list is accepted too."""
    if isinstance(value, str) and len(value) < 10_000_000 and _RANKS_STR.match(value):
        return tuple(sorted({int(x) for x in re.findall(r"\d+", value)}))
    if isinstance(value, list) and all(type(x) is int and x >= 0 for x in value):
        return tuple(sorted(set(value)))
    return None


def _freeze(value: Any, budget: list[int], depth: int = 0) -> Any:
    """Nested lists of ints/strings to tuples, refusing cycles, depth > 3 and huge fan-out."""
    if isinstance(value, list | tuple):
        if depth >= 3:
            raise ValueError("nested too deeply")
        budget[0] -= len(value)
        if budget[0] < 0:
            raise ValueError("too many sizes")
        return tuple(_freeze(v, budget, depth + 1) for v in value)
    if type(value) is int or isinstance(value, str):
        return value
    raise ValueError(f"unexpected {type(value).__name__} in sizes")


def _int(value: Any, default: int | None = None) -> int | None:
    if type(value) is int:
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return default


def split_name(profiling_name: str) -> tuple[str, tuple[int, int] | None]:
    """`nccl:send 0->1` -> (`send`, (0, 1)); `gloo:all_reduce` -> (`all_reduce`, None)."""
    name = profiling_name.split(":", 1)[1] if ":" in profiling_name else profiling_name
    op, _, meta = name.partition(" ")
    peer = None
    if op == "send" and "->" in meta:
        s, _, d = meta.partition("->")
        if s.strip().isdigit() and d.strip().isdigit():
            peer = (int(s), int(d))
    elif op == "recv" and "<-" in meta:
        d, _, s = meta.partition("<-")
        if s.strip().isdigit() and d.strip().isdigit():
            peer = (int(s), int(d))
    return op, peer


class TraceBuilder:
    """Feeds one dump's entries, newest first, into a `RankTrace`."""

    def __init__(self, name: str, rank: int | None, version: str) -> None:
        self.trace = RankTrace(name=name, rank=rank, version=version)
        self.bad = 0
        self._status: dict[str, dict[str, int]] = {}
        self._min_record: int | None = None

    def add_config(self, cfg: Any) -> None:
        if not isinstance(cfg, dict):
            return
        for key, info in cfg.items():
            if not isinstance(info, dict):
                continue
            ranks = parse_ranks(info.get("ranks"))
            name = str(info.get("name", key))
            if not name:
                if ranks:
                    self.trace.unnamed_members = tuple(sorted(set(self.trace.unnamed_members) | set(ranks)))
                continue
            if ranks:
                self.trace.config[name] = (str(info.get("desc", "")), ranks)

    def add_status(self, status: Any) -> None:
        if not isinstance(status, dict):
            return
        for pg_id, info in status.items():
            if isinstance(info, dict):
                vals = {k: _int(v) for k, v in info.items() if isinstance(k, str)}
                self._status[str(pg_id)] = {k: v for k, v in vals.items() if v is not None}

    def add_entry(self, index: int, e: Any) -> None:
        parsed = self._parse(e)
        if parsed is None:
            self.bad += 1
            return
        t = self.trace
        t.entries += 1
        gname, gdesc, pg_id, seq, p2p_seq, pname, state, record_id = parsed
        g = t.groups.get(gname)
        if g is None:
            g = t.groups[gname] = GroupTrace(name=gname, desc=gdesc, pg_id=pg_id)
        if state != "scheduled":
            t.states_informative = True
        self._min_record = record_id if self._min_record is None else min(self._min_record, record_id)
        op, peer = split_name(pname)
        is_p2p = e.get("is_p2p") is True or op in P2P_OPS
        if t.last_op is None:  # newest first: the first entry fed is the rank's last operation
            t.last_group, t.last_op = (
                gname,
                self._record(e, p2p_seq if is_p2p else seq, op, pname, state, index, peer),
            )
        if is_p2p:
            self._p2p(g, e, op, pname, p2p_seq, state, index, peer)
            return
        g.last_entered = max(g.last_entered, seq)
        g.first_seq = seq if g.first_seq is None else min(g.first_seq, seq)
        if state != "scheduled":
            g.last_started = max(g.last_started, seq)
        if state == "completed":
            g.last_completed = max(g.last_completed, seq)
        ops = g.window.get(seq)
        if ops is None and len(g.window) >= WINDOW:
            return
        rec = self._record(e, seq, op, pname, state, index, None)
        if ops is None:
            g.window[seq] = [rec]
        else:
            ops.insert(0, rec)  # fed newest first; keep recorded order within a seq

    def _p2p(
        self,
        g: GroupTrace,
        e: Any,
        op: str,
        pname: str,
        seq: int,
        state: str,
        index: int,
        peer: tuple[int, int] | None,
    ) -> None:
        if peer is None:
            return
        key = (op, peer[0], peer[1])
        g.p2p_counts[key] += 1
        if key not in g.p2p_last:
            g.p2p_last[key] = self._record(e, seq, op, pname, state, index, peer)

    def _parse(self, e: Any) -> tuple[str, str, int | None, int, int, str, str, int] | None:
        if not isinstance(e, dict):
            return None
        pg = e.get("process_group")
        pname = e.get("profiling_name")
        seq = e.get("collective_seq_id")
        state = e.get("state")
        if not (isinstance(pg, list | tuple) and len(pg) == 2 and isinstance(pname, str)):
            return None
        if type(seq) is not int or seq < 0 or state not in STATES:
            return None
        p2p_seq = _int(e.get("p2p_seq_id"), 0) or 0
        record_id = _int(e.get("record_id"), 0) or 0
        return str(pg[0]), str(pg[1]), _int(e.get("pg_id")), seq, p2p_seq, pname, state, record_id

    def _record(
        self,
        e: dict[str, Any],
        seq: int,
        op: str,
        pname: str,
        state: str,
        index: int,
        peer: tuple[int, int] | None,
    ) -> OpRecord:
        budget = [_MAX_SIZE_NUMBERS]
        try:
            sizes = (_freeze(e.get("input_sizes", []), budget), _freeze(e.get("output_sizes", []), budget))
            dtypes = (_freeze(e.get("input_dtypes", []), budget), _freeze(e.get("output_dtypes", []), budget))
        except (ValueError, RecursionError):
            sizes, dtypes = ((), ()), ((), ())
        created = _int(e.get("time_created_ns"), 0) or 0
        return OpRecord(seq, op, pname, sizes, dtypes, state, e.get("retired") is True, index, peer, created)

    def finish(self) -> RankTrace:
        t = self.trace
        t.bad = self.bad
        t.wrapped = bool(self._min_record)
        for g in t.groups.values():
            if g.pg_id is not None:
                g.status = self._status.get(str(g.pg_id), {})
        return t
