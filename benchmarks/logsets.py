# ruff: noqa: E501 - realistic log lines are long
"""Synthetic multi-rank job logs for the benchmarks: one failure buried at a random rank and point.

Every rank logs realistic training output (the trainer, NCCL INFO, tqdm, warnings: the line mix of
`benchmarks/scan_throughput.py`, whose generator this reuses). One rank, chosen at random, hits a
CUDA OOM at a random point of its log and stops; every other rank logs on to its full size and ends
with the collateral NCCL watchdog timeout and the launcher's SIGTERM teardown. So the failing line
is neither at the end of the job's logs nor in the largest file.

Generation is fast enough for tens of GB: a per-rank block of ~256 KiB of lines is generated once
and written repeatedly (real bytes on disk, no sparse holes), so writing runs at disk speed.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

from benchmarks.scan_throughput import _lines

BLOCK = 256 << 10


@dataclass
class LogSet:
    folder: Path
    ranks: int
    bytes: int
    culprit: int
    culprit_offset: int


def _failure(rank: int) -> bytes:
    return "\n".join(
        [
            f"[rank{rank}]: Traceback (most recent call last):",
            f'[rank{rank}]:   File "/workspace/train.py", line 412, in training_step',
            f"[rank{rank}]:     loss.backward()",
            f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU {rank % 8} "
            "has a total capacity of 79.15 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this "
            "process has 77.9 GiB memory in use.",
            "",
        ]
    ).encode()


def _collateral(rank: int) -> bytes:
    return (
        f"[rank{rank}]:[E1120 04:50:01.{rank:06d} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
        f"operation timeout: WorkNCCL(SeqNum=91234, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
        f"ran for 600087 milliseconds before timing out.\n"
        f"[rank{rank}]:[E1120 04:50:01.{rank:06d} ProcessGroupNCCL.cpp:1834] [PG 0 Rank {rank}] Process group "
        f"watchdog thread terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout\n"
        f"W1120 04:50:02.{rank:06d} torch/distributed/elastic/multiprocessing/api.py:897] Sending process "
        f"{40000 + rank} closing signal SIGTERM\n"
    ).encode()


def _write_rank(path: Path, rank: int, size: int, fail_at: int | None, seed: int) -> int:
    block = _lines(rank, random.Random(seed * 100003 + rank), BLOCK, None)
    tail = _failure(rank) if fail_at is not None else _collateral(rank)
    body = fail_at if fail_at is not None else max(size - len(tail), 0)
    written = 0
    with path.open("wb", buffering=0) as f:
        while written + len(block) <= body:
            f.write(block)
            written += len(block)
        cut = block.rfind(b"\n", 0, body - written) + 1  # end the filler on a whole line
        f.write(block[:cut])
        written += cut
        f.write(tail)
        written += len(tail)
    return written


def generate(folder: Path, ranks: int, mb_per_rank: float, seed: int = 1) -> LogSet:
    """Write `ranks` files `rank<N>.log` of ~`mb_per_rank` MiB each into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(seed)
    culprit = rnd.randrange(ranks)
    size = int(mb_per_rank * (1 << 20))
    offset = int(size * rnd.uniform(0.1, 0.9))
    total = 0
    for rank in range(ranks):
        total += _write_rank(
            folder / f"rank{rank}.log", rank, size, offset if rank == culprit else None, seed
        )
    return LogSet(folder, ranks, total, culprit, offset)


def link_copies(src: Path, dest: Path) -> None:
    """`dest` gets hard links to every file of `src` (many jobs, one set of bytes on disk)."""
    dest.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        os.link(f, dest / f.name)
