"""Flight Recorder dumps built from the real format, for what gloo cannot record.

gloo (torch 2.13) records collectives only, with `state` always `scheduled` and an unnamed
`pg_config`. NCCL dumps also carry send/recv entries, real `started`/`completed` states and named
process groups. These helpers write such dumps with exactly the keys, value types and layout of
`FlightRecorder::dump` (`FlightRecorderDetail.hpp`, version 2.10): the entry template is a real
gloo entry from `fixtures/`, with the fields NCCL fills differently overridden.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).with_name("fixtures")
VERSION = "2.10"


def real_entry() -> dict[str, Any]:
    """The first entry of a real gloo dump (frames dropped: the scale set does without them)."""
    with (FIXTURES / "skip_collective" / "nccl_trace_rank_0").open("rb") as fh:
        from knowledge.flightrec import SafeUnpickler

        raw = SafeUnpickler(fh.read(), "fixture").load()
    e = dict(raw["entries"][0])
    e.pop("frames", None)
    return e


_TEMPLATE: dict[str, Any] | None = None


def entry(record_id: int, group: tuple[str, str], seq: int, op: str, **kw: Any) -> dict[str, Any]:
    """One entry as NCCL records it: `nccl:<op>`, p2p ops with `p2p_seq_id` and `is_p2p`."""
    global _TEMPLATE
    if _TEMPLATE is None:
        _TEMPLATE = real_entry()
    e = dict(_TEMPLATE)
    p2p = op.startswith(("send", "recv"))
    e.update(
        record_id=record_id,
        pg_id=int(group[0]) if group[0].isdigit() else 0,
        process_group=group,
        collective_seq_id=seq,
        op_id=record_id + 1,
        profiling_name=f"nccl:{op}",
        is_p2p=p2p,
        p2p_seq_id=kw.pop("p2p_seq", 0),
        state=kw.pop("state", "completed"),
        retired=True,
        time_discovered_started_ns=None,
        time_discovered_completed_ns=None,
    )
    sizes = kw.pop("sizes", [[4]])
    e["input_sizes"] = sizes
    e["output_sizes"] = kw.pop("out_sizes", sizes)
    e.update(kw)
    return e


def dump(entries: list[dict[str, Any]], groups: dict[str, tuple[str, list[int]]]) -> dict[str, Any]:
    """The top-level dict in torch's insertion order: version, pg_config, comm_lib_version, ..."""
    pg_config = {
        name: {"name": name, "desc": desc, "ranks": "[" + ", ".join(map(str, ranks)) + "]"}
        for name, (desc, ranks) in groups.items()
    }
    status = {}
    for e in entries:
        st = status.setdefault(
            str(e["pg_id"]),
            {"last_enqueued_collective": 0, "last_started_collective": -1, "last_completed_collective": 0},
        )
        st["last_enqueued_collective"] = max(st["last_enqueued_collective"], e["collective_seq_id"])
    return {
        "version": VERSION,
        "pg_config": pg_config,
        "comm_lib_version": "2.21.5",
        "pg_status": status,
        "entries": entries,
    }


def write(path: Path, d: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(d, protocol=2))  # torch's pickler writes protocol 2
    return path
