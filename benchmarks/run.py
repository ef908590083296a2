"""Denpex benchmarks: issue 15's targets; scan throughput vs ripgrep, webhook → Slack latency, /healthz.

    .venv/bin/python -m benchmarks.run                      # issue 15's targets 1-4 on 64 ranks × 8 MB
    .venv/bin/python -m benchmarks.run --only issue15,e2e --write-docs   # all six; regenerate the tables
    .venv/bin/python -m benchmarks.run --only e2e           # 5 (1,000 ranks, Slurm and K8s) and 6 only
    .venv/bin/python -m benchmarks.run --only e2e5 --json 5.json        # one of them (e2e6: the other)
    .venv/bin/python -m benchmarks.run --only scan,e2e,storm --quick   # ~3 min: small sets, 20 failures
    .venv/bin/python -m benchmarks.run --only scan,e2e,storm           # 8/64/512 ranks, 50 failures
    .venv/bin/python -m benchmarks.run --big       # adds 512 ranks × 64 MB = 32 GB (needs ~35 GB free)
    .venv/bin/python -m benchmarks.run --only scan,e2e,storm --json out.json
    .venv/bin/python -m benchmarks.run --only e2e --reuse out.json --write-docs   # 1-4 from out.json

Not part of the test run. Prints Markdown tables (the README's `benchmarks` section comes from them)
and optionally writes every number as JSON. Generated logs go to --workdir (default: a temp folder
under /var/tmp) and are deleted at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import e2e, e2e_scale, issue15, scan

ROOT = Path(__file__).resolve().parent.parent

QUICK = [(8, 8.0), (64, 2.0), (512, 1.0)]
#: target 5: ranks, MB in all, jobs (one after another)
SCALE, SCALE_QUICK = (1000, 100.0, 5), (1000, 100.0, 2)
FULL = [(8, 64.0), (64, 16.0), (512, 4.0)]
BIG = [(512, 64.0)]


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--quick", action="store_true", help="small sets and 20 failures (a smoke run)")
    ap.add_argument("--big", action="store_true", help="also scan 512 ranks × 64 MB (~32 GB on disk)")
    ap.add_argument(
        "--only",
        default="issue15",
        help="comma-separated: issue15, scan, big, e2e (= e2e5,e2e6: targets 5, 6), storm (default issue15)",
    )
    ap.add_argument(
        "--write-docs", action="store_true", help="rewrite the generated issue-15 tables in README/docs"
    )
    ap.add_argument("--failures", type=int, default=None, help="webhooks in the latency run (50; quick 20)")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between failure webhooks")
    ap.add_argument("--workers", type=int, default=4, help="`denpex worker --processes`")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each scan contender (best reported)")
    ap.add_argument("--seed", type=int, default=1, help="picks the failing rank and its position")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None, help="also write all results here")
    ap.add_argument(
        "--reuse",
        type=Path,
        default=None,
        help="an earlier --json: its issue15/e2e sections fill what is not run",
    )
    return ap.parse_args()


def check_space(workdir: Path, needed_gb: float) -> None:
    free = shutil.disk_usage(workdir).free / 1e9
    if free < needed_gb * 1.1:
        sys.exit(f"{workdir}: {free:.0f} GB free, {needed_gb:.0f} GB needed; use --workdir elsewhere")


def run_scans(a: argparse.Namespace, workdir: Path, sections: set[str]) -> list[scan.ScanResult]:
    configs = (QUICK if a.quick else FULL) if "scan" in sections else []
    configs = configs + (BIG if "big" in sections else [])
    results = []
    for ranks, mb in configs:
        check_space(workdir, ranks * mb / 1000 + 1)
        print(f"scan: {ranks} ranks × {mb:g} MB", file=sys.stderr)
        repeat = 1 if ranks * mb > 8000 else a.repeat
        results.append(scan.measure(workdir, ranks, mb, repeat, a.seed, keep=False))
        print(scan.table(results[-1:]).splitlines()[-1], file=sys.stderr)
    return results


def run_e2e(a: argparse.Namespace, workdir: Path, sections: set[str]) -> dict[str, Any]:
    """Target 5 (1,000 ranks, Slurm and K8s: `e2e5`) and 6 (webhook → post, 64 ranks × 8 MB, 50
    failures: `e2e6`); `e2e` is both."""
    out: dict[str, Any] = {}
    if sections & {"e2e", "e2e5"}:
        ranks, mb, jobs = SCALE_QUICK if a.quick else SCALE
        out["scale"] = e2e_scale.measure(
            workdir, ranks=ranks, mb_total=mb, failures=jobs, processes=a.workers, seed=a.seed
        )
    if sections & {"e2e", "e2e6"}:
        check_space(workdir, 1.0)
        n = a.failures or (20 if a.quick else 50)
        print(f"e2e: {n} failures of 64 ranks × 8 MB, {a.workers} workers", file=sys.stderr)
        load = [round(x, 1) for x in os.getloadavg()]
        out["e2e"] = e2e.pipeline_latency(
            workdir,
            failures=n,
            ranks=64,
            mb_per_rank=8.0,
            processes=a.workers,
            interval=a.interval,
            seed=a.seed,
        )
        out["e2e"].update(cpus=len(os.sched_getaffinity(0)), load=load)
    return out


def report(out: dict[str, Any]) -> None:
    print(f"\nmachine: {out['machine']}; load average at start {out['load']}\n")
    if "issue15" in out:
        print(issue15.markdown(out["issue15"]) + "\n")
    if "scan" in out:
        print(scan.table([scan.ScanResult(**r) for r in out["scan"]]))
    if "e2e" in out:
        e = out["e2e"]
        print(
            f"\n| webhook → Slack ({e['n']} failures, {e['ranks']} ranks × {e['mb_per_rank']:g} MB = "
            f"{e['gb_per_job']} GB each, one every {e['interval']:g} s, {e['processes']} workers) "
            "| p50 s | p99 s | max s |\n|---|---|---|---|"
        )
        _latency_rows(e)
    if "scale" in out:
        for name, key in (("Slurm", "slurm"), ("Kubernetes", "k8s")):
            sc = out["scale"]
            print(
                f"\n| {name}: {sc['ranks']} ranks, {sc['bytes'] / 1e6:.0f} MB, {sc['failures']} jobs one "
                f"after another, {sc['processes']} workers | p50 s | p99 s | max s |\n|---|---|---|---|"
            )
            _latency_rows(sc[key])
    if "storm" in out:
        s, h = out["storm"], out["storm"]["healthz"]
        print(
            f"\n| `/healthz` | p50 ms | p95 ms | max ms |\n|---|---|---|---|\n"
            f"| idle | {s['healthz_idle']['p50_ms']} | {s['healthz_idle']['p95_ms']} | - |\n"
            f"| during {s['reports']} duplicate reports ({s['seconds']} s, {s['statuses']}) | "
            f"{h['p50_ms']} | {h['p95_ms']} | {h['max_ms']} |"
        )


def _latency_rows(e: dict[str, Any]) -> None:
    for what, key in (
        ("root message posted", "root"),
        ("whole thread posted", "thread"),
        ("of which waiting for a worker", "queued"),
        ("of which scan and attribution (`stats.seconds`)", "engine"),
        ("of which the rest: collect, the report, masking, posting", "other"),
    ):
        s = e[key]
        print(f"| {what} | {s['p50']} | {s['p99']} | {s['max']} |")


def write_docs(out: dict[str, Any]) -> None:
    """The whole block after a run of 1–4; only rows 5 and 6 after an e2e-only run (1–4 kept)."""
    for path, full in ((ROOT / "README.md", False), (ROOT / "docs" / "benchmarks.md", True)):
        if "issue15" in out:
            done = issue15.write_block(path, issue15.markdown(out["issue15"], full))
        elif "e2e" in out or "scale" in out:
            done = issue15.write_e2e_rows(path, out.get("e2e"), out.get("scale"), full)
        else:
            return
        if not done:
            print(f"{path}: no {issue15.BEGIN} block to rewrite", file=sys.stderr)


def main() -> int:
    a = parse()
    sections = set(a.only.split(",")) | ({"big"} if a.big else set())
    if shutil.which("rg") is None or (
        sections & {"e2e", "e2e5", "e2e6", "storm"} and shutil.which("redis-server") is None
    ):
        sys.exit("needs ripgrep (and redis-server for e2e/storm): apt-get install ripgrep redis-server")
    workdir = Path(tempfile.mkdtemp(prefix="denpex-bench-", dir=a.workdir or "/var/tmp"))
    out: dict[str, Any] = {
        "machine": f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}",
        "load": [round(x, 2) for x in os.getloadavg()],
        "started": time.time(),
    }
    try:
        if "issue15" in sections:
            ranks, mb = (64, 2.0) if a.quick else (64, 8.0)
            print(f"issue 15: {ranks} ranks × {mb:g} MB", file=sys.stderr)
            out["issue15"] = issue15.measure(workdir, ranks, mb, a.repeat, a.seed)
        if sections & {"scan", "big"}:
            out["scan"] = scan.as_json(run_scans(a, workdir, sections))
        out.update(run_e2e(a, workdir, sections))
        if "storm" in sections:
            out["storm"] = e2e.healthz_storm(workdir, 1000)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if a.reuse:  # sections not measured now come from an earlier run's --json
        earlier = json.loads(a.reuse.read_text())
        out.update({k: v for k, v in earlier.items() if k in ("issue15", "e2e", "scale") and k not in out})
    if "issue15" in out:
        out["issue15"].update({k: out[k] for k in ("e2e", "scale") if k in out})
    report(out)
    if a.write_docs:
        write_docs(out)
    if a.json:
        a.json.write_text(json.dumps(out, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
