"""Slurm's `srun --label` tasks in a job's lines: which ran a launcher, and what their ranks are.

`srun -l torchrun …` runs one launcher per node, so srun's label (`1: `) is the node's task and the
rank is inside the line (`1: [default2]:`, the agent's `local_rank: 2`, its summary's `rank : 6`);
`srun -n 8 python train.py` runs one task per rank, and the label is the rank. Split from
`knowledge.signals`, which calls these while it builds a job.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING

from knowledge.scanner import SourceScan

if TYPE_CHECKING:
    from knowledge.signals import Job


#: torchrun's and accelerate's processes per node on a launch line (`--nproc_per_node 4`, `--num_processes=8`
#: is the world for accelerate, so only torchrun's spelling counts here)
_NPROC = re.compile(r"--nproc[_-]per[_-]node[= ](\d{1,4})\b")


def launcher_tasks(scans: list[SourceScan]) -> set[int]:
    """srun tasks that ran a launcher (`srun -l torchrun …`): their labelled lines name a rank inside the
    label (`1: [default2]:`, the agent's `1: … failed (exitcode: -9) local_rank: 2`, `1: rank : 6 (…)`).
    On such a task a bare label is the node's task, not a rank: those lines lose it as a rank."""
    tasks: set[int] = set()
    for scan in scans:
        own = {
            h.rank.task
            for h in scan.hits
            if h.rank.task is not None and (h.rank.local is not None or h.rank.rank is None)
        }
        if not own:
            continue
        tasks |= own
        for hit in scan.hits:
            info = hit.rank
            if info.task is not None and info.rank == info.task and info.local is None:
                hit.rank = replace(info, rank=None)
    return tasks


def task_offsets(job: Job) -> dict[tuple[int, int | None], set[int]]:
    """(source, srun task) → global rank minus local rank, from lines naming both; a launcher per srun
    task with `--nproc_per_node N` known and no such line gives task × N (the task is the node)."""
    offsets: dict[tuple[int, int | None], set[int]] = defaultdict(set)
    tasks: dict[int, set[int]] = defaultdict(set)
    for i, scan in enumerate(job.scans):
        for hit in scan.hits:
            info = hit.rank
            if info.task is not None:
                tasks[i].add(info.task)
            if (
                info.rank is not None
                and info.local is not None
                and (not hit.secondhand or info.task is not None)
            ):
                offsets[(i, info.task)].add(info.rank - info.local)
    for i, seen in tasks.items():
        nprocs = {int(m.group(1)) for h in job.scans[i].hits if (m := _NPROC.search(h.text))}
        if len(nprocs) == 1:
            n = next(iter(nprocs))
            for task in seen:
                offsets.setdefault((i, task), {task * n})
    return offsets


def resolve_locals(job: Job) -> None:
    """A node-local rank (`[default3]:`) becomes global through `[default0]:[rank8]:` lines of the same
    file (offset 8) — under srun's label, of the same srun task —, else only when the job ran on one node
    (then local and global agree)."""
    offsets = job.local_offsets
    for s in job.signals:
        local = s.hit.rank.local
        if s.rank is None and local is not None:
            offset = offsets.get((s.source, s.hit.rank.task), set())
            if len(offset) == 1:
                s.rank = local + next(iter(offset))
            elif job.single_node:
                s.rank = local
            if s.rank is not None:
                job.ranks.add(s.rank)
        if s.rank is not None and s.node is None:
            s.node = job.rank_node.get(s.rank)


#: Slurm's step summary for a task its cgroup OOM-killed (`srun: error: node12: task 3: Out Of Memory`)
_SRUN_OOM_TASK = re.compile(r"srun: error: [^:\s]+: task (\d{1,6}): Out Of Memory")


def link_oom_task(job: Job) -> None:
    """A kernel OOM kill whose pid no launcher line names is the task Slurm reports OOM-killed, when
    Slurm names one task only, the kernel log one victim only and no victim has a rank yet: the cgroup
    kill and srun's summary are one event (SchedMD/slurm src/srun/launch.c, `task N: Out Of Memory`)."""
    tasks = {int(m.group(1)) for s in job.signals if (m := _SRUN_OOM_TASK.search(s.hit.text))}
    if len(tasks) != 1:
        return
    (rank,) = tasks
    if not any(s.rank == rank and not s.kernel for s in job.signals):
        return
    victims = {
        m.group(1) for s in job.signals if s.kernel and (m := re.search(r"Killed process (\d+)", s.hit.text))
    }
    if len(victims) != 1 or any(s.kernel and s.rank is not None for s in job.signals):
        return
    for s in job.signals:
        if s.kernel:
            s.rank = rank


#: srun's line for one task that ended by itself (SchedMD/slurm src/srun/launch.c: `%s: %s %s: Exited with
#: exit code %d`, `… Out Of Memory`); `Terminated`/`Killed` (strsignal of the SIGTERM/SIGKILL srun and
#: slurmstepd send the rest of the step after a task fails) are the collateral, never the start
_OWN_END = re.compile(r"\bsrun: error: \S+: task \d{1,6}: (?:Exited with exit code [1-9]\d*|Out Of Memory)\b")
#: a launcher under srun (its tasks are nodes, not ranks): torchrun's agent, DeepSpeed's or accelerate's
_LAUNCHED = re.compile(
    r"\btorch[./]distributed[./](?:elastic|run)\b|\bChildFailedError\b|\bclosing signal SIG"
    r"|\bdeepspeed\.launcher\b|\baccelerate\.commands\b|\[default\d{1,5}\]:"
)


def failed_task(job: Job) -> int | None:
    """The one srun task that ended by itself (`task 2: Exited with exit code 1`, `task 6: Out Of
    Memory`) when the failure's own lines name no rank: with one task per rank (`srun -n 8 python …`)
    that task is the rank that started it, and the ranges and single tasks srun reports `Terminated` or
    `Killed` are the ones it stopped after. None when two tasks ended by themselves or a launcher ran
    under srun (its task is a node)."""
    if job.launcher_tasks:
        return None
    own: set[int] = set()
    for scan in job.scans:
        for hit in scan.hits:
            if _LAUNCHED.search(hit.text):
                return None
            if hit.rank.rank is not None and _OWN_END.search(hit.text):
                own.add(hit.rank.rank)
    return own.pop() if len(own) == 1 else None
