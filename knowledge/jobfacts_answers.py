"""This job's facts as follow-up answers use them: each rank's role, times and lines, the numbers.

Built from the stored `Diagnosis` only (its `facts`, initiating rank, collateral groups, tails and
collective traces), so a thread answers from what the engine found for *this* job. Diagnoses stored
before `Diagnosis.facts` existed still work: the ranks then come from the collateral groups.
A role is one of `initiating` (the rank that started it), `collateral` (failed because of it),
`healthy` (logged, no failure line) and `missing` (the world had it, no line of the job is from it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal

from denpex.core.models import CollateralGroup, Diagnosis, EvidenceLine, RankFact
from knowledge import evidence_numbers as num
from knowledge.lines import parse_rank
from knowledge.rankfacts import MAX_LISTED

Role = Literal["initiating", "collateral", "healthy", "missing"]


@dataclass(frozen=True, slots=True)
class RankView:
    rank: int
    role: Role
    node: str | None = None
    gpu: str | None = None
    category: str | None = None
    first_time: str | None = None
    #: `first_time` is the nearest earlier line's, another rank's (its own line has no time): "at or after"
    borrowed: bool = False
    first_line: EvidenceLine | None = None
    phase: str | None = None
    last_step: int | None = None
    last_step_line: EvidenceLine | None = None
    why: str = ""  # the collateral group's reason ("waited on rank 5")
    #: the collateral group's words for what happened to it, from its own line ("timed out waiting for a
    #: peer in a gloo collective (...)"); the category's words say "watchdog" for a gloo rank
    what: str = ""
    suspect: str = ""  # what the collective traces say about it
    inferred: bool = False  # named from the others' behaviour (a trace, a silence), not its own error
    exit_line: EvidenceLine | None = None  # its own exit report after its failure ("exiting with code 1")


@dataclass(frozen=True, slots=True)
class AltView:
    title: str
    category: str
    confidence: float
    why: str


@dataclass(slots=True)
class JobView:
    category: str
    title: str | None
    confidence: float
    world_size: int | None
    nodes: list[str]
    launcher: str | None
    start: str | None
    end: str | None
    initiating: RankView | None
    ranks: dict[int, RankView] = field(default_factory=dict)
    alternatives: list[AltView] = field(default_factory=list)
    evidence: list[EvidenceLine] = field(default_factory=list)
    phase_line: EvidenceLine | None = None
    numbers: num.Numbers = field(default_factory=num.Numbers)

    def with_role(self, role: Role) -> list[RankView]:
        return [r for r in self.ranks.values() if r.role == role]

    def first_collateral_time(self) -> str | None:
        times = [r.first_time for r in self.with_role("collateral") if r.first_time]
        return min(times) if times else None

    def evidence_line(self, index: int) -> EvidenceLine | None:
        return self.evidence[index] if 0 <= index < len(self.evidence) else None

    def key_line(self) -> list[EvidenceLine]:
        """The line that shows the failure: the initiating rank's own, else the verdict's first."""
        ini = self.initiating
        if ini is not None and ini.first_line is not None:
            return [ini.first_line]
        return self.evidence[:1]

    def phase_line_of(self, r: RankView) -> EvidenceLine | None:
        """The verdict's phase line, when the rank wrote it (a combined log holds every rank's)."""
        line = self.phase_line
        return line if line is not None and r.role == "initiating" and written_by(line, r) else None


#: a traceback frame in the user's own code (not an installed package's)
_USER_FRAME = re.compile(r'File "(?![^"]*(?:site|dist)-packages)[^"]+\.py", line \d+, in \w+')
#: a traceback frame of an installed package
_LIBRARY_FRAME = re.compile(r'File "[^"]*(?:site|dist)-packages/[^"]+", line \d+, in \w+')


def _user_frame(phase: EvidenceLine | None, evidence: list[EvidenceLine]) -> EvidenceLine | None:
    """The phase line, or, when the engine found the phase in a library's frame, the user's own frame
    of the same traceback that called into it ("train.py line 174, in save_checkpoint" over torch's
    `_gather_state_dict`): the line that shows the phase in the reader's code, which "which line"
    asks for."""
    if phase is None or not _LIBRARY_FRAME.search(phase.text):
        return phase
    outer = [
        ln
        for ln in evidence
        if ln.source == phase.source and ln.line < phase.line and _USER_FRAME.search(ln.text)
    ]
    return max(outer, key=lambda ln: ln.line) if outer else phase


def seconds_between(a: str | None, b: str | None) -> float | None:
    """Seconds from ISO time `a` to `b` (None when either is missing or not a wall-clock time)."""
    if not a or not b or a.startswith("+") or b.startswith("+"):
        return None
    try:
        return (_parse(b) - _parse(a)).total_seconds()
    except ValueError:
        return None


def _parse(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def build(d: Diagnosis) -> JobView:
    """This job as the answers see it: every rank with its role, plus the verdict's lines and figures."""
    ini = d.initiating
    facts = {r.rank: r for r in d.facts.ranks}
    collateral = {r: g for g in d.collateral for r in g.ranks}
    suspects = {s.rank: s.why for s in d.collectives.suspects}
    world = d.facts.world_size or (d.stats.ranks or None)
    every = set(facts) | set(collateral) | ({ini.rank} if ini.rank is not None else set()) | set(suspects)
    ranks: dict[int, RankView] = {}
    listed = set(range(world)) if world is not None and world <= MAX_LISTED else set()
    for rank in sorted(every | listed):
        fact = facts.get(rank, RankFact(rank=rank, has_log=rank in collateral or rank == ini.rank))
        ranks[rank] = _rank_view(d, fact, collateral.get(rank), suspects.get(rank, ""))
    if ini.rank is not None and ini.rank in ranks:
        ranks[ini.rank] = _initiating(ranks[ini.rank], d)
    ranks = {n: _with_exit(d, r) for n, r in ranks.items()}
    alts = [AltView(a.title, a.category, a.confidence, a.why) for a in d.alternatives]
    return JobView(
        category=d.category,
        title=d.entry.title if d.entry else None,
        confidence=d.confidence,
        world_size=world,
        nodes=d.facts.nodes or sorted({n for n in (ini.node,) if n} | set(d.nodes)),
        launcher=d.facts.launcher,
        start=d.facts.start,
        end=d.facts.end,
        initiating=ranks.get(ini.rank) if ini.rank is not None else None,
        ranks=ranks,
        alternatives=alts,
        evidence=list(ini.evidence),
        phase_line=_user_frame(ini.phase_evidence, ini.evidence),
        numbers=num.read(ln.text for ln in ini.evidence),
    )


def _rank_view(d: Diagnosis, fact: RankFact, group: CollateralGroup | None, suspect: str) -> RankView:
    role: Role
    if fact.rank == d.initiating.rank:
        role = "initiating"
    elif group is not None or fact.category is not None:
        role = "collateral"
    elif d.facts.ranks and not fact.has_log:
        role = "missing"  # the stored facts know every rank of the world: this one wrote nothing
    else:
        role = "healthy"
    return RankView(
        rank=fact.rank,
        role=role,
        node=fact.node or (d.initiating.node if role == "initiating" else None),
        gpu=fact.gpu,
        category=fact.category or (group.category if group is not None else None),
        first_time=fact.first_time or (group.first_time if group is not None else None),
        borrowed=bool(fact.first_time) and fact.first_time_borrowed,
        first_line=fact.first_line,
        phase=fact.phase,
        last_step=fact.last_step,
        last_step_line=fact.last_step_line,
        why=group.why if group is not None else "",
        what=group.what if group is not None else "",
        suspect=suspect,
    )


def _initiating(r: RankView, d: Diagnosis) -> RankView:
    """The initiating rank as the verdict saw it: its time, node, phase and first evidence line."""
    ini = d.initiating
    first = (
        ini.evidence[0]
        if ini.evidence and (r.first_line is None or written_by(ini.evidence[0], r))
        else r.first_line
    )
    return RankView(
        rank=r.rank,
        role="initiating",
        node=ini.node or r.node,
        gpu=r.gpu,
        category=d.category,
        first_time=ini.time or r.first_time,
        borrowed=ini.time_borrowed if ini.time else r.borrowed,
        first_line=first,
        phase=ini.phase or r.phase,
        last_step=r.last_step,
        last_step_line=r.last_step_line,
        suspect=r.suspect,
        inferred=bool(d.facts.ranks)
        and r.first_line is None
        and not any(written_by(ln, r) for ln in ini.evidence),
    )


def written_by(line: EvidenceLine, r: RankView) -> bool:
    """Did rank `r` write this evidence line (its rank prefix, or its own file without a prefix)?"""
    prefix = parse_rank(line.text).rank
    if prefix is not None:
        return prefix == r.rank
    return r.first_line is not None and line.source == r.first_line.source


def rank_numbers(view: JobView, rank: RankView) -> num.Numbers:
    """The figures in one rank's own lines (the initiating rank: every evidence line); its exit code,
    when no such line has one, from the exit report it printed after failing."""
    nums = (
        view.numbers
        if rank.role == "initiating"
        else num.read([rank.first_line.text] if rank.first_line else [])
    )
    if nums.exit is None and rank.exit_line is not None and (e := num.exit_status(rank.exit_line.text)):
        return replace(nums, exit=(e, -1))
    return nums


def _with_exit(d: Diagnosis, r: RankView) -> RankView:
    """The rank with the exit report it printed at or after its first failure line (its saved tail);
    the initiating rank's may also come from the launcher's failure summary (`exitcode : 1`). Why: an
    on-call engineer asks "what exit code did it return", and the log says it."""
    first = r.first_line
    for tail in d.tails:
        if tail.rank != r.rank:
            continue
        for ln in tail.lines:
            after = first is None or ln.source != first.source or ln.line >= first.line
            if after and (e := num.exit_status(ln.text)) is not None and e.code is not None:
                return replace(r, exit_line=ln)
    if r.role == "initiating":
        own = next((e for e in launcher_exits(d) if e.rank == r.rank), None)
        if own is not None:
            return replace(r, exit_line=own.line)
    return r


@dataclass(frozen=True, slots=True)
class LauncherExit:
    """One rank's entry in torchrun's failure summary (`rank : 2 ...`, `exitcode : -15 ... (SIGTERM)`)."""

    rank: int
    code: int
    signal: str | None
    line: EvidenceLine
    pid: int | None = None
    time: str | None = None  # the summary's `time : 2026-12-01_21:37:16`, as printed


_SUMMARY_RANK = re.compile(r"^\s*rank\s*:\s*(\d+)\b")
_SUMMARY_EXIT = re.compile(r"^\s*exitcode\s*:\s*(-?\d+)\b(?:\s*\(pid:\s*(\d+)\))?(?:.*\((SIG[A-Z]+)\))?")
_SUMMARY_TIME = re.compile(r"^\s*time\s*:\s*(\S+)")
_SUMMARY_ENTRY = re.compile(r"^\s*\[\d+\]:\s*$")


def launcher_exits(d: Diagnosis) -> list[LauncherExit]:
    """How each rank ended by the launcher's failure summary in the saved tails, rank order; the
    collateral ranks often show no error of their own, only the launcher's SIGTERM."""
    found: dict[int, LauncherExit] = {}
    for tail in d.tails:
        rank: int | None = None
        stamp: str | None = None
        for ln in tail.lines:
            if _SUMMARY_ENTRY.match(ln.text):
                rank = stamp = None
            elif m := _SUMMARY_TIME.match(ln.text):
                stamp = m.group(1)
            elif m := _SUMMARY_RANK.match(ln.text):
                rank = int(m.group(1))
            elif (m := _SUMMARY_EXIT.match(ln.text)) and rank is not None:
                pid = int(m.group(2)) if m.group(2) else None
                found.setdefault(rank, LauncherExit(rank, int(m.group(1)), m.group(3), ln, pid, stamp))
    return [found[r] for r in sorted(found)]
