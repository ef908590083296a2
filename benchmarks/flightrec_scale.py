"""Flight Recorder analysis at scale: 1,000 ranks x 20,000 entries, time and peak memory.

    .venv/bin/python benchmarks/flightrec_scale.py [--ranks 1000] [--entries 20000] [--tp 8]

Builds each rank's dump in the real pickle format (torch's keys and insertion order, protocol 2,
entries from a real gloo dump's template; TP groups of `--tp` ranks, DP groups across them, a
barrier on the world every 50 steps), one rank at a time, and reads it with the real reader into a
compact trace, so at most one decoded dump is alive at once. Ranks 12 and 14 hang before the last
tensor-parallel all_gather; their TP peers block in it and so never reach the next data-parallel
all_reduce (collateral the analysis must not name). Prints build/read/analysis seconds, peak RSS,
and the suspects (must be exactly [12, 14]).

The first `--safe-sample` dumps are read with the safe (pure-Python) unpickler and timed per dump;
the rest, bytes this script made itself, are decoded with C pickle to keep the run short and then go
through the same `summarise` reduction (`--all-safe` reads every one the safe way).
"""

from __future__ import annotations

import argparse
import pickle
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from denpex.core.models import LogSource
from knowledge.flightrec import analyse, read_source
from knowledge.flightrec.reader import summarise
from tests.flightrec.dumps import dump, entry

HUNG = (12, 14)
TP_DESC, DP_DESC = "TENSOR_MODEL_PARALLEL_GROUP", "DATA_PARALLEL_GROUP"


def layout(world: int, tp: int) -> dict[str, tuple[str, list[int]]]:
    groups = {"0": ("default_pg", list(range(world)))}
    for i in range(world // tp):
        groups[str(1 + i)] = (TP_DESC, list(range(i * tp, (i + 1) * tp)))
    for j in range(tp):
        groups[str(1 + world // tp + j)] = (DP_DESC, list(range(j, world, tp)))
    return groups


def rank_dump(rank: int, world: int, tp: int, n: int, groups: dict[str, tuple[str, list[int]]]) -> bytes:
    """The last `n` entries of a rank's ring buffer (it wrapped long ago: record ids start high)."""
    tp_name, dp_name = str(1 + rank // tp), str(1 + world // tp + rank % tp)
    cycle = [
        (tp_name, TP_DESC, "all_reduce", [[4096]], [[4096]]),
        (tp_name, TP_DESC, "all_gather", [[1024]], [[1024 * tp]]),
        (dp_name, DP_DESC, "all_reduce", [[8192]], [[8192]]),
    ]
    seq = {"0": 0, tp_name: 0, dp_name: 0}
    plan = []
    i = 0
    while len(plan) < n + 6:
        for name, desc, op, ins, outs in cycle:
            seq[name] += 1
            plan.append((name, desc, op, ins, outs, seq[name]))
        i += 1
        if i % 50 == 0:
            seq["0"] += 1
            plan.append(("0", "default_pg", "barrier", [], [], seq["0"]))
    cut = max(k for k, step in enumerate(plan) if step[2] == "all_gather" and k < n + 3)
    plan = plan[: cut + 1]  # everyone's last op: the TP all_gather (the front)
    if rank in HUNG:
        plan = plan[:-1]  # hung before entering the TP all_gather
    plan = plan[-n:]
    base = 10_000_000
    entries = []
    for k, (name, desc, op, ins, outs, s) in enumerate(plan):
        last = k == len(plan) - 1
        entries.append(
            entry(
                base + k,
                (name, desc),
                s,
                op,
                sizes=ins,
                out_sizes=outs,
                time_created_ns=1_796_000_000_000_000_000 + (len(plan) - k) * -1_000_000,
                state="started" if last and rank not in HUNG else "completed",
            )
        )
    return pickle.dumps(dump(entries, groups), protocol=2)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=1000)
    ap.add_argument("--entries", type=int, default=20000)
    ap.add_argument("--tp", type=int, default=8)
    ap.add_argument("--safe-sample", type=int, default=5, help="dumps also timed with the safe reader")
    ap.add_argument("--all-safe", action="store_true", help="read every dump with the safe reader")
    args = ap.parse_args()
    groups = layout(args.ranks, args.tp)
    build = read = safe = 0.0
    traces = []
    size = 0
    for r in range(args.ranks):
        t0 = time.perf_counter()
        data = rank_dump(r, args.ranks, args.tp, args.entries, groups)
        t1 = time.perf_counter()
        name = f"nccl_trace_rank_{r}"
        if args.all_safe or r < args.safe_sample:
            traces.append(read_source(LogSource(name=name, data=data)))
            safe += time.perf_counter() - t1
        else:  # our own bytes: C pickle to decode, then the same reduction as the safe path
            traces.append(summarise(pickle.loads(data), name, r))  # noqa: S301
        read += time.perf_counter() - t1
        build += t1 - t0
        size += len(data)
        del data
        if r % 100 == 99:
            print(f"  {r + 1} ranks read, {time.perf_counter() - t0:.2f} s for the last", file=sys.stderr)
    n_safe = args.ranks if args.all_safe else min(args.safe_sample, args.ranks)
    t2 = time.perf_counter()
    result = analyse(traces)
    analysis = time.perf_counter() - t2
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    per_safe = safe / n_safe if n_safe else 0.0
    print("| ranks | entries/rank | bytes | build s | read s | safe read s/dump | analysis s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.ranks} | {args.entries} | {size} | {build:.1f} | {read:.1f} | {per_safe:.2f} "
        f"| {analysis:.3f} | {rss:.0f} |"
    )
    print("suspect_ranks:", result.suspect_ranks)
    for s in result.collectives.suspects:
        print(f"  rank {s.rank}: {s.reason}: {s.why[:150]}")
    ok = result.suspect_ranks == [r for r in HUNG if r < args.ranks]
    print("OK" if ok else "UNEXPECTED SUSPECTS")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
