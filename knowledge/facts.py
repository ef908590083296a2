"""Facts read from retained lines: Xid codes, which GPU a rank used, watchdog sequence numbers.

These are formats (NVIDIA's kernel messages, NCCL's init lines, PyTorch's watchdog lines), not
failure knowledge: what an Xid *means* comes from `data/xid.toml`, never from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from knowledge.schema import DATA_DIR, EntryError, Xid, load_xids

_XID = re.compile(
    r"NVRM: Xid \((?:PCI:)?((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.[0-7])?\):\s*(\d{1,4})"
    r"(?:,\s*(?:pid=(\d+|'<unknown>'))?,?\s*(?:name=([^,]*),)?\s*(.*))?"
)
_DEVICE = re.compile(
    r"(?:^|\s)(?:(\S+?):\d+:\d+ \[(\d+)\] )?NCCL INFO .*?\brank (\d+) nranks (\d+) cudaDev (\d+)"
    r"(?: nvmlDev \d+)? busId ([0-9a-f]+)",
    re.IGNORECASE,
)
_SEQ = re.compile(r"(?:SeqNum|SequenceNumber)=(\d+), ?OpType=([A-Z_]+)")  # watchdog; DETAIL fingerprint
#: ProcessGroupNCCL's watchdog: "last enqueued NCCL work: N" (PyTorch 2.1-2.2) and "PG status: last enqueued
#: work: N" (2.3+), pytorch/pytorch@v2.5.0:torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp
_ENQUEUED = re.compile(r"last enqueued (?:NCCL )?work: ?(\d+)")
_WORLD = re.compile(r"(?:world[_ ]size|nranks)[=: ]+(\d{1,6})", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class XidEvent:
    pci: str  # normalised `0000:05:00`
    code: int
    message: str


def norm_pci(text: str) -> str:
    """`00000000:05:00.0`, `0000:05:00`, `05:00` -> `0000:05:00` (domain 4 digits, lower case)."""
    parts = text.lower().split(".")[0].split(":")
    if len(parts) == 2:
        parts = ["0000", *parts]
    domain = parts[0][-4:].rjust(4, "0")
    return f"{domain}:{parts[1].rjust(2, '0')}:{parts[2].rjust(2, '0')}"


def nccl_bus_to_pci(bus: str) -> str:
    """NCCL prints the bus id as a hex number (`busId 5000` is `0000:05:00.0`)."""
    digits = bus.lower().rjust(9, "0")
    return f"{digits[-9:-5]}:{digits[-5:-3]}:{digits[-3:-1]}"


def parse_xid(text: str) -> XidEvent | None:
    m = _XID.search(text)
    if not m:
        return None
    return XidEvent(norm_pci(m.group(1)), int(m.group(2)), (m.group(5) or "").strip())


@dataclass(frozen=True, slots=True)
class DeviceFact:
    host: str | None
    rank: int
    nranks: int
    pci: str


def parse_device(text: str) -> DeviceFact | None:
    m = _DEVICE.search(text)
    if not m:
        return None
    return DeviceFact(m.group(1), int(m.group(3)), int(m.group(4)), nccl_bus_to_pci(m.group(6)))


def parse_seq(text: str) -> tuple[str, int] | None:
    m = _SEQ.search(text)
    return (m.group(2), int(m.group(1))) if m else None


def parse_enqueued(text: str) -> int | None:
    """The sequence number of the last collective this rank enqueued, from its watchdog line."""
    m = _ENQUEUED.search(text)
    return int(m.group(1)) if m else None


def parse_world(text: str) -> int | None:
    m = _WORLD.search(text)
    if not m:
        return None
    n = int(m.group(1))
    return n if 0 < n <= 1_000_000 else None


def load_catalogue(path: Path | None = None) -> dict[int, Xid]:
    """The Xid catalogue, or an empty one while `data/xid.toml` does not exist yet."""
    path = path or DATA_DIR / "xid.toml"
    if not path.exists():
        return {}
    try:
        return load_xids(path)
    except EntryError:
        raise
