"""Issue 15, target 5: a 1,000-rank job, webhook → Slack post, through the real Slurm and Kubernetes
collectors.

Same stack as `benchmarks/e2e.py` (a private redis-server, `denpex serve`, `denpex worker
--processes N`, the fake Slack), with the scheduler in front of the logs:

  * Slurm: `POST /hooks/slurm`; the worker's Slurm collector runs `scontrol show job` and `scontrol
    write batch_script` (tiny stand-ins on the worker's PATH: no Slurm controller here) and finds the
    1,000 per-task files `rank%t.log` of the script's `srun --output` on disk, as on a real cluster.
  * Kubernetes: `POST /hooks/kubernetes` (the body `denpex watch-k8s` sends); the worker's
    Kubernetes collector, with the real `kubernetes` client and its QPS/burst limit, finds the Job,
    lists its 1,000 pods and their events, asks each node's kubelet for a kernel log and streams
    every pod's log from the fake API server (tests/fakes/k8s), which runs in this process.

Both use one generated log set (`benchmarks/logsets.py`: 1,000 ranks, ~100 MB in all, one CUDA OOM
at a random rank and point); each failure is a new job over the same bytes (hard links on disk, the
same line lists in the fake API server).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from benchmarks.e2e import Hook, Stack, drive, send
from benchmarks.logsets import LogSet, generate, link_copies
from denpex.core.models import JobRef, Scheduler
from integrations.kubernetes.report import KubernetesReport, PodReport
from tests.fakes.k8s import FakeKube
from tests.fakes.k8s import objects as o
from tests.fakes.k8s.state import LogLine

CLUSTER = "bench"

#: `scontrol` for the benchmark: the two calls the collector makes, for any job id, from the jobs'
#: folder (`$BENCH_SLURM_ROOT/<id>/rank<N>.log`); `sacct` answers nothing (no accounting: no rows)
SCONTROL = """#!/bin/sh
case "$1 $2" in
"show job")
  id="$4"; dir="$BENCH_SLURM_ROOT/$id"
  echo "JobId=$id JobName=train UserId=$(id -un)($(id -u)) JobState=FAILED Reason=NonZeroExitCode \
ExitCode=1:0 BatchFlag=1 NumTasks=$BENCH_SLURM_TASKS NumNodes=$BENCH_SLURM_NODES \
NodeList=gpu-[0001-$BENCH_SLURM_NODES] WorkDir=$dir StdOut=$dir/slurm-$id.out StdErr=$dir/slurm-$id.out" ;;
"write batch_script")
  printf '#!/bin/bash\\n#SBATCH -n %s\\nsrun --output=rank%%t.log python train.py\\n' "$BENCH_SLURM_TASKS" ;;
*) echo "scontrol stand-in: $*" >&2; exit 1 ;;
esac
"""
SACCT = "#!/bin/sh\nexit 0\n"


def _script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _slurm_bin(workdir: Path) -> Path:
    bin_dir = workdir / "slurm-bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    _script(bin_dir / "scontrol", SCONTROL)
    _script(bin_dir / "sacct", SACCT)
    return bin_dir


def slurm_hook(job_id: str) -> Hook:
    body = {"cluster": CLUSTER, "job_id": job_id, "state": "FAILED", "exit_code": "1:0"}
    return Hook(f"slurm:{CLUSTER}:{job_id}", "/hooks/slurm", json.dumps(body).encode())


def slurm_jobs(workdir: Path, src: LogSet, count: int) -> tuple[list[Hook], dict[str, str]]:
    """`count` jobs `<id>` whose folders hold hard links to the `src` task files; their hooks and the
    worker's environment for the stand-in `scontrol`."""
    root = workdir / "slurm-jobs"
    ids = [f"{9000 + i}" for i in range(count)]
    for job_id in ids:
        link_copies(src.folder, root / job_id)
        (root / job_id / f"slurm-{job_id}.out").write_text("srun: error: task 0: Exited with exit code 1\n")
    env = {
        "PATH": f"{_slurm_bin(workdir)}:{os.environ.get('PATH', '')}",
        "BENCH_SLURM_ROOT": str(root),
        "BENCH_SLURM_TASKS": str(src.ranks),
        "BENCH_SLURM_NODES": str(max(1, src.ranks // 8)),
    }
    return [slurm_hook(i) for i in ids], env


def _pod_lines(src: LogSet) -> list[list[LogLine]]:
    """Each rank's log as the fake API server's lines (one list per rank, shared by every job)."""
    from datetime import UTC, datetime, timedelta

    t0 = datetime.now(UTC) - timedelta(minutes=30)
    out = []
    for rank in range(src.ranks):
        text = (src.folder / f"rank{rank}.log").read_text(errors="replace")
        out.append(
            [LogLine(t0 + timedelta(milliseconds=i), line) for i, line in enumerate(text.splitlines())]
        )
    return out


def _k8s_job(kube: FakeKube, name: str, lines: list[list[LogLine]]) -> Hook:
    """A failed Indexed Job `name` of len(lines) pods, 8 to a node, and the watcher's report of it."""
    job = kube.put("jobs", o.indexed_job(name, len(lines), failed="BackoffLimitExceeded"))
    pods = []
    for i, log in enumerate(lines):
        pod = kube.put(
            "pods",
            o.job_pod(
                name,
                i,
                job_uid=job["metadata"]["uid"],
                node_name=f"gpu-{i // 8:04d}",
                phase="Failed",
                state=o.terminated("Error", 1),
            ),
        )
        pod_name = pod["metadata"]["name"]
        kube.store.logs[("default", pod_name, "pytorch", False)] = log
        pods.append(PodReport(name=pod_name, node=f"gpu-{i // 8:04d}", rank=i, phase="Failed", exit_code=1))
    report = KubernetesReport(
        cluster=CLUSTER,
        namespace="default",
        kind="Job",
        name=name,
        state="Failed",
        reason="BackoffLimitExceeded",
        pods=pods,
    )
    key = JobRef(scheduler=Scheduler.kubernetes, cluster=CLUSTER, namespace="default", job_id=name).key
    return Hook(key, "/hooks/kubernetes", report.model_dump_json().encode())


def k8s_jobs(kube: FakeKube, src: LogSet, count: int) -> list[Hook]:
    """`count` failed Jobs of `src.ranks` pods each in the fake API server, 8 pods to a node."""
    lines = _pod_lines(src)
    for n in range(max(1, src.ranks // 8)):
        kube.put("nodes", o.node(f"gpu-{n:04d}"))
    return [_k8s_job(kube, f"train-{i}", lines) for i in range(count)]


def measure(
    workdir: Path,
    *,
    ranks: int,
    mb_total: float,
    failures: int,
    processes: int,
    seed: int,
    interval: float | None = None,
) -> dict[str, Any]:
    """Target 5 both ways on one log set of `ranks` files, `mb_total` MB in all, one stack for both;
    by default one job at a time (each sent once the previous one is posted), so each latency is one
    job's own. Two jobs of each kind warm the workers up first (not counted)."""
    src = generate(workdir / f"scale-src-{ranks}", ranks, mb_total / ranks, seed=seed)
    print(f"  target 5: {ranks} ranks, {src.bytes / 1e6:.0f} MB", file=sys.stderr)
    out: dict[str, Any] = {
        "ranks": ranks,
        "bytes": src.bytes,
        "processes": processes,
        "failures": failures,
        "interval": interval,
        "load": [round(x, 1) for x in os.getloadavg()],
    }
    slurm, slurm_env = slurm_jobs(workdir, src, failures + 3)  # the last: profiled
    wait = 600 + failures * 60  # a loaded machine is slow, and a benchmark measures, it does not give up
    with FakeKube() as kube:
        k8s = k8s_jobs(kube, src, failures + 2)
        env = {**slurm_env, "KUBECONFIG": str(kube.write_kubeconfig(workdir / "kubeconfig"))}
        with Stack(workdir / "e2e-scale", processes, env) as stack:
            out["slurm"] = asyncio.run(drive(stack, slurm[2:-1], interval, slurm[:2], done_wait=wait))
            print(f"  slurm: {out['slurm']}", file=sys.stderr)
            requests = len(kube.store.requests)
            out["k8s"] = asyncio.run(drive(stack, k8s[2:], interval, k8s[:2], done_wait=wait))
            print(f"  k8s: {out['k8s']}", file=sys.stderr)
            out["slurm"]["job"] = profile_job(stack, slurm[-1])
        out["k8s"]["requests_per_job"] = (len(kube.store.requests) - requests) // len(k8s)
        out["k8s"]["collect_only"] = k8s_collect_only(kube, "train-0")
    out["slurm"]["steps"] = profile_slurm(slurm_env, "9000")
    return out


#: the worker's steps for one Slurm job, in a child with the stand-in `scontrol` on its PATH: the
#: seconds of each step as the worker runs them (scan on every core), then a cProfile of one run on
#: one core (forked scanners are invisible to the profiler) by own time
PROFILE = r"""
import cProfile, io, json, pstats, sys, time
from denpex.core.models import JobRef
from integrations.slurm import CliBackend, SlurmCollector
from knowledge.engine import Engine
from knowledge.masking import Masker
from knowledge.parallel import resolve_jobs
from workers.masking import mask_model
engine, masker = Engine.load(), Masker.default()
def steps(job_id, jobs):
    t = [time.perf_counter()]
    ev = SlurmCollector(CliBackend()).collect(JobRef(scheduler="slurm", cluster="bench", job_id=job_id))
    t.append(time.perf_counter())
    diag = engine.diagnose(ev.sources, missing=ev.missing, jobs=jobs)
    t.append(time.perf_counter())
    mask_model(masker, diag)
    t.append(time.perf_counter())
    return diag, [round(b - a, 2) for a, b in zip(t, t[1:])]
diag, secs = steps(sys.argv[1], resolve_jobs(0))
prof = cProfile.Profile()
prof.runcall(steps, sys.argv[1], 1)
text = io.StringIO()
pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(10)
top = [l for l in text.getvalue().splitlines() if l.strip()][-11:]
print(json.dumps({"collect": secs[0], "diagnose": secs[1], "mask": secs[2], "profile": top,
                  "sources": diag.stats.files, "rank": diag.initiating.rank if diag.initiating else None,
                  "category": diag.category}))
"""


#: one whole RQ job (`workers.pipeline.process`: quota, collect, diagnose, store, post) in a child
#: built as `denpex worker` builds its context, under cProfile: the project's functions by
#: cumulative time, so the stages nest (process > _diagnosis > diagnose > ...)
JOB_PROFILE = r"""
import cProfile, json, pstats, sys, time
from denpex.cli._runtime import build_worker_context
from denpex.core.settings import Settings
from workers.pipeline import process
ctx = build_worker_context(Settings())
ctx.get_engine()
prof = cProfile.Profile()
t0 = time.perf_counter()
outcome = prof.runcall(process, ctx, sys.argv[1])
seconds = time.perf_counter() - t0
stats = pstats.Stats(prof).stats
root = sys.argv[2]
rows = sorted(((v[3], f"{k[0].replace(root + '/', '')}:{k[1]}({k[2]})") for k, v in stats.items()
               if k[0].startswith(root) and "/.venv/" not in k[0]), reverse=True)
pipeline = [k for k in stats if k[0].endswith("workers/pipeline.py")]
def calls(parent):  # (seconds, callee) of what `parent` called, from pstats' callers table
    return sorted(((v[4][parent][3], k) for k, v in stats.items() if parent in v[4]), reverse=True)
stages = []
for parent in sorted(pipeline, key=lambda k: -stats[k][3]):
    for secs, k in calls(parent):
        if secs >= 0.2:
            stages.append(f"{parent[2]} > {k[2]} ({k[0].replace(root + '/', '')}:{k[1]}): {secs:.2f} s")
print(json.dumps({"outcome": str(outcome), "seconds": round(seconds, 2), "stages": stages[:16],
                  "cumulative": [f"{c:8.2f}  {name}" for c, name in rows[:22]]}))
"""


def profile_job(stack: Stack, hook: Hook) -> dict[str, Any]:
    """With the workers stopped, send `hook` and run its queued job in a profiled child process."""
    root = Path(__file__).resolve().parent.parent
    stack.stop_workers()
    assert stack.serve is not None

    async def post() -> None:
        async with aiohttp.ClientSession() as session:
            await send(session, stack.serve.url, hook)  # type: ignore[union-attr]

    asyncio.run(post())
    env = {**stack.worker_env, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", JOB_PROFILE, hook.key, str(root)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def profile_slurm(env: dict[str, str], job_id: str) -> dict[str, Any]:
    """Where one 1,000-rank job's time goes in the worker's steps (collect, diagnose, mask)."""
    root = Path(__file__).resolve().parent.parent
    child_env = {**os.environ, **env, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", PROFILE, job_id], env=child_env, capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def k8s_collect_only(kube: FakeKube, name: str) -> dict[str, Any]:
    """The Kubernetes side alone: collect and read every source (no scan), through the worker's
    throttled client, twice: the first in this process pays what a fresh work-horse pays (the
    client's per-method validators are built on first call). The fake API server shares this
    process, so these are ceilings."""
    from integrations.kubernetes.collector import KubernetesCollector
    from integrations.kubernetes.throttle import RateLimit, ThrottledApiClient

    out: dict[str, Any] = {}
    ref = JobRef(scheduler=Scheduler.kubernetes, cluster=CLUSTER, namespace="default", job_id=name)
    for run in ("cold", "warm"):
        limit = RateLimit()
        api = ThrottledApiClient(kube.configuration(), limit=limit)
        before = len(kube.store.requests)
        t0 = time.perf_counter()
        try:
            evidence = KubernetesCollector(api).collect(ref)
            t1 = time.perf_counter()
            nbytes = sum(len(c) for s in evidence.sources for c in s.open_bytes())
        finally:
            api.close()
        out[run] = {
            "collect": round(t1 - t0, 2),
            "stream": round(time.perf_counter() - t1, 2),
            "requests": len(kube.store.requests) - before,
            "throttled": round(limit.waited, 2),
            "bytes": nbytes,
        }
    return out
