"""The knowledge entry format: one failure mode a TOML file, validated when it is loaded.

Failure modes are data. The engine compiles every entry's signatures into one multi-pattern database
and never names a failure itself, so adding a failure mode is adding a file. A malformed file fails at
load time with an error naming the file and the field, never later in the middle of a diagnosis.
"""

from __future__ import annotations

import re
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from knowledge import anchors

#: The categories of TAXONOMY.md. An entry's `category` must be one of them.
CATEGORIES: tuple[str, ...] = (
    "gpu_oom",
    "gpu_oom_checkpoint_gather",
    "cpu_oom_checkpoint",
    "host_oom",
    "dataloader_worker_killed",
    "nccl_timeout",
    "nccl_comm_error",
    "rendezvous_failure",
    "gpu_hardware_xid",
    "cuda_illegal_access",
    "device_side_assert",
    "nan_divergence",
    "ddp_unused_parameters",
    "shape_or_user_code_error",
    "env_version_mismatch",
    "disk_full_or_io",
    "segfault",
    "cudnn_or_cublas_error",
    "scheduler_kill",
    "hang_no_error",
)

ENTRIES_DIR = Path(__file__).parent / "entries"
DATA_DIR = Path(__file__).parent / "data"


class Severity(StrEnum):
    critical = "critical"
    high = "high"
    medium = "medium"
    low = "low"


class Role(StrEnum):
    """A signature is either a cause (`primary`) or a consequence of another rank's failure."""

    primary = "primary"
    collateral = "collateral"


#: `defer_build`: the validators are built on the first validation, so a run that loads the entries
#: from the compiled cache (`knowledge/cache.py`, `model_construct`-style) never builds them
_Strict = ConfigDict(extra="forbid", frozen=True, defer_build=True)


def _check_regex(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:  # the message names the position, which is what an author needs
        raise ValueError(f"invalid regular expression: {exc}") from exc
    if re.search(r"\(\?[=!<]|\\[1-9]", pattern):
        raise ValueError("lookaround and backreferences are not supported by the multi-pattern scanner")
    return anchors.tolerant(pattern)  # `^`/`$` also hold behind timestamps, colours and rank labels


def _check_unless(pattern: str) -> str:
    """An `unless` runs through Python's `re` on hit lines only (never the multi-pattern scan)."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regular expression: {exc}") from exc
    return pattern


class Signature(BaseModel):
    """A pattern that, found in a log line, is evidence for the entry.

    `pattern` is a regular expression in the subset both Python `re` and Hyperscan accept (no
    lookaround, no backreferences). It is matched against one line at a time.
    """

    model_config = _Strict

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    pattern: str = Field(min_length=3)
    role: Role = Role.primary
    weight: float = Field(default=1.0, gt=0, le=10)
    caseless: bool = False
    unless: str = Field(
        default="",
        description="a hit line that also matches this (Python `re`, any case) is no evidence: the same "
        "words in a message that says something else (NCCL's fallback WARNs, ENOSPC in NCCL's /dev/shm)",
    )
    description: str = ""
    source: str = Field(
        default="",
        description="where the message comes from: `owner/repo@tag:path` of the code that prints it, or "
        "the URL of the thread that shows it",
    )

    _v_pattern = field_validator("pattern")(_check_regex)
    _v_unless = field_validator("unless")(_check_unless)


class ContextPattern(BaseModel):
    """A pattern that refines an entry when found near a primary hit (or anywhere, `window = 0`).

    Example: frames inside `save_checkpoint` or `_zero3_consolidated_16bit_state_dict` within 60
    lines of a CUDA OOM turn a plain GPU OOM into the checkpoint-gather entry.
    """

    model_config = _Strict

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    pattern: str = Field(min_length=3)
    weight: float = Field(default=1.0, gt=0, le=10)
    window: int = Field(default=60, ge=0, description="lines before/after a primary hit; 0 = whole job")
    before: bool = Field(
        default=False,
        description="count it only above the hit (within `window`, same file): a cause printed before "
        "the line it explains; the same text after the hit is another failure's consequence",
    )
    caseless: bool = False
    description: str = ""
    source: str = Field(default="", description="where the text comes from, as for `Signature.source`")

    _v_pattern = field_validator("pattern")(_check_regex)


#: what a job's own lines can say that contradicts a fix step (read by knowledge/step_fit.py)
StepFact = Literal["zero_stage_3", "no_checkpoint_in_logs"]


class StepFit(BaseModel):
    """A fix step that a job's own facts contradict, said otherwise (or dropped) for that job.

    Example: "more sharding (ZeRO-2 → 3)" to a job whose DeepSpeed config print says
    `zero_optimization_stage ...... 3`; "resume from the last good checkpoint" when no save finished
    and none was loaded in the logs. The entry keeps its generic step; the diagnosis says `instead`.
    """

    model_config = _Strict

    step: int = Field(ge=1, description="which step (1-based) of `steps`")
    contradicted_by: StepFact
    instead: str = Field(default="", description="the step as said to such a job; empty: left out")


class Fix(BaseModel):
    model_config = _Strict

    steps: list[str] = Field(min_length=1)
    snippet: str = ""
    snippet_lang: str = "text"
    fits: list[StepFit] = Field(default_factory=list, description="steps a job's own facts contradict")

    @model_validator(mode="after")
    def _fits_name_steps(self) -> Fix:
        for fit in self.fits:
            if fit.step > len(self.steps):
                raise ValueError(f"fits: step {fit.step} but there are {len(self.steps)} steps")
        return self


class Reference(BaseModel):
    model_config = _Strict

    title: str = Field(min_length=3)
    url: str = Field(pattern=r"^https://")


class Faq(BaseModel):
    """Answers to the questions people ask in the thread, written by someone who has seen it."""

    model_config = _Strict

    hardware_or_software: str = Field(min_length=10)
    fix_time: str = Field(min_length=10)
    training_vs_inference: str = Field(min_length=10)
    cheapest_confirmation: str = Field(min_length=10)
    recurrence: str = Field(min_length=10)
    fingerprint: str = Field(min_length=10)
    scale: str = Field(min_length=10, description="how it looks at 1 GPU vs 1,000 GPUs")


class StallRule(BaseModel):
    """When this entry's failure came long after every rank stopped making progress, `entry` explains
    the job instead.

    Example: a scheduler kill at the time limit is the cause only if training ran until the kill; when
    every rank's last timestamped progress line (`step N`) is much older than the kill, the job had hung
    and the kill merely ended it. Stalled means the gap from the newest progress line of any rank to
    the entry's first signal is at least `at_least_seconds`, and at least `after_seconds` or
    `after_fraction` of the run (first timestamp of the job to the signal).
    """

    model_config = _Strict

    entry: str = Field(description="id of the entry that explains a stalled job")
    after_seconds: float = Field(default=900.0, gt=0)
    after_fraction: float = Field(default=0.1, gt=0, le=1)
    at_least_seconds: float = Field(default=300.0, ge=0)


class Entry(BaseModel):
    """One failure mode."""

    model_config = _Strict

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str = Field(min_length=5, max_length=120)
    category: str
    tags: list[str] = Field(
        default_factory=list,
        description="free-form labels; the tag `fallback` marks the entry the engine answers with when "
        "no signature matched at all (exactly one entry should carry it)",
    )
    severity: Severity
    affected_systems: list[str] = Field(min_length=1)
    symptom: str = Field(min_length=10)
    root_cause: str = Field(min_length=10)
    mechanism: str = Field(min_length=10)
    observe: list[str] = Field(min_length=1, description="what you will observe")
    signatures: list[Signature] = Field(min_length=1)
    context: list[ContextPattern] = Field(default_factory=list)
    requires_context: bool = Field(
        default=False, description="only a candidate when at least one context pattern matched"
    )
    priority: int = Field(default=0, ge=-100, le=100, description="tie-break between equal scores")
    phases: list[str] = Field(
        default_factory=list,
        description="lifecycle phases (knowledge/phases.py) this failure mode happens in; a failure seen "
        "in one of them scores more (and counts as context), one seen in another phase scores less",
    )
    silent_phases: list[str] = Field(
        default_factory=list,
        description="a failed job whose logs end in one of these phases with no error line at all is this "
        "failure mode (a kernel SIGKILL leaves no traceback)",
    )
    phase_only: bool = Field(
        default=False,
        description="with `phases`: not a candidate at all when the failure is known to be in another phase",
    )
    when_stalled: StallRule | None = Field(
        default=None, description="defer to another entry when progress had stopped long before this failure"
    )
    confirm: list[str] = Field(min_length=1)
    fix: Fix
    verify: str = Field(min_length=3, description="a command that proves the fix")
    prevention: list[str] = Field(min_length=1)
    references: list[Reference] = Field(min_length=1)
    related: list[str] = Field(default_factory=list)
    faq: Faq

    @field_validator("phases", "silent_phases")
    @classmethod
    def _known_phases(cls, v: list[str]) -> list[str]:
        from knowledge.phases import PHASES

        bad = [p for p in v if p not in PHASES]
        if bad:
            raise ValueError(f"unknown phase {bad[0]!r}; expected one of {', '.join(PHASES)}")
        return v

    @field_validator("category")
    @classmethod
    def _known_category(cls, v: str) -> str:
        if v not in CATEGORIES:
            raise ValueError(f"unknown category {v!r}; expected one of TAXONOMY.md: {', '.join(CATEGORIES)}")
        return v

    @model_validator(mode="after")
    def _unique_ids(self) -> Entry:
        ids = [s.id for s in self.signatures] + [c.id for c in self.context]
        dupes = {i for i in ids if ids.count(i) > 1}
        if dupes:
            raise ValueError(f"signature/context ids repeat: {', '.join(sorted(dupes))}")
        if self.requires_context and not self.context:
            raise ValueError("requires_context is true but the entry has no context patterns")
        return self

    @property
    def primary(self) -> list[Signature]:
        return [s for s in self.signatures if s.role is Role.primary]


XidAction = Literal["restart_app", "reset_gpu", "reboot_node", "drain_rma", "check_fabric", "investigate"]


class Xid(BaseModel):
    """One row of the NVIDIA Xid catalogue (`data/xid.toml`)."""

    model_config = _Strict

    code: int = Field(ge=1, le=1000)
    name: str
    hardware: bool = Field(description="false: application-level or collateral; the GPU stays healthy")
    action: XidAction
    entry: str | None = Field(default=None, description="the knowledge entry this Xid points to")


class EntryError(ValueError):
    """A knowledge file failed validation. `str()` names the file and the field."""

    def __init__(self, path: Path, field: str, message: str) -> None:
        self.path, self.field, self.message = path, field, message
        super().__init__(f"{path.name}: {field}: {message}")


def load_entry(path: Path) -> Entry:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise EntryError(path, "<toml>", str(exc)) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise EntryError(path, "<file>", str(exc)) from exc
    try:
        entry = Entry.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "<entry>"
        raise EntryError(path, field, err["msg"]) from exc
    if entry.id != path.stem:
        raise EntryError(path, "id", f"id {entry.id!r} must equal the file name {path.stem!r}")
    return entry


def load_entries(directory: Path = ENTRIES_DIR) -> list[Entry]:
    """Load and cross-check every `*.toml` entry in `directory` (sorted, so results are stable)."""
    paths = sorted(directory.glob("*.toml"))
    if not paths:
        raise EntryError(directory, "<dir>", "no knowledge entries (*.toml) found")
    entries = [load_entry(p) for p in paths]
    ids = {e.id for e in entries}
    for path, entry in zip(paths, entries, strict=True):
        for rel in entry.related:
            if rel not in ids:
                raise EntryError(path, "related", f"unknown entry {rel!r}")
        if entry.when_stalled is not None and entry.when_stalled.entry not in ids:
            raise EntryError(path, "when_stalled.entry", f"unknown entry {entry.when_stalled.entry!r}")
    return entries


def load_xids(path: Path = DATA_DIR / "xid.toml") -> dict[int, Xid]:
    """Load the Xid catalogue: `[[xid]]` tables keyed by code."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        rows = [Xid.model_validate(r) for r in raw.get("xid", [])]
    except (tomllib.TOMLDecodeError, OSError) as exc:
        raise EntryError(path, "<file>", str(exc)) from exc
    except ValidationError as exc:
        err = exc.errors()[0]
        raise EntryError(path, ".".join(str(p) for p in err["loc"]), err["msg"]) from exc
    return {r.code: r for r in rows}
