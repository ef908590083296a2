"""Ranks that print two releases of one library: the communication failure or crash they show is the
mismatch, not a network fault or a native bug.

NCCL exchanges its own structures between ranks when a communicator is built (peer info, topology,
connection handles) and up to 2.22 never checks that the peer runs the same release; PyTorch releases
bundle different NCCL releases. A job whose nodes run different images or environments therefore fails
in its first collectives with whatever broke first: a watchdog timeout, `unhandled system error`, a
socket the peer closed, an internal error. Those lines are what the surface entries read; the fact that
decides is elsewhere in the same logs, each rank naming its own release:

- NCCL's `NCCL version 2.18.1+cuda12.1` (a communicator's rank 0 up to 2.21, every process from 2.22
  with NCCL_DEBUG=INFO; NVIDIA/nccl src/init.cc showVersion), torch's `…, NCCL version 2.19.3` at the
  end of every NCCL error (ProcessGroupNCCL's getNcclVersion), ProcessGroupNCCL's `environments: NCCL
  version: 2.20.5` (TORCH_CPP_LOG_LEVEL=INFO);
- a job's banner `torch 2.1.2+cu121`, collect_env's `PyTorch version: 2.1.2` (compared by release,
  `2.1.2`; a local build tag such as `+cu121` or `a0+81ea7a4` does not make another release).

Two releases count only when they come from different writers (another file, rank or host) and no single
writer printed both: one rank's paste from before and after an upgrade (`the same error after pip install
-U`) is not a mixed job. Where the logs show this, the verdict becomes `env-mixed-library-versions`
with the surface entry as its first alternative; without it the surface class stands.
"""

from __future__ import annotations

import re

from knowledge.scanner import LineHit
from knowledge.signals import Job
from knowledge.verdict import Verdict

ENTRY = "env-mixed-library-versions"
#: the classes a mixed job shows as: a failed or stuck collective, a crash inside a library
SURFACES = frozenset(
    {
        "nccl_comm_error",
        "nccl_timeout",
        "hang_no_error",
        "rendezvous_failure",
        "segfault",
        "cuda_illegal_access",
        "cudnn_or_cublas_error",
    }
)

_NCCL = re.compile(r"\bNCCL version:? v?([0-9]+)\.([0-9]+)\.([0-9]+)")
_TORCH = re.compile(
    r"(?<![\w.-])(?:torch|PyTorch)(?: version)?:?[ \t]{1,3}v?([0-9]+)\.([0-9]+)\.([0-9]+)", re.I
)
#: a line that names a release it does not run: a requirement, a build target, an install command
_NOT_RUNNING = re.compile(
    r"requires|requirement|you have|built for|compiled|collecting|downloading|install|upgrade|==|>=|<=",
    re.I,
)
_HOST = re.compile(
    r"(?:^|[\s\]])([A-Za-z0-9][A-Za-z0-9._-]*):[0-9]+:[0-9]+ \[[0-9]+\] NCCL "
    r"|\bhost(?:name)?[=:] ?([A-Za-z0-9][A-Za-z0-9._-]*)"
)

Writer = tuple[int, int | None, str | None]


def _releases(text: str) -> list[tuple[str, str]]:
    """(library, release) pairs the line says its writer runs."""
    out = [("NCCL", ".".join(m.groups())) for m in _NCCL.finditer(text)]
    if not _NOT_RUNNING.search(text):
        out += [("PyTorch", ".".join(m.groups())) for m in _TORCH.finditer(text)]
    return out


def _writer(source: int, hit: LineHit) -> Writer:
    """Who wrote the line: its file, the rank (or srun task, or local index) it names, its host."""
    info = hit.rank
    who = info.rank if info.rank is not None else info.task if info.task is not None else info.local
    m = _HOST.search(hit.text)
    return source, who, (m.group(1) or m.group(2)) if m else None


def split(job: Job) -> tuple[str, dict[str, list[tuple[int, LineHit]]]] | None:
    """(library, {release: lines that name it}) when the job's writers ran two releases of one library
    and none of them printed both; None otherwise."""
    for lib in ("NCCL", "PyTorch"):
        by_writer: dict[Writer, set[str]] = {}
        lines: dict[str, list[tuple[int, LineHit]]] = {}
        for i, scan in enumerate(job.scans):
            if scan.source.kind in ("kernel", "scheduler"):
                continue
            for hit in scan.hits:
                for name, release in _releases(hit.text):
                    if name != lib:
                        continue
                    by_writer.setdefault(_writer(i, hit), set()).add(release)
                    lines.setdefault(release, []).append((i, hit))
        if len(lines) > 1 and all(len(r) == 1 for r in by_writer.values()):
            return lib, lines
    return None


def as_mixed_versions(job: Job, v: Verdict) -> bool:
    """Name the mixed releases instead of the surface failure; the surface entry stays the first
    alternative. True when the verdict changed."""
    if v.entry is None or v.category not in SURFACES or ENTRY not in job.entries:
        return False
    found = split(job)
    if found is None:
        return False
    lib, lines = found
    mixed = job.entries[ENTRY]
    surface = v.entry
    releases = sorted(lines, key=lambda r: tuple(int(x) for x in r.split(".")))
    v.alternatives = [surface, *(a for a in v.alternatives if a.id not in (ENTRY, surface.id))][:4]
    v.scores.setdefault(ENTRY, v.scores.get(surface.id, 0.0))
    v.lost_why[surface.id] = (
        f"the ranks ran {lib} {' and '.join(releases)}: the {surface.category} is what the mixed "
        "releases broke first"
    )
    v.entry, v.category = mixed, mixed.category
    v.context = [*(lines[r][0] for r in releases), *v.context]
    v.notes.append(
        f"The logs name {lib} {', '.join(releases[:-1])} and {releases[-1]} on different ranks or "
        "nodes: the job ran two releases, which exchange data at communicator set-up and in "
        "collectives that they do not read the same way. Make every node run the same image or "
        "environment before reading the failure any further."
    )
    return True
