"""What the job was doing when it failed: the lifecycle phase of a failure line.

The same line means different failures in different phases: `Killed` while a checkpoint is written is a
checkpoint host OOM, the same line mid-epoch is an ordinary host OOM; a CUDA OOM while the weights are
gathered for a save is the checkpoint-gather OOM, not a training-step OOM. Phase markers are data
(`knowledge/data/phases.toml`, the messages the frameworks print); they are compiled into the one scan
as patterns of kind `phase`, and the scanner keeps a coalesced timeline of them per source
(`SourceScan.phases`) plus the numbered tail lines, so a phase is known for every failure line without
a second pass over the log.

A failure's phase comes, in this order, from a traceback frame just above it (most direct), from the
latest phase marker before it in its own source (a save lasts until training progress resumes or its
own end marker), or from the latest marker of another source that is earlier by the clock.
"""

from __future__ import annotations

import re
import time
import tomllib
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from knowledge.lines import Stamp, parse_rank, parse_timestamp

if TYPE_CHECKING:
    from knowledge.patterns import Database

PHASES: tuple[str, ...] = (
    "startup",
    "model_load",
    "rendezvous",
    "data",
    "train",
    "eval",
    "checkpoint_save",
    "checkpoint_load",
    "finished",
    "teardown",
)
PHASES_PATH = Path(__file__).parent / "data" / "phases.toml"

#: how far above a failure line a traceback frame still belongs to its traceback
FRAME_WINDOW = 150
#: a frame printed just below the error line (some loggers print the message first)
FRAME_AFTER = 3
#: phases in which a whole job stops when one process is killed mid-way (every rank waits for the saver)
ENDING_PHASES = frozenset({"checkpoint_save", "checkpoint_load", "model_load", "finished"})
#: how close to its end a log must have entered such a phase to say the job stopped in it
ENDED_WITHIN = 60
#: how many of a source's markers, newest first, `_elsewhere` reads looking for one stamped before a failure
ELSEWHERE_LOOKBACK = 512
#: phases whose markers say nothing about what the job was doing (a launcher's teardown): a failure
#: after them keeps the phase before them
TRANSPARENT_PHASES = frozenset({"teardown"})


def _known_phase(value: str) -> str:
    if value not in PHASES:
        raise ValueError(f"unknown phase {value!r}; expected one of {', '.join(PHASES)}")
    return value


class Marker(BaseModel):
    """One line a framework prints that says which phase the job is in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    phase: str
    kind: Literal["start", "end", "frame"]
    pattern: str = Field(min_length=3)
    caseless: bool = False
    after: str = Field(default="train", description="for `end` markers: the phase the job is back in")
    frequent: bool = Field(
        default=False,
        description="printed every step (progress lines): the scan reports the first of each chunk only, "
        "the numbered tail of each source gives the exact lines near its end",
    )
    source: str = Field(min_length=3, description="the code or thread that prints the line")
    decides: bool = Field(
        default=False,
        description="a frame that decides the phase wherever it sits in its traceback: an outer call that "
        "says what the inner frames were for (a `state_dict` taken to sync weights, not to save)",
    )
    weak: bool = Field(
        default=False,
        description="a frame that says its phase only when no other frame of its traceback says one: "
        "`torch.load` is a checkpoint load on its own, but under an object collective's unpickling "
        "(`all_gather_object` of a state dict in a save) the outer frame says what it was for",
    )
    silent_end: bool = Field(
        default=True,
        description="false: a log that stops after this line with no error hung there, it did not die "
        "(NCCL's own set-up waits on its peers and links forever), so the phase's `silent_phases` entry "
        "does not explain it",
    )

    _v_phase = field_validator("phase", "after")(_known_phase)

    @field_validator("pattern")
    @classmethod
    def _valid(cls, v: str) -> str:
        re.compile(v)
        return v


def load_markers(path: Path | None = None) -> list[Marker]:
    """Every phase marker; a malformed file fails with the marker's id and field."""
    raw = tomllib.loads((path or PHASES_PATH).read_text(encoding="utf-8"))
    out = []
    for i, item in enumerate(raw.get("marker", [])):
        try:
            out.append(Marker.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise ValueError(f"phases.toml: marker {item.get('id', i)}: {where}: {err['msg']}") from exc
    return out


@dataclass(slots=True)
class PhaseMark:
    """A phase marker seen in a source (consecutive repeats of one marker are folded into one)."""

    line: int
    marker: int  # index into the engine's marker list
    text: str
    rank: int | None
    stamp: Stamp | None
    last_line: int = 0  # the last line of a folded run of the same marker


@dataclass(frozen=True, slots=True)
class PhaseFact:
    """The phase a failure happened in, and the line that shows it."""

    phase: str
    source: int  # index into the job's scans
    line: int
    text: str
    marker: str
    stamp: Stamp | None = None
    #: a deciding frame said it (what the whole traceback was for): an entry of another phase is out
    decided: bool = False


class TailMarkers:
    """The same markers as Python regexes, for the numbered tail lines of each source (the scan keeps a
    bounded number of marker hits; the tail is where most failures are).

    A line gets the first marker, in file order, whose regex finds something in it. Running 45 regexes
    on each of 400 lines a source cost more than the whole Hyperscan scan, so one Hyperscan pass over
    the tail finds which markers' necessary literals (`knowledge/prefilter.py`) each line holds, and
    only those markers' regexes run (compiled on first use). The answer is the same: a marker whose
    literals are absent cannot match. Caseless markers skip only ASCII lines (Python folds more cases
    than ASCII), and markers without provable literals always run.
    """

    def __init__(self, markers: list[Marker], cache_dir: Path | None = None) -> None:
        self.markers = markers
        self._rx: list[re.Pattern[str] | None] = [None] * len(markers)
        self._cache_dir = cache_dir
        self._gate: Database | None = None
        self._role: list[int] = []
        self._always: list[int] = []  # markers without literals: they run on every line
        self._always_wide: list[int] = []  # ... and the caseless ones, on a line that is not ASCII
        self._ready = False  # the gate is built on first use: a CLI run may never need it

    @property
    def rx(self) -> list[re.Pattern[str]]:
        """Every marker's regex (compiled now)."""
        return [self._regex(i) for i in range(len(self.markers))]

    def _regex(self, i: int) -> re.Pattern[str]:
        rx = self._rx[i]
        if rx is None:
            m = self.markers[i]
            rx = self._rx[i] = re.compile(m.pattern, re.IGNORECASE if m.caseless else 0)
        return rx

    def marks(self, numbered: list[tuple[int, str]]) -> list[PhaseMark]:
        out: list[PhaseMark] = []
        cands = self._candidates([t for _, t in numbered])
        for j, (line, text) in enumerate(numbered):
            if cands is None:
                order: Iterable[int] = range(len(self.markers))
            else:
                base = self._always if text.isascii() else self._always_wide
                order = sorted(cands.get(j, set()).union(base))
            for i in order:
                if self._regex(i).search(text):
                    out.append(PhaseMark(line, i, text, parse_rank(text).rank, None, line))
                    break
        return out

    def _candidates(self, texts: list[str]) -> dict[int, set[int]] | None:
        """Line index -> markers whose literals it holds; None without a gate (every marker runs)."""
        if not self._ready:
            self._ready = True
            self._gate, self._role, gated = _literal_gate(self.markers, self._cache_dir)
            self._always = [i for i in range(len(self.markers)) if i not in gated]
            wide = {i for i in gated if self.markers[i].caseless}
            self._always_wide = sorted(set(self._always) | wide)
        if self._gate is None:
            return None
        parts = [t.encode("utf-8", "replace") for t in texts]
        starts = list(accumulate((len(p) + 1 for p in parts), initial=0))
        out: dict[int, set[int]] = {}
        for gid, to in self._gate.scan(b"\n".join(parts)):
            out.setdefault(bisect_right(starts, to - 1) - 1, set()).add(self._role[gid])
        return out


def _literal_gate(
    markers: list[Marker], cache_dir: Path | None
) -> tuple[Database | None, list[int], set[int]]:
    """A Hyperscan database of the markers' necessary literals (None without Hyperscan), the marker of
    each of its patterns, and the markers it covers."""
    from knowledge import patterns
    from knowledge.prefilter import literals_for

    if patterns.hyperscan is None:
        return None, [], set()
    lits: list[patterns.Pattern] = []
    role: list[int] = []
    literals = literals_for([(m.pattern, m.caseless) for m in markers], cache_dir)
    for i, (m, found) in enumerate(zip(markers, literals, strict=True)):
        for s in found.strings if found is not None else ():
            lits.append(patterns.Pattern(len(lits), patterns.literal(s), m.caseless, "phase", m.id))
            role.append(i)
    return (patterns.Database(lits, cache_dir) if lits else None), role, set(role)


def _compatible(mark: PhaseMark, rank: int | None) -> bool:
    return mark.rank is None or rank is None or mark.rank == rank


def _timeline(
    scan_marks: list[PhaseMark], tail_marks: list[PhaseMark], transparent: frozenset[int] = frozenset()
) -> list[PhaseMark]:
    """The scan's marks plus the tail's for other lines. The scan keeps one marker a line; where that
    is a launcher's teardown glued behind the job's own line (a progress bar, then torchrun's SIGTERM on
    the same physical line), the tail's reading of the line (the first marker in file order) is kept too."""
    seen = {m.line for m in scan_marks if m.marker not in transparent}
    merged = scan_marks + [m for m in tail_marks if m.line not in seen and m.marker not in transparent]
    have = {x.line for x in merged}
    merged += [m for m in tail_marks if m.marker in transparent and m.line not in have]
    merged.sort(key=lambda m: (m.line, m.marker not in transparent))
    return merged


class PhaseReader:
    """Answers "which phase was this line in?" for one job's scans."""

    def __init__(
        self, markers: list[Marker], timelines: list[list[PhaseMark]], ends: list[int] | None = None
    ) -> None:
        self.markers = markers
        self.timelines = timelines
        self.ends = ends or [0] * len(timelines)  # each source's last line number

    @classmethod
    def build(
        cls,
        markers: list[Marker],
        tail: TailMarkers,
        scans_marks: list[tuple[list[PhaseMark], list[tuple[int, str]]]],
    ) -> PhaseReader:
        clear = frozenset(i for i, m in enumerate(markers) if m.phase in TRANSPARENT_PHASES)
        timelines = [_timeline(marks, tail.marks(numbered), clear) for marks, numbered in scans_marks]
        ends = [numbered[-1][0] if numbered else 0 for _, numbered in scans_marks]
        return cls(markers, timelines, ends)

    def _fact(self, source: int, mark: PhaseMark, phase: str | None = None) -> PhaseFact:
        m = self.markers[mark.marker]
        return PhaseFact(phase or m.phase, source, mark.line, mark.text, m.id, mark.stamp, m.decides)

    def at(self, source: int, line: int, rank: int | None, when: float | None) -> PhaseFact | None:
        """The phase of line `line` of source `source` (written by `rank`, at epoch `when` if known)."""
        marks = self.timelines[source] if source < len(self.timelines) else []
        frame = self._frame(source, marks, line, rank)
        if frame is not None:
            return frame
        state = self._state(source, marks, line, rank)
        if state is None and rank is not None:
            # a rank that printed no marker of its own in a shared stream (`[rank3]:` only in its
            # error) was where the job was: rank 0 logs the save, every rank gathers for it
            state = self._state(source, marks, line, None)
        if state is not None:
            return state
        return self._elsewhere(source, when)

    def _frame(self, source: int, marks: list[PhaseMark], line: int, rank: int | None) -> PhaseFact | None:
        best: PhaseMark | None = None
        weak: PhaseMark | None = None
        deciding: PhaseMark | None = None
        for m in marks:
            if m.line > line + FRAME_AFTER:
                break
            marker = self.markers[m.marker]
            if m.line >= line - FRAME_WINDOW and marker.kind == "frame" and _compatible(m, rank):
                if marker.weak:
                    weak = m  # only when no other frame of the traceback names a phase
                else:
                    best = m  # the innermost (latest) frame of the traceback
                if marker.decides:
                    deciding = m
        chosen = deciding or best or weak
        return self._fact(source, chosen) if chosen is not None else None

    def _state(self, source: int, marks: list[PhaseMark], line: int, rank: int | None) -> PhaseFact | None:
        for m in reversed(marks):
            if m.line > line or not _compatible(m, rank):
                continue  # the failure line itself may say what it was doing ("Error saving model: …")
            marker = self.markers[m.marker]
            if marker.phase in TRANSPARENT_PHASES:
                continue  # the launcher tearing the job down: the job was still where it was before
            if marker.kind == "start":
                return self._fact(source, m)
            if marker.kind == "end":
                return self._fact(source, m, marker.after)
        return None

    def _elsewhere(self, source: int, when: float | None) -> PhaseFact | None:
        """A marker of another source (rank 0 logs the save, rank 3 dies in it), earlier by the clock;
        without a clock, another source whose log ends in the middle of a save or load (the job
        stopped there: that is where the failure without its own phase happened)."""
        if when is None:
            return self._ended_in(source)
        best: tuple[float, int, PhaseMark] | None = None
        year = time.gmtime(when).tm_year
        for i, marks in enumerate(self.timelines):
            if i == source:
                continue
            for k, m in enumerate(reversed(marks)):  # each source's latest marker at or before `when`
                if k >= ELSEWHERE_LOOKBACK:
                    break  # bounded: a source of stamp-less markers costs the same as a short one
                if self.markers[m.marker].kind == "frame":
                    continue
                # the scan stamps only a run's first line: a later one is read from its own text
                stamp = m.stamp or parse_timestamp(m.text, year)
                t = stamp.value if stamp is not None and not stamp.relative else None
                if t is None or t > when:
                    continue
                if when - t <= 3600 and (best is None or t >= best[0]):
                    best = (t, i, m)
                break
        if best is None:
            return self._ended_in(source)
        marker = self.markers[best[2].marker]
        return self._fact(best[1], best[2], marker.after if marker.kind == "end" else None)

    def _own_end(self, source: int, marks: list[PhaseMark], after: int) -> int:
        """The last line of a source's own output after line `after`: where the launcher's teardown
        began (a failure summary for many ranks is long), else the source's last line."""
        for m in marks:
            if m.line > after and self.markers[m.marker].phase in TRANSPARENT_PHASES:
                return m.line
        return self.ends[source]

    def _ended_in(self, source: int) -> PhaseFact | None:
        for i, marks in enumerate(self.timelines):
            if i == source or not marks:
                continue
            state = self._state(i, marks, self.ends[i], None)
            near_end = state is not None and self._own_end(i, marks, state.line) - state.line <= ENDED_WITHIN
            if state is not None and near_end and state.phase in ENDING_PHASES:
                return state
        return None
