"""The faults the real jobs inject, one per job, each in one chosen rank at one chosen step.

Each fault is what really happens to training jobs, produced the real way (a real SIGKILL, a real
address-space limit, a real ENOSPC from /dev/full), so that the logs are the ones users see; only
*which* rank and *when* is chosen from the command line.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import time
from dataclasses import dataclass
from pathlib import Path

KINDS = (
    "none",
    "shape",
    "sigkill",
    "hang",
    "desync",
    "nan",
    "disk_full",
    "disk_full_fileobj",
    "worker_kill",
    "memory_train",
    "memory_python",
    "memory_gather",
    "segfault",
    "user_error",
)


@dataclass(frozen=True)
class Fault:
    """One injected fault: its kind, the global rank that gets it and the step at which it fires."""

    kind: str = "none"
    rank: int = -1
    step: int = -1

    @classmethod
    def from_env(cls) -> Fault:
        """DataLoader workers read the fault from the environment (they do not see argv parsing)."""
        return cls(
            kind=os.environ.get("RJ_FAULT", "none"),
            rank=int(os.environ.get("RJ_FAULT_RANK", "-1")),
            step=int(os.environ.get("RJ_FAULT_STEP", "-1")),
        )

    def fires(self, kind: str, rank: int, step: int) -> bool:
        return self.kind == kind and self.rank == rank and self.step == step


def vm_size() -> int:
    """This process's virtual size in bytes (what RLIMIT_AS counts)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


M_MMAP_THRESHOLD = -3


def pin_mmap_threshold() -> None:
    """Called at start-up by jobs that limit their address space later: with glibc's dynamic mmap
    threshold, freed tensors stay in the heap and later ones reuse them, so the limit would bite at
    some unrelated allocation instead of the one the job means (each large tensor gets its own map)."""
    ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, 1 << 20)


def limit_address_space(headroom: int) -> None:
    """What a tight container or `ulimit -v` does: leave only `headroom` bytes of address space."""
    limit = vm_size() + headroom
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def kill_self() -> None:
    """SIGKILL, as the kernel's OOM killer (or `kill -9`) delivers it: no Python code runs after."""
    os.kill(os.getpid(), signal.SIGKILL)


def hang_forever() -> None:
    """A rank stuck outside any collective (a deadlock, a stuck read): the others time out on it."""
    while True:
        time.sleep(3600)


def segfault() -> None:
    """A native crash: reading address 0 through ctypes raises SIGSEGV in the interpreter."""
    ctypes.string_at(0)


def full_disk_path(path: Path) -> Path:
    """Make `path` a file on a full filesystem: a link to /dev/full, whose writes fail with ENOSPC."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.exists():
        path.unlink()
    path.symlink_to("/dev/full")
    return path
