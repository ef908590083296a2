"""Ranks named by what the others' lines leave out: the child the launcher did not have to stop, and
the rank still busy in an earlier phase while every other rank waits in a collective.

Both are inferences from absence, so they are used only when nothing first-hand names a rank, only on
one node (where a local rank is the global rank), and with lowered confidence by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from knowledge import wording
from knowledge.lines import parse_rank
from knowledge.phases import PhaseReader

#: torchrun's elastic agent stops the surviving children one by one (torch/distributed/elastic/
#: multiprocessing/api.py: "Sending process %s closing signal %s"); the child that died is not in the list
_SIGTERM_PID = re.compile(r"Sending process (\d+) (?:the )?closing(?: signal SIG(?:TERM|KILL)|\s*$)")
#: DeepSpeed's launcher logs the command of the child that failed (deepspeed/launcher/launch.py,
#: sigkill_handler: "{cmd} exits with return code = {rc}"); the command carries its `--local_rank=N`
_FAILED_CMD = re.compile(r"sigkill_handler\] \[.*?'--local_rank=(\d+)'")
#: ... and, before that, stops every child in the order it started them, the dead one included
#: ("Killing subprocess {pid}", local rank 0 first)
_KILLING = re.compile(r"Killing subprocess (\d+)")
#: phases a rank can still be busy in while the others have gone on to the first collectives
_BEFORE_TRAIN = frozenset({"startup", "model_load", "data", "checkpoint_load"})


@dataclass(frozen=True, slots=True)
class Inferred:
    """A rank named by inference, the line that shows it, and why."""

    rank: int
    text: str
    why: str


def unsignalled_child(texts: Iterable[str]) -> Inferred | None:
    """The local rank of the one child torchrun did not send SIGTERM.

    The agent starts its children in local-rank order, so their pids rise with the local rank; when the
    pids it stops leave exactly one hole between the lowest and the highest, the hole is the child that
    had already died, and its place in the sorted pids is its local rank. A missing pid at either end
    (or more than one hole) cannot be placed: None.
    """
    pids: dict[int, str] = {}
    for text in texts:
        for m in _SIGTERM_PID.finditer(text):
            pids.setdefault(int(m.group(1)), text.strip())
    if len(pids) < 2:
        return None
    ordered = sorted(pids)
    holes = [p for p in range(ordered[0], ordered[-1] + 1) if p not in pids]
    if len(holes) != 1 or ordered[-1] - ordered[0] != len(ordered):
        return None
    rank = sorted([*ordered, holes[0]]).index(holes[0])
    return Inferred(rank, pids[ordered[0]], wording.unsignalled_child(rank, ordered, holes[0]))


def failed_command(texts: Iterable[str]) -> Inferred | None:
    """The local rank in the failed child's command line that DeepSpeed's launcher prints (one only)."""
    found: dict[int, str] = {}
    for text in texts:
        if (m := _FAILED_CMD.search(text)) is not None:
            found.setdefault(int(m.group(1)), text.strip())
    if len(found) != 1:
        return None
    ((rank, text),) = found.items()
    return Inferred(rank, text, wording.failed_command(rank))


def launcher_pid_ranks(texts: Iterable[str]) -> dict[str, int]:
    """pid → local rank from DeepSpeed's launcher stopping its children in local-rank order (one list
    only: two launchers' lists in one log cannot be told apart)."""
    pids: list[str] = []
    for text in texts:
        for m in _KILLING.finditer(text):
            if m.group(1) not in pids:
                pids.append(m.group(1))
    return {pid: rank for rank, pid in enumerate(pids)} if len(pids) >= 2 else {}


def busy_elsewhere(phases: PhaseReader | None, waiting: set[int]) -> Inferred | None:
    """The one rank whose last phase line shows it still loading or preparing data while the others
    wait in a collective (a rank tokenising a dataset alone while the rest time out in an all-reduce)."""
    if phases is None or not waiting:
        return None
    busy: dict[int, str] = {}
    for marks in phases.timelines:
        last: dict[int, tuple[str, str]] = {}
        for mark in marks:
            info = parse_rank(mark.text)
            rank = info.rank if info.rank is not None else info.local
            if rank is not None:
                last[rank] = (phases.markers[mark.marker].phase, mark.text)
        for rank, (phase, text) in last.items():
            if phase in _BEFORE_TRAIN and rank not in waiting:
                busy[rank] = text.strip()
    if len(busy) != 1:
        return None
    ((rank, text),) = busy.items()
    return Inferred(rank, text, wording.busy_elsewhere(rank, waiting))
