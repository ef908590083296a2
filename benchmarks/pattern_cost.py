"""Which patterns make the engine's Hyperscan scan slow: each alone, and the database without it.

    .venv/bin/python benchmarks/pattern_cost.py LOG [--mb 8] [--top 10]

A combined database is not the sum of its patterns: a pattern that matches every line floods Python
with callbacks, and a bounded repeat between word boundaries turns into a large NFA. So for the
costliest patterns alone this also times the whole database without each of them (CPU time, best
of 3, callbacks counted). LOG is any realistic log, e.g. one rank of `scan_throughput.py --keep`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from knowledge.engine import Engine
from knowledge.patterns import Pattern, _hs_compile


def _cost(patterns: Sequence[Pattern], data: bytes, repeat: int = 3) -> tuple[float, int]:
    """Best CPU seconds of one scan of `data` with `patterns`, and the callbacks it made."""
    db = _hs_compile(patterns)
    calls = [0]

    def cb(*_args: object) -> None:
        calls[0] += 1

    best = float("inf")
    for _ in range(repeat):
        calls[0] = 0
        t0 = time.process_time()
        db.scan(data, match_event_handler=cb)
        best = min(best, time.process_time() - t0)
    return best, calls[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", type=Path)
    ap.add_argument("--mb", type=int, default=8)
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args()
    data = a.log.read_bytes()[: a.mb << 20]
    engine = Engine.load()
    main = engine.pattern_set._main  # the database as scanned (once-a-chunk patterns as their literals)
    reps = [p for p in main.patterns if p.idx in main._fan]
    gb = len(data) / 1e9
    full, calls = _cost(reps, data)
    mb = len(data) >> 20
    print(f"{len(reps)} distinct patterns over {mb} MB: {gb / full:.2f} GB/s, {calls} callbacks\n")
    alone = sorted(((_cost([p], data, 1)[0], p) for p in reps), key=lambda r: -r[0])[: a.top]
    print("| pattern | kind | alone GB/s | database without it GB/s | callbacks without it |")
    print("|---|---|---|---|---|")
    for dt, p in alone:
        rest, rest_calls = _cost([q for q in reps if q.idx != p.idx], data)
        print(f"| `{p.sig_id}` | {p.kind} | {gb / max(dt, 1e-9):.2f} | {gb / rest:.2f} | {rest_calls} |")
    worst = {p.idx for _, p in alone[:3]}
    rest, rest_calls = _cost([q for q in reps if q.idx not in worst], data)
    names = ", ".join(f"`{p.sig_id}`" for _, p in alone[:3])
    print(f"\nwithout the three costliest ({names}) together: {gb / rest:.2f} GB/s, {rest_calls} callbacks")


if __name__ == "__main__":
    main()
