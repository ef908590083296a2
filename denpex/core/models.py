"""Value types that cross package boundaries.

These are the contracts between the layers: integrations produce `JobRef` and `Evidence`, the
knowledge engine turns `Evidence` into a `Diagnosis`, workers store and post it, the bot renders it.
They are plain pydantic models so they serialise to JSON for Redis and RQ without custom code, and so
a malformed value fails loudly where it is built rather than three processes later.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from enum import StrEnum
from io import FileIO
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Scheduler(StrEnum):
    """Where a job ran. `files` is a site that copies logs to shared storage (`/hooks/job`)."""

    slurm = "slurm"
    kubernetes = "kubernetes"
    files = "files"


class JobRef(BaseModel):
    """One job as a scheduler knows it. Only `scheduler`, `cluster` and `job_id` are required."""

    #: built on first use (`denpex diagnose` never needs it)
    model_config = ConfigDict(extra="ignore", defer_build=True)

    scheduler: Scheduler
    cluster: str = Field(min_length=1, max_length=128)
    job_id: str = Field(min_length=1, max_length=256)
    namespace: str | None = None
    state: str | None = None
    exit_code: str | None = None
    nodes: list[str] = Field(default_factory=list)
    user: str | None = None
    name: str | None = None
    work_dir: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    start: datetime | None = None
    end: datetime | None = None

    @property
    def key(self) -> str:
        """Identity used for exactly-once processing: the same job reported twice has one key."""
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.scheduler.value}:{self.cluster}:{ns}{self.job_id}"


#: `flight_recorder`: a PyTorch Flight Recorder dump (collective trace), found by content; the log
#: scanner skips it and `knowledge.flightrec` reads it
SourceKind = Literal["rank", "combined", "kernel", "scheduler", "flight_recorder"]


class LogSource(BaseModel):
    """One stream of log lines: a rank's log, a combined log, a node's kernel log, or scheduler facts.

    Exactly one of `path`, `data`, `chunks` and `file` is set (`chunks` streams from a remote API without
    holding the whole log in memory; `file` is a log a collector opened and checked, read by offset and
    never reopened by path; neither is serialised). `rank`, `node` and `kind` may be left
    `None` and the engine infers them from the name and the line prefixes. Scheduler facts (Slurm state,
    Kubernetes termination reasons, exit codes) travel as `kind="scheduler"` sources whose lines are
    plain sentences such as `slurm: JobState=OUT_OF_MEMORY ExitCode=0:125`, so the engine matches them
    with the same knowledge signatures as any other log line.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    path: Path | None = None
    data: bytes | None = None
    chunks: Callable[[], Iterable[bytes]] | None = Field(default=None, exclude=True, repr=False)
    file: FileIO | None = Field(default=None, exclude=True, repr=False)
    rank: int | None = None
    node: str | None = None
    kind: SourceKind | None = None

    def open_bytes(self) -> Iterator[bytes]:
        """Yield the raw content in chunks; the engine decodes and splits lines itself."""
        if self.data is not None:
            yield self.data
            return
        if self.chunks is not None:
            yield from self.chunks()
            return
        if self.file is not None:  # by offset: the collector's descriptor, whoever else reads it
            offset = 0
            while chunk := os.pread(self.file.fileno(), 8 << 20, offset):
                offset += len(chunk)
                yield chunk
            return
        if self.path is None:
            return
        with self.path.open("rb") as fh:
            while chunk := fh.read(8 << 20):
                yield chunk


class MissingEvidence(BaseModel):
    what: str
    next_action: str


class Evidence(BaseModel):
    """Everything collected for one job, ready for the engine. Text here is already masked."""

    model_config = ConfigDict(defer_build=True)  # the collectors' type: `denpex diagnose` never builds it

    job: JobRef | None = None
    sources: list[LogSource] = Field(default_factory=list)
    missing: list[MissingEvidence] = Field(default_factory=list)


class EvidenceLine(BaseModel):
    source: str
    line: int
    text: str
    #: `line` numbers (from 1) a record of a binary dump (a Flight Recorder pickle's `entries`), and
    #: `text` is what that record shows in words: there is no text line to open at `source:line`
    record: bool = False

    @property
    def ref(self) -> str:
        """Where to find it: `rank3.log:120`, or `nccl_trace_rank_2 entries[3]` for a dump's record, as
        Python indexes the dump's `entries` list (the fourth record)."""
        if not self.record:
            return f"{self.source}:{self.line}"
        return f"{self.source} entries[{self.line - 1}]" if self.line > 0 else self.source


class EntryRef(BaseModel):
    id: str
    title: str


class Alternative(EntryRef):
    """Another failure mode that fits, with how well and why it lost (`id`/`title` name its entry too)."""

    category: str = ""
    entry: EntryRef | None = None
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    why: str = ""


class Initiating(BaseModel):
    rank: int | None = None
    node: str | None = None
    time: str | None = None
    #: its first line has no time of its own (a combined stream): `time` is an earlier line's, by
    #: another rank, so the failure came at or after it
    time_borrowed: bool = False
    evidence: list[EvidenceLine] = Field(default_factory=list)
    phase: str | None = (
        None  # startup | model_load | rendezvous | data | train | eval | checkpoint_save | ...
    )
    phase_evidence: EvidenceLine | None = None  # the line that shows the phase
    #: the phase was inferred (a progress bar frozen on a round step), not printed by the job
    phase_inferred: bool = False


class CollateralGroup(BaseModel):
    ranks: list[int]
    #: the taxonomy class of the entry the ranks' lines matched best; as a row's words it can tell
    #: another story (a gloo rank's lost peer matches the NCCL/gloo communication entry, a rank the
    #: launcher stopped matches the teardown entry, filed under hang_no_error), so rows show `what`
    category: str
    #: what happened to these ranks, from their own line (`knowledge/collateral_label.py`): a short
    #: kind (gloo_peer, gloo_timeout, nccl_timeout, terminated, exited, ...) and its words for a person
    label: str = ""
    what: str = ""
    first_time: str | None = None
    #: `first_time` is an earlier line's (the group's first failure line has no time of its own): the
    #: ranks failed at or after it, so it never orders them before the initiating rank
    first_time_borrowed: bool = False
    why: str


class Stats(BaseModel):
    files: int = 0
    ranks: int = 0
    bytes: int = 0
    seconds: float = 0.0


class RankTail(BaseModel):
    """The last few (masked) lines of one rank, kept so follow-up questions can quote them."""

    rank: int | None
    source: str
    node: str | None = None
    lines: list[EvidenceLine] = Field(default_factory=list)


# --- Flight Recorder (collective traces, knowledge.flightrec) ---------------------------------------


class CollectiveSuspect(BaseModel):
    """One rank that a collective trace implicates: it never arrived, diverged, or never finished.

    `reason` is one of `missing` (never entered the collective the others are blocked in),
    `desync_op` / `desync_size` (entered a different op or sizes at the same sequence id),
    `p2p_unmatched` (a send or recv with no matching peer op), `not_completed` (started, never
    completed while others completed it).
    """

    rank: int
    group_id: str
    group_desc: str = ""
    seq_id: int | None = None
    op: str = ""
    reason: str
    why: str = ""
    state: str | None = None
    source: str | None = None


class CollectiveGroup(BaseModel):
    """One process group as the dumps show it: the collective at its front and who never entered it."""

    group_id: str
    group_desc: str = ""
    size: int = 0
    front_seq: int | None = None
    front_op: str = ""
    entered: int = 0
    missing: list[int] = Field(default_factory=list)


class RankActivity(BaseModel):
    """Ranks whose last recorded operation was the same (answers "what was each rank doing?")."""

    ranks: list[int]
    group_id: str
    group_desc: str = ""
    op: str = ""
    seq_id: int | None = None
    state: str = ""


class Collectives(BaseModel):
    """What the Flight Recorder dumps say; empty when there were none."""

    dumps: int = 0
    suspects: list[CollectiveSuspect] = Field(default_factory=list)
    groups: list[CollectiveGroup] = Field(default_factory=list)
    activity: list[RankActivity] = Field(default_factory=list)
    #: the communication library the dumps were written by (`comm_lib_version`: NCCL's, e.g. 2.21.5)
    comm_lib_version: str = ""


# --- end Flight Recorder -------------------------------------------------------------------------


class RankFact(BaseModel):
    """One rank as the evidence shows it, kept so follow-up answers can state this job's facts."""

    rank: int
    node: str | None = None
    gpu: str | None = None  # the PCI bus id NCCL printed for the rank's device
    has_log: bool = False  # some line of the job was written by it
    category: str | None = None  # the category of its first failure line
    first_time: str | None = None
    first_time_borrowed: bool = False  # `first_time` is an earlier line's, by another rank
    first_line: EvidenceLine | None = None
    phase: str | None = None  # the phase its first failure line was in
    last_step: int | None = None
    last_step_line: EvidenceLine | None = None


class RunFacts(BaseModel):
    """The job as its logs show it: size, time span, launcher, and every rank (`RankFact`)."""

    world_size: int | None = None
    nodes: list[str] = Field(default_factory=list)
    launcher: str | None = None
    start: str | None = None
    end: str | None = None
    ranks: list[RankFact] = Field(default_factory=list)
    #: the lines where the job printed its versions (torch, CUDA, NCCL, DeepSpeed, …), one per distinct
    #: set; empty when none was printed (and in older diagnoses)
    versions: list[EvidenceLine] = Field(default_factory=list)
    #: the lines where the job printed its training settings (bf16, ZeRO stage, 16-bit gather at save,
    #: offload, batch sizes, workers, …), one per distinct setting and value (knowledge/settings.py)
    settings: list[EvidenceLine] = Field(default_factory=list)
    #: the job's set-up lines (model load, process-group init, NCCL init, launch line, driver version),
    #: the first of each kind per source, capped (knowledge/setup_lines.py); empty in older diagnoses
    setup: list[EvidenceLine] = Field(default_factory=list)


class Diagnosis(BaseModel):
    """The engine's answer. Its JSON form is the public contract of `denpex diagnose --format json`."""

    category: str
    entry: EntryRef | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    initiating: Initiating = Field(default_factory=Initiating)
    collateral: list[CollateralGroup] = Field(default_factory=list)
    root_cause: str = ""
    fix: str = ""
    fix_snippet: str = ""  # the fix as code (shown once, as a code block, never inside `fix`)
    verify: str = ""
    missing_evidence: list[MissingEvidence] = Field(default_factory=list)
    alternatives: list[Alternative] = Field(default_factory=list)
    tails: list[RankTail] = Field(default_factory=list)
    nodes: dict[str, list[EvidenceLine]] = Field(default_factory=dict)
    stats: Stats = Field(default_factory=Stats)
    #: sorted global ranks the collective traces implicate (ARCHITECTURE.md); details in `collectives`
    suspect_ranks: list[int] = Field(default_factory=list)
    collectives: Collectives = Field(default_factory=Collectives)
    #: per-rank and job facts for follow-up answers (`knowledge.rankfacts`); empty in older diagnoses
    facts: RunFacts = Field(default_factory=RunFacts)


class PastIncident(BaseModel):
    """An earlier incident of the same failure mode, as the incident history keeps it (masked), for
    the follow-up "has this happened before?"."""

    model_config = ConfigDict(defer_build=True)  # the bot's type: `denpex diagnose` never builds it

    job: str
    at: float
    node: str | None = None
    permalink: str | None = None
    fix: str | None = None  # what fixed it, when someone recorded it (`/denpex solved`)
