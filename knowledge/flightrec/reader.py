"""Reading PyTorch Flight Recorder dumps safely: detection by content, a restricted unpickler, JSON.

A dump is what a training job's process wrote, so it is attacker-controlled input: `pickle.load` on
it would run whatever `__reduce__` it names. `SafeUnpickler` resolves no global at all, so only the
builtin containers and scalars the pickle opcodes build themselves (dict, list, tuple, set, str,
bytes, int, float, bool, None) can come out; anything else is refused with a `DumpError` naming the
file. The format (keys, states, `pg_config`) is torch's `FlightRecorder::dump` / `dump_json`, version
2.x; one dump is reduced to a compact `RankTrace` at once so 1,000 ranks fit in bounded memory.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from denpex.core.models import LogSource
from knowledge.flightrec.trace import RankTrace, TraceBuilder

#: refuse dumps larger than this before reading them (a 20,000-entry dump with stacks is ~100 MB)
MAX_DUMP_BYTES = 1 << 30
SNIFF_BYTES = 4096
_PICKLE_KEYS = (b"pg_config", b"entries", b"pg_status", b"comm_lib_version")
_JSON_KEYS = (b'"comm_lib_version"', b'"pg_config"', b'"pg_status"')
#: torch names a dump `<prefix><rank>` (default prefix `/tmp/nccl_trace_rank_`); JSON copies often
#: get an extension
_RANK_IN_NAME = re.compile(r"(\d{1,7})(?:\.(?:json|pkl|pickle|bin|dump|trace))?$", re.I)

Format = Literal["pickle", "json"]


class DumpError(Exception):
    """A dump that cannot be used: unsafe, truncated, corrupt or not a Flight Recorder dump.

    `str()` names the file and says why in one line.
    """

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason


def _bytes_of(value: Any = b"", encoding: str | None = None) -> bytes:
    """`bytes` as protocol 2 pickles it (`_codecs.encode(text, "latin1")`), never `bytes(n)`."""
    if isinstance(value, str) and encoding in ("latin1", "latin-1"):
        return value.encode("latin-1")
    if isinstance(value, bytes | list) and encoding is None:
        return bytes(value)
    raise pickle.UnpicklingError("bytes from something other than data")


def _bytearray_of(value: Any = b"") -> bytearray:
    if isinstance(value, bytes | list):
        return bytearray(value)
    raise pickle.UnpicklingError("bytearray from something other than data")


#: the only globals a pickle of plain builtin data needs (protocol 2 spells sets and bytes this way);
#: each is a constructor of data that cannot allocate more than the file holds
_DATA_GLOBALS: dict[tuple[str, str], Any] = {
    **{(m, "set"): set for m in ("builtins", "__builtin__")},
    **{(m, "frozenset"): frozenset for m in ("builtins", "__builtin__")},
    **{(m, "bytes"): _bytes_of for m in ("builtins", "__builtin__")},
    **{(m, "bytearray"): _bytearray_of for m in ("builtins", "__builtin__")},
    ("_codecs", "encode"): _bytes_of,
}


class SafeUnpickler(pickle._Unpickler):
    """An unpickler that admits only builtin containers and scalars.

    `find_class` is the only way a pickle reaches a callable (GLOBAL, STACK_GLOBAL, INST, EXT*), and
    persistent ids are the only way to reach the loader's own objects. Both are refused, except the
    few data constructors in `_DATA_GLOBALS`, so REDUCE, NEWOBJ and BUILD can never run code.

    It is the pure-Python unpickler on purpose: the C one sizes its memo table from the index a
    `LONG_BINPUT` names, so five hostile bytes make it allocate tens of gigabytes; this one keeps the
    memo in a dict. It is ~10x slower (about 0.7 s for a 20,000-entry dump), paid once per dump.
    """

    def __init__(self, data: bytes, name: str) -> None:
        super().__init__(io.BytesIO(data))
        self._name = name

    def find_class(self, module: str, name: str) -> Any:
        safe = _DATA_GLOBALS.get((module, name))
        if safe is None:
            raise DumpError(self._name, f"refused: the pickle asks for {module}.{name}, not plain data")
        return safe

    def persistent_load(self, pid: Any) -> Any:
        raise DumpError(self._name, "refused: the pickle uses persistent ids, not plain data")


def sniff(head: bytes) -> Format | None:
    """`pickle` / `json` when the first bytes look like a Flight Recorder dump, else None.

    torch writes the pickle's dict with `version` and `pg_config` first; nlohmann's JSON sorts the
    keys, so `comm_lib_version` comes first there. A match is only a hint: `load` checks the keys.
    """
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        if b"version" in head and any(k in head for k in _PICKLE_KEYS):
            return "pickle"
        return None
    text = head.lstrip()
    if text.startswith(b"{") and (
        any(k in text for k in _JSON_KEYS) or (b'"entries"' in text and b'"profiling_name"' in text)
    ):
        return "json"
    return None


def sniff_source(src: LogSource) -> Format | None:
    """Detect a dump among sources by content. Streams (`chunks`) are not consumed: name only."""
    if src.kind == "flight_recorder":
        return "pickle"  # the reader tells pickle from JSON again from the bytes
    if src.data is not None:
        return sniff(src.data[:SNIFF_BYTES])
    if src.file is not None:  # a collector's open file: read where it stands, by offset
        try:
            return sniff(os.pread(src.file.fileno(), SNIFF_BYTES, 0))
        except OSError:
            return None
    if src.path is not None:
        return sniff_path(src.path)
    return None


def sniff_path(path: Path) -> Format | None:
    try:
        with path.open("rb") as fh:
            return sniff(fh.read(SNIFF_BYTES))
    except OSError:
        return None


def rank_from_name(name: str) -> int | None:
    m = _RANK_IN_NAME.search(os.path.basename(name))
    return int(m.group(1)) if m else None


def load(data: bytes, name: str) -> dict[str, Any]:
    """The dump's top-level dict, from pickle or JSON bytes; `DumpError` for anything else."""
    fmt = sniff(data[:SNIFF_BYTES]) or ("pickle" if data[:1] == b"\x80" else "json")
    try:
        raw = SafeUnpickler(data, name).load() if fmt == "pickle" else json.loads(data)
    except DumpError:
        raise
    except RecursionError:
        raise DumpError(name, "corrupt: nested too deeply") from None
    except MemoryError:
        raise DumpError(name, "corrupt: too large to decode") from None
    except Exception as exc:  # truncated or corrupt: pickle and json raise many kinds
        raise DumpError(name, _why(exc, fmt, data)) from None
    if not isinstance(raw, dict) or "version" not in raw or not ({"entries", "pg_config"} & raw.keys()):
        raise DumpError(name, "not a Flight Recorder dump (no version / entries / pg_config)")
    version = str(raw.get("version"))
    if not version.startswith("2."):
        raise DumpError(name, f"unsupported Flight Recorder format version {version!r} (2.x is read)")
    return raw


def _why(exc: Exception, fmt: Format, data: bytes) -> str:
    """Truncated (the usual case: the job was killed while writing) or otherwise corrupt."""
    cut = (
        isinstance(exc, EOFError)
        or (fmt == "pickle" and not data.endswith(b"."))  # every pickle ends with STOP
        or (isinstance(exc, json.JSONDecodeError) and exc.pos >= len(data.rstrip()) - 1)
    )
    if cut:
        return "truncated: the file ends before the dump does"
    return f"corrupt {fmt}: {type(exc).__name__}: {str(exc)[:120]}"


def _read_bytes(src: LogSource) -> bytes:
    if src.data is not None:
        return src.data
    if src.path is not None:
        size = src.path.stat().st_size
        if size > MAX_DUMP_BYTES:
            raise DumpError(src.name, f"too large ({size} bytes; limit {MAX_DUMP_BYTES})")
        return src.path.read_bytes()
    out = bytearray()
    for chunk in src.open_bytes():
        out += chunk
        if len(out) > MAX_DUMP_BYTES:
            raise DumpError(src.name, f"too large (over {MAX_DUMP_BYTES} bytes)")
    return bytes(out)


def read_source(src: LogSource) -> RankTrace:
    """One dump to its compact trace. Raises `DumpError` (never anything else) for a bad dump."""
    try:
        data = _read_bytes(src)
    except OSError as exc:
        raise DumpError(src.name, f"unreadable: {exc.strerror or exc}") from None
    raw = load(data, src.name)
    del data
    rank = src.rank if src.rank is not None else rank_from_name(src.name)
    return summarise(raw, src.name, rank)


def summarise(raw: dict[str, Any], name: str, rank: int | None) -> RankTrace:
    """Reduce a decoded dump to a `RankTrace`; malformed entries are counted, not fatal."""
    builder = TraceBuilder(name, rank, str(raw.get("version")))
    builder.add_config(raw.get("pg_config"))
    builder.add_status(raw.get("pg_status"))
    entries = raw.get("entries", [])
    if not isinstance(entries, list):
        raise DumpError(name, "corrupt: `entries` is not a list")
    for index, entry in _reversed(entries):
        builder.add_entry(index, entry)
    if entries and builder.bad == len(entries):
        raise DumpError(name, "corrupt: no entry has the Flight Recorder fields")
    trace = builder.finish()
    lib = raw.get("comm_lib_version")
    trace.comm_lib = (
        re.sub(r"[^0-9A-Za-z.+_-]", "", lib)[:40] if isinstance(lib, str) else ""
    )  # hostile input
    return trace


def _reversed(entries: list[Any]) -> Iterator[tuple[int, Any]]:
    """Newest first: the analysis needs the last few operations of each group in full."""
    for i in range(len(entries) - 1, -1, -1):
        yield i, entries[i]
