"""`tests/realjobs/regenerate`: re-run every job of jobs.toml and rewrite fixtures/<job>/.

torchrun jobs run directly. srun jobs need the machine's shared single-node Slurm cluster: they take
the same exclusive lock the Slurm tests take (tests/slurm/support.py), bring the cluster up with the
same hooks mode those tests use (so its configuration is not changed under them), and hold the lock
only for the few seconds each srun job lasts.
"""

from __future__ import annotations

import argparse
import sys

from tests.realjobs.runner import FIXTURES, SLURM_LAUNCHERS, Job, load_jobs, relabel, run_job

PINNED_TORCH = "2.13.0"


def check_torch() -> None:
    import torch

    if torch.__version__.split("+")[0] != PINNED_TORCH:
        sys.exit(f"regenerate: torch {torch.__version__} found; the fixtures are made with {PINNED_TORCH}")


def run_srun_jobs(jobs: list[Job]) -> None:
    from tests.slurm.support import can_run_cluster, cluster_up, exclusive_lock

    why_not = can_run_cluster()
    if why_not:
        print(f"regenerate: skipping {len(jobs)} srun job(s): {why_not}", file=sys.stderr)
        return
    for job in jobs:
        with exclusive_lock():
            cluster_up()
            report(job, run_job(job, FIXTURES / job.name))


def report(job: Job, meta: dict[str, object]) -> None:
    print(f"{job.name:34} exit {meta['exit_code']!s:>4}  {meta['seconds']:>5} s  -> fixtures/{job.name}/")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tests/realjobs/regenerate", description=__doc__)
    p.add_argument("jobs", nargs="*", help="job names (default: all)")
    p.add_argument("--list", action="store_true", help="list the jobs and exit")
    p.add_argument("--skip-slurm", action="store_true", help="leave the srun jobs' fixtures as they are")
    p.add_argument(
        "--relabel",
        action="store_true",
        help="do not run anything: rewrite the expected answers in meta.json from jobs.toml",
    )
    args = p.parse_args(argv)
    jobs = load_jobs()
    if args.list:
        for job in jobs:
            print(
                f"{job.name:34} {job.launcher:13} {job.fault:14} rank {job.rank:>2}  -> {job.category or '?'}"
            )
        return 0
    unknown = set(args.jobs) - {j.name for j in jobs}
    if unknown:
        p.error(f"unknown job(s): {', '.join(sorted(unknown))}")
    chosen = [j for j in jobs if not args.jobs or j.name in args.jobs]
    if args.relabel:
        for job in (j for j in chosen if (FIXTURES / j.name / "meta.json").exists()):
            relabel(job, FIXTURES / job.name)
        return 0
    check_torch()
    for job in (j for j in chosen if j.launcher not in SLURM_LAUNCHERS):
        report(job, run_job(job, FIXTURES / job.name))
    srun_jobs = [j for j in chosen if j.launcher in SLURM_LAUNCHERS]
    if srun_jobs and not args.skip_slurm:
        run_srun_jobs(srun_jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
