"""One multi-pattern database for every knowledge signature, context pattern and masking rule.

All patterns are compiled once (Hyperscan, block mode, multi-line so `^`/`$` anchor at line breaks)
and scanned over large chunks of a log. Only where Hyperscan cannot be imported, or rejects a
pattern, the same patterns run through Python's `re`, which is slower but gives the same hits.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from knowledge import cache
from knowledge.anchors import scan_forms
from knowledge.settings import SCAN as SETTINGS_SCAN

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
    "enqueued": (r"last enqueued (?:NCCL )?work: ?\d+", False),
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
    # the node Slurm names when it ends a job or step (`*** JOB 991 ON gpu-01 CANCELLED AT …`)
    # (SchedMD/slurm@slurm-23-11-1-1:src/slurmd/slurmstepd/req.c, the cancel banner)
    "job_host": (r"\*\*\* (?:JOB|STEP) [0-9][0-9.+_]* ON [A-Za-z0-9][A-Za-z0-9._-]* CANCELLED", False),
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
    # ranks named only inside a message: HCCL's abnormal device, torch_npu's error-code tag
    # (knowledge/named_rank.py)
    "named_rank": (
        r"Cluster Exception Location\[IP/ID\]:\["
        r"|\(PID: ?[0-9]+, Device: ?-?[0-9]+, RankID: ?[0-9]+\) ERR[0-9]",
        False,
    ),
    # `main_process_first` (Transformers, Accelerate): every other rank waits in a barrier while the main
    # process (rank 0) preprocesses; a timeout there names rank 0 as the one they waited for
    "main_first": (r"in main_process_first$|\.main_process_first\(desc=", False),
    # the NVIDIA driver a node runs: the kernel module's load line, nvidia-smi's header
    # (NVIDIA/open-gpu-kernel-modules@550.90.07:kernel-open/nvidia/nv.c; nvidia-smi's banner)
    "driver": (r"NVRM: loading NVIDIA UNIX [^ ]+ Kernel Module +[0-9]|Driver Version: +[0-9]{3}\.", False),
    # the versions a job prints at start-up (`torch 2.5.1+cu124, deepspeed 0.16.2, NCCL 2.21.5`, NCCL's
    # `NCCL version 2.21.5+cuda12.4`, DeepSpeed's `DeepSpeed info: version=0.16.2`, collect_env's
    # `PyTorch version: 2.5.1`, transformers-cli env's `` `transformers` version: 4.46.0``), read by
    # knowledge/rankfacts.py so a follow-up can say which versions ran
    "versions": (
        r"\b(?:torch|pytorch|deepspeed|transformers|accelerate|vllm|lightning|nccl|cuda|cudnn|triton"
        r"|flash[_-]attn|megatron[_-]core|peft|jax)`?(?: info:)?(?: version)?(?: \(GPU\?\))?[ :=v]{1,3}"
        r"[0-9]+\.[0-9]+",
        True,
    ),
    # DeepSpeed's own ZeRO-stage lines: its config print (`zero_optimization_stage ...... 3`) and its
    # engine's `Creating torch.bfloat16 ZeRO stage 3 optimizer` (microsoft/DeepSpeed
    # deepspeed/runtime/config.py `print`, engine.py `_configure_zero_optimizer`), read by
    # knowledge/step_fit.py so a fix step never tells a stage-3 job to move to stage 3
    "zero_stage": (r"zero_optimization_stage \.+ [0-3]\b|ZeRO stage [0-3] optimizer", False),
    # the training settings a job prints at start-up (precision, ZeRO stage and its 16-bit gather,
    # offload, batch sizes, workers), read by knowledge/settings.py; the regex lives there
    "settings": (SETTINGS_SCAN, True),
    # how the job was launched (command lines, torchrun's launch config, Slurm's environment), read by
    # knowledge/jobfacts.py to fit the verify command and fix snippet to the job
    "launcher": (
        r"(?:^|[\s/'\"+:=])(?:torchrun|deepspeed|srun|mpirun|accelerate launch"
        r"|python[0-9.]* +-m +torch\.distributed\.(?:run|launch))[ \t]"
        r"|^[ \t]*(?:entrypoint|nproc_per_node|min_nodes|max_nodes)[ \t]*:"
        r"|\b(?:SLURM_NNODES|SLURM_JOB_NUM_NODES|SLURM_NTASKS|MASTER_ADDR|MASTER_PORT)="
        r"|global_world_sizes=\[|deepspeed\.launcher",
        False,
    ),
    # the job's set-up lines no other fact finds: a model load (a launcher's `Loading model <name>`,
    # transformers' `initialized from the model checkpoint at <name>`, a config's `_name_or_path`), the
    # process group's init (ProcessGroupNCCL's `initialized` / `initialization options: size: 8`), the
    # open kernel module's load line; read by knowledge/setup_lines.py so a follow-up can quote them
    "setup": (
        r"\b[Ll]oading (?:pretrained |the )?model\b|initialized from the model checkpoint at "
        r"|_name_or_path\"?[=:]|ProcessGroupNCCL initiali[sz]|NVRM: loading NVIDIA UNIX Open Kernel Module",
        False,
    ),
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
    unless: str = ""  # a hit line that also matches this (any case) is no evidence (`Signature.unless`)
    before: bool = False  # a context pattern counted only above its entry's hit (`ContextPattern.before`)


@functools.lru_cache(maxsize=256)
def _unless_re(regex: str) -> re.Pattern[str]:
    return re.compile(regex, re.IGNORECASE)


def excluded(p: Pattern, text: str) -> bool:
    """A hit on `p` that its `unless` takes back: the line says something else (`Signature.unless`).
    Run on hit lines only, never in the scan, so `unless` may use lookarounds Hyperscan lacks."""
    return bool(p.unless) and _unless_re(p.unless).search(text) is not None


Hit = tuple[int, int]  # (pattern idx, end offset in the scanned buffer)


class Database:
    """One compiled set of patterns; `scan(buffer)` returns `(pattern idx, end offset)` hits in offset
    order. Pattern indices need not be contiguous (a database may hold any subset of the engine's)."""

    def __init__(self, patterns: Sequence[Pattern], cache_dir: Path | None = None) -> None:
        self.patterns = list(patterns)
        self._cache_dir = cache_dir
        self._hs: Any = None  # a hyperscan.Database (the module is optional, so typed loosely)
        self._py: list[tuple[int, re.Pattern[bytes]]] = []
        self._single = {p.idx: p.single for p in self.patterns}
        self.size = max((p.idx for p in self.patterns), default=-1) + 1
        self.backend = "python"
        # identical expressions (entries share signatures) are compiled once and fanned out on a hit
        reps: dict[tuple[str, bool, bool], int] = {}
        self._fan: dict[int, list[int]] = {}
        for p in self.patterns:
            rep = reps.setdefault((p.regex, p.caseless, p.single), p.idx)
            self._fan.setdefault(rep, []).append(p.idx)
        hs_patterns = [p for p in self.patterns if p.idx in self._fan]
        if hyperscan is not None:
            self._hs = self._cached() if hs_patterns else None
            if self._hs is None and hs_patterns:
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
            self._cache_dir, ("v3", [(p.idx, p.regex, p.caseless, p.single) for p in self.patterns])
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
        left = budget if budget is not None else [1 << 62] * self.size
        capped = len(left)
        if self._hs is not None:

            def cb(rep: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
                for idx in fan[rep]:
                    if idx >= capped:  # beyond the budget: a prefilter literal, reported once a chunk
                        append((idx, to))
                    elif left[idx] > 0:
                        left[idx] -= 1
                        append((idx, to))

            self._hs.scan(data, match_event_handler=cb)
        if self._py:
            raw = bytes(data) if not isinstance(data, bytes) else data
            for rep, rx in self._py:
                single = self._single[rep]
                for m in rx.finditer(raw):
                    for idx in fan[rep]:
                        if idx >= capped:
                            append((idx, m.end()))
                        elif left[idx] > 0:
                            left[idx] -= 1
                            append((idx, m.end()))
                    if (
                        m.end() == m.start()
                        or single
                        or not any(i >= capped or left[i] > 0 for i in fan[rep])
                    ):
                        break
        hits.sort(key=lambda h: h[1])
        return hits

    def first(self, data: memoryview | bytes, want: int) -> list[Hit]:
        """The hits of single-match patterns in `data`, stopping as soon as `want` patterns reported."""
        hits: list[Hit] = []
        fan = self._fan
        if self._hs is not None:

            def cb(rep: int, _from: int, to: int, _flags: int, _ctx: object) -> bool:
                hits.extend((idx, to) for idx in fan[rep])
                return len(hits) >= want

            with contextlib.suppress(hyperscan.ScanTerminated):  # type: ignore[union-attr]
                self._hs.scan(data, match_event_handler=cb)  # stopped by `cb` once `want` reported
        if self._py:
            raw = bytes(data) if not isinstance(data, bytes) else data
            for rep, rx in self._py:
                m = rx.search(raw)
                if m is not None:
                    hits.extend((idx, m.end()) for idx in fan[rep])
        hits.sort(key=lambda h: h[1])
        return hits


class _Frequent:
    """Patterns reported once a chunk (`single`: the every-step phase markers, facts such as
    `nccl_host`), found without scanning for them.

    As regexes in the main database these few patterns cost half of its speed, although each reports
    once a chunk: Hyperscan keeps checking their common words (`loss`, `epoch`, `NCCL`) on every
    line. The main database holds their necessary literals instead (`knowledge/prefilter.py`),
    reported once a chunk too; from the line of a pattern's first literal its own database runs and
    stops at its first match. That is the hit the main database gave: a match holds one of the
    literals and cannot cross a line. A pattern without provable literals stays in the main database
    as itself.
    """

    def __init__(self, patterns: Sequence[Pattern], base: int, cache_dir: Path | None) -> None:
        from knowledge.prefilter import literals_for

        self.gate: list[Pattern] = []  # what the main database scans for these patterns
        self._marker: dict[int, Pattern] = {}  # gate idx -> the pattern whose literal it is
        self._dbs: dict[int, Database] = {}  # pattern idx -> its own database, built on first use
        self._cache_dir = cache_dir
        items = [(p.regex, p.caseless) for p in patterns] if hyperscan is not None else []
        literals = literals_for(items, cache_dir) if items else [None] * len(patterns)
        for p, found in zip(patterns, literals, strict=True):
            if found is None:
                self.gate.append(p)
                continue
            for lit in found.strings:
                idx = base + len(self._marker)
                self.gate.append(replace(p, idx=idx, regex=literal(lit), single=True))
                self._marker[idx] = p

    def owns(self, idx: int) -> bool:
        return idx in self._marker

    def hits(self, text: bytes | bytearray, end: int, gate_hits: list[Hit]) -> list[Hit]:
        """The markers' hits in `text[:end]`, given the gate's hits there (each marker's first match)."""
        first: dict[int, int] = {}
        for gid, to in gate_hits:
            p = self._marker[gid]
            first[p.idx] = min(first.get(p.idx, end), to - 1)
        view = memoryview(text)[:end]
        out: list[Hit] = []
        for idx, pos in first.items():
            a = text.rfind(b"\n", 0, pos) + 1
            out.extend((i, a + to) for i, to in self._db(idx).first(view[a:], 1))
        return out

    def _db(self, idx: int) -> Database:
        db = self._dbs.get(idx)
        if db is None:
            p = next(q for q in self._marker.values() if q.idx == idx)
            db = self._dbs[idx] = Database([p], self._cache_dir)
        return db


#: each byte as a Hyperscan expression matching exactly it (letters and digits as themselves)
_ESCAPED = tuple(chr(b) if chr(b).isalnum() and b < 128 else f"\\x{b:02x}" for b in range(256))


def literal(s: str) -> str:
    """`s` as a Hyperscan expression that matches exactly it."""
    return "".join(map(_ESCAPED.__getitem__, s.encode("utf-8")))


class PatternSet:
    """Every pattern of the engine; `scan(buffer)` returns `(pattern idx, end offset)` hits in offset
    order, the hits one database of all of them gives: one main database, with the once-a-chunk
    patterns (every-step phase markers, some facts) replaced by their literals (`_Frequent`)."""

    def __init__(self, patterns: Sequence[Pattern], cache_dir: Path | None = None) -> None:
        self.patterns = list(patterns)
        frequent = [p for p in self.patterns if p.single]
        self._frequent = _Frequent(frequent, len(self.patterns), cache_dir)
        rest = [p for p in self.patterns if not p.single]
        self._main = Database(rest + self._frequent.gate, cache_dir)
        self.backend = self._main.backend

    def scan(
        self, data: bytes | bytearray, budget: list[int] | None = None, end: int | None = None
    ) -> list[Hit]:
        """All hits in `data[:end]`, in offset order; `budget` as in `Database.scan`."""
        end = len(data) if end is None else end
        left = budget if budget is not None else [1 << 62] * len(self.patterns)
        hits = self._main.scan(memoryview(data)[:end], left)
        gate = [h for h in hits if self._frequent.owns(h[0])]
        if not gate:
            return hits
        hits = [h for h in hits if not self._frequent.owns(h[0])]
        marks = self._frequent.hits(data, end, gate)
        marks.sort(key=lambda h: h[1])
        for idx, to in marks:
            if left[idx] > 0:
                left[idx] -= 1
                hits.append((idx, to))
        hits.sort(key=lambda h: h[1])
        return hits


def db_cache_path(cache_dir: Path | None, key: object) -> Path | None:
    """Where a database compiled from `key` (its exact expressions and flags) is kept, if anywhere.

    The name also digests the hyperscan version and the source of `anchors` (whose `scan_forms` turns
    a pattern into the expressions compiled), so a changed rewrite never loads an old database."""
    if cache_dir is None or hyperscan is None:
        return None
    anchors_src = Path(__file__).with_name("anchors.py")
    name = cache.file_digest([anchors_src], "hs-v4", hyperscan.__version__, repr(key))
    return cache_dir / f"hs-{name}.db"


def load_db(path: Path | None) -> Any:
    """A block-mode database serialised earlier to `path` (without scratch space), or None.

    Only a cache file private to this user is read (`knowledge/cache.py`): deserialising is C code
    that trusts its input. One that does not deserialise (damaged, another platform) is compiled anew.
    """
    if hyperscan is None:
        return None
    data = cache.read(path)
    if data is None:
        return None
    try:
        return hyperscan.loadb(data, hyperscan.HS_MODE_BLOCK)
    except Exception:  # a stale or foreign file: compile instead
        return None


def store_db(path: Path | None, db: Any) -> None:
    """Serialise `db` to `path` atomically; a read-only home is fine (the cache is an optimisation)."""
    if path is None or hyperscan is None:
        return
    try:
        data = hyperscan.dumpb(db)
    except Exception:  # hyperscan.error: a database that does not serialise is simply not kept
        return
    cache.write(path, data)


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
    # each pattern as the union of simpler expressions under its one id (knowledge/anchors.py): the
    # same lines match, and Hyperscan finds each branch by its own literals
    forms = [
        (form, p.idx, flag) for p, flag in zip(patterns, flags, strict=True) for form in scan_forms(p.regex)
    ]
    db.compile(
        expressions=[form.encode("utf-8") for form, _, _ in forms],
        ids=[idx for _, idx, _ in forms],
        elements=len(forms),
        flags=[flag for _, _, flag in forms],
    )
    return db


def _py_compile(p: Pattern) -> re.Pattern[bytes]:
    flags = re.MULTILINE | (re.IGNORECASE if p.caseless else 0)
    try:
        return re.compile(p.regex.encode("utf-8"), flags)
    except re.error:  # a pattern neither engine accepts matches nothing rather than failing a diagnosis
        return re.compile(rb"(?!x)x")
