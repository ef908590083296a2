"""Per-rank and job facts for follow-up answers, read from the same scan the verdict came from.

The verdict names one rank and the collateral groups; a follow-up question ("when did rank 3 fail?",
"what step did rank 7 reach?", "which GPU was rank 5 on?") needs each rank's own first failure line,
its phase, its node and device and its last progress line. They are all in the retained hits and
tails already, so this is a pass over retained lines only, never over the logs again. Every text
kept here goes through the `Redactor`, as everything that leaves the engine does.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from denpex.core.models import EvidenceLine, RankFact, RunFacts
from knowledge import setup_lines
from knowledge.lines import RankInfo, Stamp, parse_rank, parse_step, parse_timestamp
from knowledge.settings import distinct_lines, settings
from knowledge.signals import Job, Signal

if TYPE_CHECKING:
    from knowledge.report import Redactor
    from knowledge.scanner import SourceScan

#: launchers by a line or a file name they leave (the first that matches names the launcher)
_LAUNCHERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("torchrun", re.compile(r"torch\.distributed\.elastic|torchrun|^\s*\[default\d+\]:|torchrun-logs/")),
    ("deepspeed", re.compile(r"deepspeed\.launcher|\[launch\] .*world_size|deepspeed launcher", re.I)),
    ("accelerate", re.compile(r"accelerate launch|accelerate\.commands")),
    ("srun", re.compile(r"^\s*srun: |^\s{0,8}\d{1,6}: |srun\.out$")),
    ("mpirun", re.compile(r"mpirun|Open MPI|PMIX", re.I)),
)

#: up to this world size every rank is listed (those without a line as missing); above it only the
#: ranks the logs show, so a `world_size=100000` line cannot make the diagnosis huge
MAX_LISTED = 4096


def build(job: Job, red: Redactor) -> RunFacts:
    """Every rank the job had (the world size when known, else the ranks seen) with its facts."""
    firsts = _first_failures(job)
    steps = _last_steps(job, red)
    seen = set(job.ranks) | set(firsts)
    world = job.world or (max(seen) + 1 if seen else None)
    listed = range(world) if world is not None and world <= MAX_LISTED else sorted(seen)
    ranks = []
    for rank in listed:
        node = job.rank_node.get(rank)
        rf = RankFact(rank=rank, node=red.mask(node) if node else None, has_log=rank in seen)
        pci = job.rank_pci.get(rank)
        rf.gpu = pci[1] if pci else None
        sig = firsts.get(rank)
        if sig is not None:
            scan = job.scans[sig.source]
            rf.category = sig.entry.category
            rf.first_time = sig.stamp.iso() if sig.stamp is not None and not sig.stamp.relative else None
            rf.first_time_borrowed = (
                rf.first_time is not None and sig.stamp is not None and sig.stamp.borrowed
            )
            text = red(scan, sig.line, sig.hit.text)
            rf.first_line = EvidenceLine(source=scan.source.name, line=sig.line, text=text)
            phase = job.phase_of(sig)
            rf.phase = phase.phase if phase is not None else None
            rf.node = rf.node or (red.mask(sig.node) if sig.node else None)
        if rank in steps:
            rf.last_step, rf.last_step_line = steps[rank]
        ranks.append(rf)
    start, end = _span(job)
    hosts = set(job.rank_node.values()) | {s.source.node for s in job.scans if s.source.node} | job.hosts
    nodes = sorted({red.mask(n) for n in hosts})
    return RunFacts(
        world_size=world,
        nodes=nodes,
        launcher=_launcher(job),
        start=start,
        end=end,
        ranks=ranks,
        versions=_versions(job, red),
        settings=settings(job, red),
        setup=setup_lines.kept(job, red),
    )


#: a name and the version printed after it (the `versions` fact of `knowledge.patterns`)
_VERSION = re.compile(
    r"\b(torch|pytorch|deepspeed|transformers|accelerate|vllm|lightning|nccl|cuda|cudnn|triton"
    r"|flash[_-]attn|megatron[_-]core|peft|jax)`?(?: info:)?(?: version)?(?: \(GPU\?\))?[ :=v]{1,3}"
    r"([0-9]+\.[0-9]+[\w.+-]*)",
    re.IGNORECASE,
)
#: at most this many version lines are kept (every rank prints the same one; a few distinct ones matter)
MAX_VERSION_LINES = 8


def _versions(job: Job, red: Redactor) -> list[EvidenceLine]:
    """The lines that print versions, each kept only when it names a version no kept line did (eight
    ranks printing `torch 2.5.1` keep one line; a rank on another image keeps its own)."""
    return distinct_lines(
        job, red, lambda text: {(n.lower(), v) for n, v in _VERSION.findall(text)}, MAX_VERSION_LINES
    )


def _first_failures(job: Job) -> dict[int, Signal]:
    """Each rank's earliest failure line it wrote itself (a launcher's report only when nothing else)."""
    own: dict[int, Signal] = {}
    reported: dict[int, Signal] = {}
    for s in job.signals:
        if s.rank is None or s.demoted:
            continue
        pool = reported if s.hit.secondhand else own
        if s.rank not in pool or s.order() < pool[s.rank].order():
            pool[s.rank] = s
    return {**reported, **own}


def _last_steps(job: Job, red: Redactor) -> dict[int, tuple[int, EvidenceLine]]:
    """The last progress line (`step N`) each rank printed, from the numbered tails."""
    out: dict[int, tuple[int, EvidenceLine]] = {}
    for scan in job.scans:
        if scan.source.kind in ("kernel", "scheduler"):
            continue
        for line, text in scan.numbered_tail:
            step = parse_step(text)
            if step is None:
                continue
            rank = _global_rank(job, scan, parse_rank(text))
            if rank is None:
                continue
            if rank not in out or step >= out[rank][0]:
                out[rank] = (
                    step,
                    EvidenceLine(source=scan.source.name, line=line, text=red(scan, line, text)),
                )
    return out


def _global_rank(job: Job, scan: SourceScan, info: RankInfo) -> int | None:
    """The global rank a progress line belongs to; a torchrun `[default3]:` label (node-local) counts
    as in `srun_tasks.resolve_locals`: through the file's `[default0]:[rank8]:` offset, or as is on one
    node."""
    if (
        info.task is not None
        and info.task in job.launcher_tasks
        and info.rank == info.task
        and info.local is None
    ):
        return None  # a bare srun label on a node that ran a launcher: the node, not a rank
    if info.rank is not None:
        return info.rank
    if info.local is None:
        return scan.source.rank
    if info.task is None:
        offsets = {
            h.rank.rank - h.rank.local
            for h in scan.hits
            if h.rank.rank is not None and h.rank.local is not None and h.rank.task is None
        }
    else:  # under srun's label: the offset of that task (node), as `srun_tasks.task_offsets` found it
        i = next((k for k, sc in enumerate(job.scans) if sc is scan), -1)
        offsets = job.local_offsets.get((i, info.task), set())
    if len(offsets) == 1:
        return info.local + next(iter(offsets))
    return info.local if job.single_node else scan.source.rank


def _span(job: Job) -> tuple[str | None, str | None]:
    """The first and the last wall-clock time any log of the job shows."""
    starts = [s.first_stamp.value for s in job.scans if s.first_stamp and not s.first_stamp.relative]
    ends = []
    for scan in job.scans:
        for _, text in reversed(scan.numbered_tail):
            stamp = parse_timestamp(text)
            if stamp is not None and not stamp.relative and stamp.has_year:
                ends.append(stamp.value)
                break
    ends += [t for s in job.signals if (t := s.abs_time()) is not None]
    start = Stamp(min(starts)).iso() if starts else None
    end = Stamp(max(ends)).iso() if ends else None
    return start, end


def _launcher(job: Job) -> str | None:
    for name, rx in _LAUNCHERS:
        for scan in job.scans:
            if rx.search(scan.source.name):
                return name
            texts = [t for _, t in scan.numbered_tail[:5]] + [h.text for h in scan.hits[:50]]
            if any(rx.search(t) for t in texts):
                return name
    return None
