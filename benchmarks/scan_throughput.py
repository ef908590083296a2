# ruff: noqa: E501 - realistic log lines are long
"""Scan throughput and peak memory of the diagnosis engine against `rg -j1 -f` on the same files.

    .venv/bin/python benchmarks/scan_throughput.py [--size-mb 512] [--ranks 64] [--keep DIR]

Generates a synthetic job (64 rank logs of realistic training output, one CUDA OOM buried in the
middle of one rank, NCCL watchdog timeouts on every other rank at the end) in a temp dir, warms the
page cache, then in the same run on the same files measures:
  * the engine (`Engine.diagnose`, one core, in a child process so its peak RSS is its own),
  * ripgrep on one thread with every engine pattern (`rg -j1 -n -f patterns.txt`).
Prints a Markdown table (the README's numbers come from it) and the diagnosis it checked.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from knowledge.engine import Engine
from knowledge.sources import discover
engine = Engine.load(Path(sys.argv[2]) if sys.argv[2] else None)
srcs = discover([Path(sys.argv[1])])
wall, cpu = [], []
for _ in range(int(sys.argv[3])):
    t0, c0 = time.perf_counter(), time.process_time()
    diag = engine.diagnose(srcs)
    wall.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
# VmHWM is this process's own peak; ru_maxrss would also count the parent's RSS at fork (Linux keeps
# it across exec), and the parent just read every log file to warm the page cache
try:
    rss_kb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
except (OSError, StopIteration):
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"wall": min(wall), "cpu": min(cpu), "bytes": diag.stats.bytes,
                  "rss_kb": rss_kb,
                  "category": diag.category, "rank": diag.initiating.rank,
                  "backend": engine.pattern_set.backend, "patterns": len(engine.patterns)}))
"""


def _lines(rank: int, rnd: random.Random, target: int, fail_at: int | None) -> bytes:
    """One rank's log: trainer lines, NCCL INFO lines, tqdm bars, warnings; ~target bytes."""
    out: list[str] = []
    size = step = 0
    sec = 3 * 3600
    host = f"gpu-{rank // 8:02d}"
    while size < target:
        step += 1
        sec += 1
        ts = (
            f"2026-11-20 {sec // 3600 % 24:02d}:{sec // 60 % 60:02d}:{sec % 60:02d},{rnd.randrange(1000):03d}"
        )
        loss = 2.5 / (1 + step / 5000) + rnd.random() * 0.05
        batch = [
            f"[{ts}] [INFO] [trainer.py:2241:_inner_training_loop] [Rank {rank}] step {step} loss {loss:.4f} "
            f"lr {3e-4 * min(1, step / 2000):.3e} grad_norm {rnd.random() * 2:.3f} tokens/s {rnd.randrange(9000, 11000)}",
            f"{host}:{4000 + rank}:{4100 + rank} [{rank % 8}] NCCL INFO Channel {step % 32:02d}/0 : {rank} -> "
            f"{(rank + 1) % 64} [send] via NET/IB/{rank % 4}/GDRDMA",
            f"{{'loss': {loss:.4f}, 'grad_norm': {rnd.random():.4f}, 'learning_rate': 2.9e-04, 'epoch': {step / 9000:.2f}}}",
            f" {step % 100:3d}%|{'#' * (step % 40):<40}| {step}/90000 [{step // 60:02d}:{step % 60:02d}<5:12:01,  1.42it/s]",
            f"[{ts}] [WARNING] [data.py:88] [Rank {rank}] sample {rnd.randrange(10**7)} truncated to 4096 tokens",
        ]
        if fail_at is not None and size >= fail_at:
            batch += [
                f"[{ts}] [INFO] [trainer.py:2241:_inner_training_loop] [Rank {rank}] step {step} forward",
                f"[rank{rank}]: Traceback (most recent call last):",
                f'[rank{rank}]:   File "/workspace/train.py", line 412, in training_step',
                f"[rank{rank}]:     loss.backward()",
                f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU {rank % 8} "
                "has a total capacity of 79.15 GiB of which 1.20 GiB is free.",
            ]
            fail_at = None
            target = size  # the failing rank stops logging
        text = "\n".join(batch) + "\n"
        out.append(text)
        size += len(text)
    return "".join(out).encode()


def _watchdog(rank: int) -> bytes:
    return (
        f"[rank{rank}]:[E1120 04:50:01.{rank:06d} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
        f"operation timeout: WorkNCCL(SeqNum=91234, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
        f"ran for 600087 milliseconds before timing out.\n"
    ).encode()


def generate(folder: Path, ranks: int, total_mb: int) -> int:
    per = total_mb * (1 << 20) // ranks
    culprit = ranks * 37 // 64
    total = 0
    for r in range(ranks):
        rnd = random.Random(r)
        data = _lines(r, rnd, per, per * 3 // 4 if r == culprit else None)  # the culprit stops logging
        if r != culprit:
            data += _watchdog(r)
        (folder / f"rank{r}.log").write_bytes(data)
        total += len(data)
    return total


def _patterns_file(folder: Path, entries: Path | None) -> Path:
    sys.path.insert(0, str(ROOT))
    from knowledge.engine import Engine

    engine = Engine.load(entries)
    rx = [("(?i)" if p.caseless else "") + p.regex for p in engine.patterns]
    ok = []
    for r in rx:  # keep only patterns ripgrep's regex engine accepts (nearly all of them)
        probe = subprocess.run(["rg", "-q", "-e", r, os.devnull], capture_output=True)
        if probe.returncode in (0, 1):
            ok.append(r)
    path = folder / "patterns.txt"
    path.write_text("\n".join(ok) + "\n")
    return path


def _time_rg(patterns: Path, logs: Path, repeat: int) -> tuple[float, float]:
    """Best wall and CPU seconds of `rg -j1` over the logs with the engine's patterns."""
    wall, cpu = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        rg = subprocess.run(
            ["rg", "-j1", "-n", "-f", str(patterns), str(logs)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        wall.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if rg.returncode not in (0, 1):
            print(rg.stderr.decode()[:500], file=sys.stderr)
    return min(wall), min(cpu)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=512)
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--entries", type=Path, default=None, help="knowledge entries folder (default: bundled)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each contender; the best is reported")
    ap.add_argument("--keep", type=Path, default=None, help="generate into (and keep) this folder")
    a = ap.parse_args()
    if shutil.which("rg") is None:
        print("ripgrep (rg) is not installed: apt-get install ripgrep", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="denpex-bench-"))
    logs = a.keep or tmp / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        existing = sorted(logs.glob("rank*.log"))
        if a.keep and len(existing) == a.ranks:  # reuse a kept set
            total = sum(f.stat().st_size for f in existing)
        else:
            total = generate(logs, a.ranks, a.size_mb)
        print(
            f"generated {total / 1e9:.3f} GB in {a.ranks} files in {time.perf_counter() - t0:.1f} s",
            file=sys.stderr,
        )
        patterns = _patterns_file(tmp, a.entries)
        for f in logs.iterdir():  # warm the page cache for both contenders
            f.read_bytes()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-c", CHILD, str(logs), str(a.entries or ""), str(a.repeat)]
        if shutil.which("taskset"):
            cmd = ["taskset", "-c", "0", *cmd]
        child = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if child.returncode != 0:
            print(child.stderr[-2000:], file=sys.stderr)
            return 1
        eng = json.loads(child.stdout)
        rg_wall, rg_cpu = _time_rg(patterns, logs, a.repeat)
        gb = total / 1e9
        load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"{gb:.3f} GB in {a.ranks} rank files; best of {a.repeat} runs; GB/s by wall clock and by CPU time; "
            f"load average {load} on {os.cpu_count()} CPUs"
        )
        print("\n| tool | wall s | GB/s (wall) | GB/s (CPU) | peak RSS |\n|---|---|---|---|---|")
        print(
            f"| denpex engine ({eng['backend']}, {eng['patterns']} patterns, 1 core) | {eng['wall']:.2f} | "
            f"{gb / eng['wall']:.2f} | {gb / eng['cpu']:.2f} | {eng['rss_kb'] / 1024:.0f} MB |"
        )
        n_rg = len(patterns.read_text().splitlines())
        print(
            f"| `rg -j1 -n -f patterns.txt` ({n_rg} patterns) | {rg_wall:.2f} | {gb / rg_wall:.2f} | "
            f"{gb / rg_cpu:.2f} | - |"
        )
        print(
            f"\ndiagnosis: {eng['category']}, initiating rank {eng['rank']} (expected rank {a.ranks * 37 // 64})"
        )
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
