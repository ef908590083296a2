"""Numbers read from evidence lines: what a CUDA OOM asked for, how long a watchdog waited, who the
OOM killer chose, which Xid on which GPU, which exit code or signal.

These are formats (PyTorch's allocator message, ProcessGroupNCCL's watchdog line, the kernel's OOM
report, NVIDIA's Xid line, launchers' exit reports), not failure knowledge; follow-up answers quote
them ("asked for 3.91 GiB with 1.21 GiB free") instead of an entry's general text. Every parser takes
any text and never raises: a log is untrusted input.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterable
from dataclasses import dataclass

from knowledge.facts import parse_xid

_UNITS = {"b": 1 / 2**30, "kib": 1 / 2**20, "kb": 1 / 2**20, "mib": 1 / 2**10, "mb": 1 / 2**10, "gib": 1.0}
_UNITS |= {"gb": 1.0, "tib": 1024.0, "tb": 1024.0}
_SIZE = r"([\d.]+) ?([KMGT]i?B|bytes)"
_OOM_ASK = re.compile(r"Tried to allocate " + _SIZE, re.I)
_OOM_TOTAL = re.compile(r"total capacity of " + _SIZE + r" of which " + _SIZE + r" is free", re.I)
_OOM_OLD = re.compile(
    r"\(GPU (\d+); " + _SIZE + r" total capacity; " + _SIZE + r" already allocated; " + _SIZE + r" free", re.I
)
_OOM_GPU = re.compile(r"\bGPU (\d{1,3})\b")
_OOM_IN_USE = re.compile(r"this process has " + _SIZE + r" memory in use", re.I)
_OOM_BY_TORCH = re.compile(r"allocated memory " + _SIZE + r" is allocated by PyTorch", re.I)
_OOM_RESERVED = re.compile(_SIZE + r" is reserved by PyTorch but unallocated", re.I)
_DEVICE_OOM = re.compile(r"CUDA|HIP|GPU \d|OutOfMemoryError")
_HOST_ALLOC = re.compile(
    r"(?:CPU|Host)Allocator: can't allocate memory: you tried to allocate (\d+) bytes", re.I
)
_WATCHDOG = re.compile(
    r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)[^)]*?Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds", re.I
)
_GLOO_TIMEOUT = re.compile(r"Timed out waiting (\d+) ?ms")
_SEQ_OP = re.compile(r"SeqNum=(\d+), ?OpType=(\w+)")
_KILLED = re.compile(r"Killed process (\d+) \(([^)]{1,64})\)(?:.*?anon-rss:(\d+)kB)?(?:.*?file-rss:(\d+)kB)?")
_EXIT = re.compile(
    r"exit(?:(?:ed|ing) with(?: code)?|code|_code| code|Code)[:= ]{1,3}(-?\d{1,3})(?::(\d{1,3}))?", re.I
)
_SIGNAL = re.compile(r"\bSignal (\d{1,2}) \((SIG[A-Z]+)\)|\b(SIG(?:KILL|TERM|SEGV|ABRT|BUS|INT|HUP))\b")


@dataclass(frozen=True, slots=True)
class CudaOom:
    asked_gib: float
    total_gib: float | None = None
    free_gib: float | None = None
    in_use_gib: float | None = None
    by_torch_gib: float | None = None
    reserved_unallocated_gib: float | None = None
    gpu: int | None = None

    @property
    def short_gib(self) -> float | None:
        """How much more than was free the allocation needed (None without the free figure)."""
        return None if self.free_gib is None else max(0.0, self.asked_gib - self.free_gib)


@dataclass(frozen=True, slots=True)
class Watchdog:
    seq: int | None
    op: str | None
    timeout_s: float | None
    elapsed_s: float | None


@dataclass(frozen=True, slots=True)
class OomKill:
    pid: int
    process: str
    anon_rss_gib: float | None


@dataclass(frozen=True, slots=True)
class Exit:
    code: int | None
    signal: str | None  # `SIGKILL`


@dataclass(frozen=True, slots=True)
class XidCode:
    code: int
    pci: str
    message: str


def _gib(value: str, unit: str) -> float | None:
    try:
        number = float(value)
    except ValueError:
        return None
    factor = _UNITS.get(unit.lower(), 1 / 2**30 if unit.lower() == "bytes" else None)
    return None if factor is None else round(number * factor, 3)


def cuda_oom(text: str) -> CudaOom | None:
    """The figures of a PyTorch CUDA OOM message (2.x wording, and the older `(GPU N; ...)` one)."""
    if not _DEVICE_OOM.search(text):
        return None  # the CPU allocator also says "tried to allocate": see `host_alloc`
    ask = _OOM_ASK.search(text)
    asked = _gib(*ask.groups()) if ask else None
    if asked is None:
        return None
    old = _OOM_OLD.search(text)
    if old is not None:
        total, free = _gib(old.group(2), old.group(3)), _gib(old.group(6), old.group(7))
        return CudaOom(
            asked, total, free, by_torch_gib=_gib(old.group(4), old.group(5)), gpu=int(old.group(1))
        )
    total = free = None
    if (m := _OOM_TOTAL.search(text)) is not None:
        total, free = _gib(m.group(1), m.group(2)), _gib(m.group(3), m.group(4))
    gpu = _OOM_GPU.search(text)
    return CudaOom(
        asked,
        total,
        free,
        in_use_gib=_figure(_OOM_IN_USE, text),
        by_torch_gib=_figure(_OOM_BY_TORCH, text),
        reserved_unallocated_gib=_figure(_OOM_RESERVED, text),
        gpu=int(gpu.group(1)) if gpu else None,
    )


def _figure(rx: re.Pattern[str], text: str) -> float | None:
    m = rx.search(text)
    return _gib(m.group(1), m.group(2)) if m else None


def host_alloc(text: str) -> float | None:
    """GiB a host (CPU) allocation asked for when it failed (`DefaultCPUAllocator: can't allocate`)."""
    m = _HOST_ALLOC.search(text)
    return round(int(m.group(1)) / 2**30, 3) if m else None


def watchdog(text: str) -> Watchdog | None:
    """ProcessGroupNCCL's `WorkNCCL(SeqNum=…, OpType=…, Timeout(ms)=…) ran for … milliseconds`, or
    gloo's `Timed out waiting N ms`."""
    m = _WATCHDOG.search(text)
    if m is not None:
        return Watchdog(int(m.group(1)), m.group(2), int(m.group(3)) / 1000, int(m.group(4)) / 1000)
    if (g := _GLOO_TIMEOUT.search(text)) is not None:
        return Watchdog(None, None, int(g.group(1)) / 1000, None)
    if (s := _SEQ_OP.search(text)) is not None:
        return Watchdog(int(s.group(1)), s.group(2), None, None)
    return None


def oom_kill(text: str) -> OomKill | None:
    """The kernel OOM killer's victim: `Killed process PID (name) … anon-rss:NkB`."""
    m = _KILLED.search(text)
    if m is None:
        return None
    rss = int(m.group(3)) / 2**20 if m.group(3) else None
    return OomKill(int(m.group(1)), m.group(2), round(rss, 2) if rss is not None else None)


def exit_status(text: str) -> Exit | None:
    """An exit code (`exitcode: -9`, `ExitCode=0:125`) and the signal it stands for, or a named signal."""
    m = _EXIT.search(text)
    sig = _SIGNAL.search(text)
    name = (sig.group(2) or sig.group(3)) if sig else None
    if m is None:
        return Exit(None, name) if name else None
    code = int(m.group(1))
    if name is None and code < 0:
        name = _signal_name(-code)
    if name is None and m.group(2) and int(m.group(2)):  # Slurm `ExitCode=0:9`: the signal after the colon
        name = _signal_name(int(m.group(2)))
    return Exit(code, name)


def _signal_name(number: int) -> str | None:
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


def xid(text: str) -> XidCode | None:
    ev = parse_xid(text)
    return XidCode(ev.code, ev.pci, ev.message) if ev is not None else None


@dataclass(frozen=True, slots=True)
class Numbers:
    """Every number found in a set of lines, each with the index of the line it came from."""

    oom: tuple[CudaOom, int] | None = None
    watchdog: tuple[Watchdog, int] | None = None
    kill: tuple[OomKill, int] | None = None
    exit: tuple[Exit, int] | None = None
    xid: tuple[XidCode, int] | None = None
    host: tuple[float, int] | None = None


def read(lines: Iterable[str]) -> Numbers:
    """The first of each kind of figure in `lines` (the lines of one rank or one diagnosis)."""
    found: dict[str, object] = {}
    for i, text in enumerate(lines):
        for key, parse in (
            ("oom", cuda_oom),
            ("watchdog", watchdog),
            ("kill", oom_kill),
            ("exit", exit_status),
            ("xid", xid),
            ("host", host_alloc),
        ):
            if key not in found and (value := parse(text)) is not None:
                found[key] = (value, i)
    return Numbers(**found)  # type: ignore[arg-type]
