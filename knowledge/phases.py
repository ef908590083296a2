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
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from knowledge.lines import Stamp, parse_rank

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


class TailMarkers:
    """The same markers as Python regexes, for the numbered tail lines of each source (the scan keeps a
    bounded number of marker hits; the tail is where most failures are)."""

    def __init__(self, markers: list[Marker]) -> None:
        self.markers = markers
        self.rx = [re.compile(m.pattern, re.IGNORECASE if m.caseless else 0) for m in markers]

    def marks(self, numbered: list[tuple[int, str]]) -> list[PhaseMark]:
        out: list[PhaseMark] = []
        for line, text in numbered:
            for i, rx in enumerate(self.rx):
                if rx.search(text):
                    out.append(PhaseMark(line, i, text, parse_rank(text).rank, None, line))
                    break
        return out


def _compatible(mark: PhaseMark, rank: int | None) -> bool:
    return mark.rank is None or rank is None or mark.rank == rank


def _timeline(scan_marks: list[PhaseMark], tail_marks: list[PhaseMark]) -> list[PhaseMark]:
    seen = {m.line for m in scan_marks}
    merged = scan_marks + [m for m in tail_marks if m.line not in seen]
    merged.sort(key=lambda m: m.line)
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
        timelines = [_timeline(marks, tail.marks(numbered)) for marks, numbered in scans_marks]
        ends = [numbered[-1][0] if numbered else 0 for _, numbered in scans_marks]
        return cls(markers, timelines, ends)

    def _fact(self, source: int, mark: PhaseMark, phase: str | None = None) -> PhaseFact:
        m = self.markers[mark.marker]
        return PhaseFact(phase or m.phase, source, mark.line, mark.text, m.id, mark.stamp)

    def at(self, source: int, line: int, rank: int | None, when: float | None) -> PhaseFact | None:
        """The phase of line `line` of source `source` (written by `rank`, at epoch `when` if known)."""
        marks = self.timelines[source] if source < len(self.timelines) else []
        frame = self._frame(source, marks, line, rank)
        if frame is not None:
            return frame
        state = self._state(source, marks, line, rank)
        if state is not None:
            return state
        return self._elsewhere(source, when)

    def _frame(self, source: int, marks: list[PhaseMark], line: int, rank: int | None) -> PhaseFact | None:
        best: PhaseMark | None = None
        for m in marks:
            if m.line > line + FRAME_AFTER:
                break
            if (
                m.line >= line - FRAME_WINDOW
                and self.markers[m.marker].kind == "frame"
                and _compatible(m, rank)
            ):
                best = m  # the innermost (latest) frame of the traceback
        return self._fact(source, best) if best is not None else None

    def _state(self, source: int, marks: list[PhaseMark], line: int, rank: int | None) -> PhaseFact | None:
        for m in reversed(marks):
            if m.line > line or not _compatible(m, rank):
                continue  # the failure line itself may say what it was doing ("Error saving model: …")
            marker = self.markers[m.marker]
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
        for i, marks in enumerate(self.timelines):
            if i == source:
                continue
            for m in marks:
                t = m.stamp.value if m.stamp is not None and not m.stamp.relative else None
                kind = self.markers[m.marker].kind
                if t is None or t > when or kind == "frame" or when - t > 3600:
                    continue
                if best is None or t >= best[0]:
                    best = (t, i, m)
        if best is None:
            return self._ended_in(source)
        marker = self.markers[best[2].marker]
        return self._fact(best[1], best[2], marker.after if marker.kind == "end" else None)

    def _ended_in(self, source: int) -> PhaseFact | None:
        for i, marks in enumerate(self.timelines):
            if i == source or not marks:
                continue
            state = self._state(i, marks, self.ends[i], None)
            near_end = state is not None and self.ends[i] - state.line <= ENDED_WITHIN
            if state is not None and near_end and state.phase in ENDING_PHASES:
                return state
        return None
