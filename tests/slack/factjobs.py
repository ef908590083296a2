"""Diagnosed jobs for the follow-up tests: real-looking logs through the real engine.

`gpu_oom`: the bundled demo job (8 ranks on gpu-01/gpu-02, rank 5 CUDA OOM in a training step, the
others' NCCL watchdogs 600 s later). `checkpoint_oom` and `desync`: real torchrun jobs from
tests/realjobs (a host OOM while gathering a checkpoint on rank 1; rank 3 entering another collective).
`xid` and `host_oom_kill`: the demo job's first 2,000 steps with another ending (an Xid 79 on gpu-02,
the kernel OOM killer on gpu-01). `flight_recorder`: 4 NCCL ranks whose dumps show rank 2 never
entered all_reduce #5. Six more real torchrun jobs of tests/realjobs (a NaN loss, a killed DataLoader
worker, a segfault, a hang before a collective, a save to a full disk, a rendezvous port in use).
Three golden scenarios of tests/knowledge/scenarios.py, the product's own two classes and a scheduler
kill: `zero3_save` (rank 0 CUDA OOM gathering the 16-bit ZeRO-3 weights at a save, 7 ranks time out),
`fsdp_cpu_save` (every rank builds a full CPU state dict, the OOM killer ends local rank 2) and
`time_limit` (Slurm cancels a healthy job at its time limit).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from denpex.demo import LOGS
from knowledge.engine import Engine
from knowledge.sources import discover
from tests.flightrec import dumps
from tests.knowledge import scenarios

REALJOBS = Path(__file__).parents[1] / "realjobs" / "fixtures"
STEP_2000 = 205  # lines of each demo rank log up to and including step 2000


@functools.cache
def engine() -> Engine:
    return Engine.load()


def _diagnose(folder: Path) -> Diagnosis:
    return engine().diagnose(discover([folder]))


def _demo_start(folder: Path, ranks: range = range(8)) -> None:
    for r in ranks:
        lines = (LOGS / f"rank{r}.log").read_text().splitlines()[:STEP_2000]
        (folder / f"rank{r}.log").write_text("\n".join(lines) + "\n")


def _watchdog(rank: int, second: int, seq: int = 48213, op: str = "ALLREDUCE") -> str:
    return (
        f"[2026-11-20 03:24:{second:02d},004] [E ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught "
        f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1048576, "
        f"NumelOut=1048576, Timeout(ms)=600000) ran for 600012 milliseconds before timing out."
    )


def _append(path: Path, *lines: str) -> None:
    with path.open("a") as fh:
        fh.write("\n".join(lines) + "\n")


def gpu_oom(tmp: Path) -> Diagnosis:
    return _diagnose(LOGS)


def checkpoint_oom(tmp: Path) -> Diagnosis:
    return _diagnose(REALJOBS / "cpu_oom_checkpoint_gather" / "logs")


def desync(tmp: Path) -> Diagnosis:
    return _diagnose(REALJOBS / "desync" / "logs")


def xid(tmp: Path) -> Diagnosis:
    folder = tmp / "xid"
    folder.mkdir()
    _demo_start(folder)
    for r in range(8):
        node, dev = ("gpu-01", r) if r < 4 else ("gpu-02", r - 4)
        bus = ["18000", "3b000", "86000", "af000"][dev]
        text = (LOGS / f"rank{r}.log").read_text().splitlines()[:STEP_2000]
        init = (
            f"{node}:4{r}21:4{r}21 [{dev}] NCCL INFO comm 0x5563a rank {r} nranks 8 cudaDev {dev} "
            f"nvmlDev {dev} busId {bus} commId 0x7d1f - Init COMPLETE"
        )
        text.insert(5, init)
        (folder / f"rank{r}.log").write_text("\n".join(text) + "\n")
    _append(
        folder / "rank5.log",
        "[2026-11-20 03:14:03,518] [ERROR] [rank5] RuntimeError: CUDA error: unspecified launch failure",
        "[2026-11-20 03:14:03,519] [ERROR] [rank5] exiting with code 1",
    )
    for r in (0, 1, 2, 3, 4, 6, 7):
        _append(folder / f"rank{r}.log", _watchdog(r, 3))
    (folder / "node-gpu-02.dmesg").write_text(
        "[Fri Nov 20 02:00:42 2026] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07\n"
        "[Fri Nov 20 03:14:03 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=45121, name=python, "
        "GPU has fallen off the bus.\n"
        "[Fri Nov 20 03:14:03 2026] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"
    )
    return _diagnose(folder)


def host_oom_kill(tmp: Path) -> Diagnosis:
    folder = tmp / "hostoom"
    folder.mkdir()
    _demo_start(folder, range(4))
    for r in range(4):
        text = (folder / f"rank{r}.log").read_text().replace("node=gpu-01", "node=gpu-01")
        (folder / f"rank{r}.log").write_text(text.replace("world_size=8", "world_size=4"))
        if r != 2:
            _append(folder / f"rank{r}.log", _watchdog(r, 6, seq=9120, op="ALLGATHER"))
    _append(
        folder / "rank2.log",
        "[2026-11-20 03:14:04,870] [INFO] [rank2] data: building in-memory index of 1.2B samples (pid 51234)",
    )
    (folder / "launcher.log").write_text(
        "[2026-11-20 03:14:06,001] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
        "(exitcode: -9) local_rank: 2 (pid: 51234) of binary: /usr/bin/python3\n"
    )
    (folder / "node-gpu-01.dmesg").write_text(
        "[Fri Nov 20 03:14:05 2026] python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|"
        "__GFP_COMP), order=0, oom_score_adj=0\n"
        "[Fri Nov 20 03:14:05 2026] Out of memory: Killed process 51234 (python) total-vm:98765432kB, "
        "anon-rss:64223412kB, file-rss:12345kB, shmem-rss:0kB, UID:1000 pgtables:130000kB oom_score_adj:0\n"
    )
    return _diagnose(folder)


def flight_recorder(tmp: Path) -> Diagnosis:
    folder = tmp / "fr"
    folder.mkdir()
    group = ("0", "default_pg")
    for r in range(4):
        last = 4 if r == 2 else 5
        entries = [dumps.entry(i, group, i + 1, "all_reduce") for i in range(last)]
        if r != 2:
            entries[-1]["state"] = "started"
        dumps.write(folder / f"nccl_trace_rank_{r}", dumps.dump(entries, {"0": ("default_pg", [0, 1, 2, 3])}))
        if r != 2:
            (folder / f"rank{r}.log").write_text(
                f"[2026-11-20 03:00:0{r},000] [INFO] [rank{r}] step 40/100 loss=1.2\n"
                + _watchdog(r, 1, seq=5, op="ALLREDUCE").replace("03:24:", "03:10:")
                + "\n"
            )
    (folder / "rank2.log").write_text("[2026-11-20 03:00:02,000] [INFO] [rank2] step 40/100 loss=1.2\n")
    return _diagnose(folder)


def _realjob(name: str) -> Callable[[Path], Diagnosis]:
    """A real torchrun job of tests/realjobs, diagnosed from its committed logs."""

    def build(tmp: Path) -> Diagnosis:
        return _diagnose(REALJOBS / name / "logs")

    build.__name__ = name
    return build


def _scenario(name: str) -> Callable[[Path], Diagnosis]:
    """A golden scenario of tests/knowledge/scenarios.py, written into `tmp` and diagnosed."""

    def build(tmp: Path) -> Diagnosis:
        folder = tmp / name
        folder.mkdir()
        return _diagnose(getattr(scenarios, name)(folder))

    build.__name__ = name
    return build


JOBS = {
    "gpu_oom": gpu_oom,
    "checkpoint_oom": checkpoint_oom,
    "desync": desync,
    "xid": xid,
    "host_oom_kill": host_oom_kill,
    "flight_recorder": flight_recorder,
    # real jobs no question was tuned on before batch 12 (tests/realjobs/fixtures/<name>)
    "nan_loss": _realjob("nan_loss"),
    "dataloader_worker_killed": _realjob("dataloader_worker_killed"),
    "segfault": _realjob("segfault"),
    "hang_before_collective": _realjob("hang_before_collective"),
    "disk_full_save": _realjob("disk_full_save"),
    "rendezvous_port_in_use": _realjob("rendezvous_port_in_use"),
    # the product's two checkpoint classes and a scheduler kill, no question written before batch 17
    "zero3_save": _scenario("zero3_save"),
    "fsdp_cpu_save": _scenario("fsdp_cpu_save"),
    "time_limit": _scenario("time_limit"),
}
