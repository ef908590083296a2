"""One multi-pattern database for every knowledge signature, context pattern and masking rule.

All patterns are compiled once (Hyperscan, block mode, multi-line so `^`/`$` anchor at line breaks)
and scanned over large chunks of a log. Only where Hyperscan cannot be imported, or rejects a
pattern, the same patterns run through Python's `re`, which is slower but gives the same hits.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

#: None where no hyperscan wheel exists for the platform; the patterns then run through `re`
hyperscan: ModuleType | None
try:  # pragma: no cover - which branch runs depends on the platform
    import hyperscan
except ImportError:  # pragma: no cover
    hyperscan = None

PatternKind = Literal["primary", "collateral", "context", "mask", "fact", "phase"]

#: Engine-owned facts read from lines (not failure knowledge): Xid codes, which GPU a rank used,
#: watchdog sequence numbers, world size. Kept here so they share the one scan.
FACT_PATTERNS: dict[str, tuple[str, bool]] = {
    "xid": (r"NVRM: Xid \(", False),
    "rankmap": (r"^\[default\d+\]:\[rank\d+\]:", False),  # local -> global; first per chunk only
    "device": (r"cudaDev \d+ (?:nvmlDev \d+ )?busId [0-9a-f]+", True),
    "seqnum": (r"(?:SeqNum|SequenceNumber)=\d+, ?OpType=[A-Z_]+", False),
    "world": (r"(?:world[_ ]size|nranks)[=: ]+\d+", True),
    # ProcessGroupNCCL's desync report lists the ranks that caused it, one a line
    # (pytorch/pytorch@v2.4.0:torch/csrc/distributed/c10d/TraceUtils.h, retrieveDesyncReport)
    "culprit": (
        r"^[ \t]*\[[0-9]{1,6}\] (?:finished collective #|joined but didn.t finish collective #)",
        False,
    ),
    # where a rank runs: launcher lines (`rank=5 … node=gpu-02`), NCCL's `host:pid:tid [dev] NCCL` prefix
    "rank_host": (r"\b(?:node|host|hostname)=[A-Za-z0-9]", True),  # the line must also say rank=N
    # torchrun's failure summary: `host : gpu-01` just above `rank : 2 (local_rank: 2)`
    "summary_host": (r"^[ \t]*host[ \t]*: [A-Za-z0-9][A-Za-z0-9._-]*[ \t]*$", False),
    "nccl_host": (r"^[A-Za-z0-9][A-Za-z0-9._-]*:[0-9]+:[0-9]+ \[[0-9]+\] NCCL ", False),
    # the collective a rank's traceback is blocked in (the rank in a different one is out of step)
    "c10d_op": (
        r"distributed_c10d\.py\", line [0-9]+, in (?:all_reduce|broadcast|all_gather|all_gather_into_tensor"
        r"|reduce_scatter|reduce_scatter_tensor|barrier|all_to_all|all_to_all_single|gather|scatter|reduce"
        r"|send|recv|monitored_barrier|broadcast_object_list|all_gather_object)\b",
        False,
    ),
    # monitored_barrier (TORCH_DISTRIBUTED_DEBUG=DETAIL) names the ranks that never arrived
    "barrier_culprit": (r"Ranks? [0-9][0-9, ]* failed to pass monitoredBarrier", False),
    # a rank that waits for the communicator's creator names it (ProcessGroupNCCL broadcastUniqueNCCLID)
    "waited_on": (r"retrieving ncclUniqueId from \[[0-9]{1,6}\]", False),
}

SINGLE_FACTS = frozenset({"rankmap", "nccl_host"})


@dataclass(frozen=True, slots=True)
class Pattern:
    """One compiled pattern and what a hit on it means."""

    idx: int
    regex: str
    caseless: bool
    kind: PatternKind
    sig_id: str
    entry: str | None = None
    weight: float = 1.0
    window: int = 0
    single: bool = False  # report only the first match per scanned chunk (frequent, informative once)


Hit = tuple[int, int]  # (pattern idx, end offset in the scanned buffer)


class PatternSet:
    """Compiled patterns; `scan(buffer)` returns `(pattern idx, end offset)` hits in offset order."""

    def __init__(self, patterns: Sequence[Pattern], cache_dir: Path | None = None) -> None:
        self.patterns = list(patterns)
        self._cache_dir = cache_dir
        self._hs: Any = None  # a hyperscan.Database (the module is optional, so typed loosely)
        self._py: list[tuple[int, re.Pattern[bytes]]] = []
        self.backend = "python"
        # identical expressions (entries share signatures) are compiled once and fanned out on a hit
        reps: dict[tuple[str, bool, bool], int] = {}
        self._fan: list[list[int]] = [[] for _ in self.patterns]
        for p in self.patterns:
            rep = reps.setdefault((p.regex, p.caseless, p.single), p.idx)
            self._fan[rep].append(p.idx)
        hs_patterns = [p for p in self.patterns if self._fan[p.idx]]
        if hyperscan is not None:
            self._hs = self._cached()
            if self._hs is None:
                hs_patterns, rejected = self._split_supported(hs_patterns)
                self._py = [(p.idx, _py_compile(p)) for p in rejected]
                if hs_patterns:
                    self._hs = _hs_compile(hs_patterns)
                    if not rejected:
                        self._store(self._hs)
            self.backend = "hyperscan"
        else:  # pragma: no cover - exercised only without a hyperscan wheel
            self._py = [(p.idx, _py_compile(p)) for p in hs_patterns]

    def _cache_path(self) -> Path | None:
        return db_cache_path(
            self._cache_dir, ("v2", [(p.idx, p.regex, p.caseless, p.single) for p in self.patterns])
        )

    def _cached(self) -> Any:
        """A database compiled earlier for exactly these patterns (compiling takes most of a second)."""
        db = load_db(self._cache_path())
        if db is not None:
            assert hyperscan is not None
            db.scratch = hyperscan.Scratch(db)  # a deserialised database comes without scratch space
        return db

    def _store(self, db: Any) -> None:
        store_db(self._cache_path(), db)

    @staticmethod
    def _split_supported(patterns: list[Pattern]) -> tuple[list[Pattern], list[Pattern]]:
        """Hyperscan rejects a few constructs Python accepts; those patterns run in Python instead."""
        try:
            _hs_compile(patterns)
            return patterns, []
        except Exception:  # hyperscan.error; one bad pattern fails the whole database
            ok: list[Pattern] = []
            bad: list[Pattern] = []
            for p in patterns:
                try:
                    _hs_compile([p])
                    ok.append(p)
                except Exception:
                    bad.append(p)
            return ok, bad

    def scan(self, data: memoryview | bytes, budget: list[int] | None = None) -> list[Hit]:
        """All hits in `data`, in offset order. `budget[idx]` (decremented here) caps the hits kept per
        pattern, so a pattern that matches every line costs a callback, not memory."""
        hits: list[Hit] = []
        append = hits.append
        fan = self._fan
        left = budget if budget is not None else [1 << 62] * len(self.patterns)
        if self._hs is not None:

            def cb(rep: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
                for idx in fan[rep]:
                    if left[idx] > 0:
                        left[idx] -= 1
                        append((idx, to))

            self._hs.scan(data, match_event_handler=cb)
        if self._py:
            raw = bytes(data) if not isinstance(data, bytes) else data
            for rep, rx in self._py:
                single = self.patterns[rep].single
                for m in rx.finditer(raw):
                    for idx in fan[rep]:
                        if left[idx] > 0:
                            left[idx] -= 1
                            append((idx, m.end()))
                    if m.end() == m.start() or single or not any(left[i] > 0 for i in fan[rep]):
                        break
        hits.sort(key=lambda h: h[1])
        return hits


def db_cache_path(cache_dir: Path | None, key: object) -> Path | None:
    """Where a database compiled from `key` (its exact expressions and flags) is kept, if anywhere."""
    if cache_dir is None or hyperscan is None:
        return None
    digest = hashlib.sha256(repr((hyperscan.__version__, key)).encode()).hexdigest()[:32]
    return cache_dir / f"hs-{digest}.db"


def load_db(path: Path | None) -> Any:
    """A block-mode database serialised earlier to `path` (without scratch space), or None."""
    if path is None or hyperscan is None or not path.is_file():
        return None
    try:
        return hyperscan.loadb(path.read_bytes(), hyperscan.HS_MODE_BLOCK)
    except Exception:  # a stale or foreign file: compile instead
        return None


def store_db(path: Path | None, db: Any) -> None:
    """Serialise `db` to `path` atomically; a read-only home is fine (the cache is an optimisation)."""
    if path is None or hyperscan is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(hyperscan.dumpb(db))
        os.replace(tmp, path)
    except OSError:
        pass


def _hs_compile(patterns: Sequence[Pattern]) -> Any:
    """A block-mode database of `patterns`; only called where `hyperscan` imported."""
    assert hyperscan is not None
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    flags = [
        hyperscan.HS_FLAG_MULTILINE
        | (hyperscan.HS_FLAG_CASELESS if p.caseless else 0)
        | (hyperscan.HS_FLAG_SINGLEMATCH if p.single else 0)
        for p in patterns
    ]
    db.compile(
        expressions=[p.regex.encode("utf-8") for p in patterns],
        ids=[p.idx for p in patterns],
        elements=len(patterns),
        flags=flags,
    )
    return db


def _py_compile(p: Pattern) -> re.Pattern[bytes]:
    flags = re.MULTILINE | (re.IGNORECASE if p.caseless else 0)
    try:
        return re.compile(p.regex.encode("utf-8"), flags)
    except re.error:  # a pattern neither engine accepts matches nothing rather than failing a diagnosis
        return re.compile(rb"(?!x)x")
