"""Running the real failing jobs (jobs.toml) and capturing their logs the way users have them.

Used by `regenerate` (which rewrites fixtures/) and by the live test (which runs a few jobs into a
temporary folder). A job's output folder gets `logs/` (what a user would hand to Denpex) and
`meta.json` (what was injected, what the answer must be, and how the logs were made).
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
JOBS_TOML = HERE / "jobs.toml"
TRAIN = HERE / "jobs" / "train.py"
FIXTURES = HERE / "fixtures"
NPROC = 4
JOB_TIMEOUT_S = 180
#: srun_torchrun: srun tasks ("nodes", one torchrun agent each) x workers per agent = NPROC
NODES = 2
NPROC_PER_NODE = NPROC // NODES
#: the launchers whose tasks srun starts on the dev Slurm cluster (regenerate takes its lock for them)
SLURM_LAUNCHERS = ("srun", "srun_torchrun")


@dataclass(frozen=True)
class Job:
    """One row of jobs.toml."""

    name: str
    fault: str
    rank: int
    step: int
    category: str
    why: str
    launcher: str = "torchrun"
    debug: bool = False
    live: bool = False
    workers: int = 0
    max_restarts: int = 0
    port_in_use: bool = False
    dp: str = "ddp"
    #: process-group timeout: short where the fault is a wait (hang, desync), else long enough that a
    #: loaded CI machine never times out a healthy collective
    timeout: int = 30
    #: texts torch prints for this fault; the live test checks today's torch still prints them
    anchors: tuple[str, ...] = ()
    #: when `category` is "": a regex the engine's missing_evidence must match (the deciding fact)
    missing: str = ""
    #: a different answer for the per-rank --log-dir files alone (e.g. a signal death shows only in
    #: the launcher's console): keys category, rank, missing, why
    per_rank: dict[str, Any] | None = None

    @property
    def expected_rank(self) -> int | None:
        return None if self.rank < 0 else self.rank

    def expected(self, view: str = "console") -> dict[str, Any]:
        """The answer a careful engineer gives from this view of the logs."""
        base = {"category": self.category, "rank": self.rank, "missing": self.missing, "why": self.why}
        if view == "per_rank" and self.per_rank:
            base |= self.per_rank
        rank = int(base["rank"])
        return {
            "category": base["category"] or None,
            "initiating_rank": None if rank < 0 else rank,
            "missing_evidence": base["missing"] or None,
            "why": base["why"],
        }


def load_jobs(path: Path = JOBS_TOML) -> list[Job]:
    with path.open("rb") as fh:
        rows = tomllib.load(fh)["job"]
    return [Job(**{**row, "anchors": tuple(row.get("anchors", ()))}) for row in rows]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def port_taken(port: int, take: bool) -> Iterator[None]:
    """A stale process still listening on MASTER_PORT (a previous job's store, another user)."""
    if not take:
        yield
        return
    s = socket.socket()
    s.bind(("0.0.0.0", port))
    s.listen(16)
    try:
        yield
    finally:
        s.close()


def train_args(job: Job, workdir: Path) -> list[str]:
    args = [
        str(TRAIN),
        "--fault",
        job.fault,
        "--fault-rank",
        str(job.rank),
        "--fault-step",
        str(job.step),
        "--timeout",
        str(job.timeout),
        "--ckpt-dir",
        str(workdir / "checkpoints"),
    ]
    if job.dp != "ddp":
        args += ["--dp", job.dp]
    return [*args, "--workers", str(job.workers)] if job.workers else args


def job_env(job: Job, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_", "RJ_", "SLURM_"))}
    env.update(OMP_NUM_THREADS="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    if job.debug:
        env["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
    return env


def torchrun_command(job: Job, workdir: Path, port: int) -> list[str]:
    torchrun = str(Path(sys.executable).with_name("torchrun"))
    cmd = [
        torchrun,
        "--nproc_per_node",
        str(NPROC),
        "--master_addr",
        "127.0.0.1",
        "--master_port",
        str(port),
        "--log-dir",
        str(workdir / "torchrun-logs"),
        "--redirects",
        "3",
        "--tee",
        "3",
    ]
    if job.max_restarts:
        cmd += ["--max-restarts", str(job.max_restarts)]
    return [*cmd, *train_args(job, workdir)]


def _srun(job: Job, workdir: Path, tasks: int) -> list[str]:
    # -O: more tasks than the dev cluster's 2 CPUs; -K: end the other tasks when one fails (as sites set)
    return [
        "srun",
        "--label",
        *(["-N", "1"] if job.launcher == "srun_torchrun" else []),
        "-n",
        str(tasks),
        "-O",
        "-K",
        "--mem=6G",
        "-t",
        "3",
        "-J",
        f"rj-{job.name}",
        "-D",
        str(workdir),
    ]


def srun_command(job: Job, workdir: Path) -> list[str]:
    """One srun task per rank: srun's `N: ` label is the rank."""
    return [*_srun(job, workdir, NPROC), sys.executable, *train_args(job, workdir)]


def srun_torchrun_command(job: Job, workdir: Path, port: int) -> list[str]:
    """The usual multi-node form: srun starts ONE torchrun agent per node (here two tasks on the one
    test node acting as nodes 0 and 1), each with NPROC_PER_NODE workers; srun's `N: ` label is then
    the node (the task), and the rank is inside the line (`[defaultL]:[rankR]:`, torchrun's summary).
    `bash -c` so that each task expands its own $SLURM_PROCID into --node_rank."""
    torchrun = str(Path(sys.executable).with_name("torchrun"))
    launch = [
        torchrun,
        "--nnodes",
        str(NODES),
        "--nproc_per_node",
        str(NPROC_PER_NODE),
        "--master_addr",
        "127.0.0.1",
        "--master_port",
        str(port),
        "--tee",
        "3",
    ]
    node_rank = "--node_rank $SLURM_PROCID"
    script = f"exec {shlex.join(launch)} {node_rank} {shlex.join(train_args(job, workdir))}"
    return [*_srun(job, workdir, NODES), "bash", "-c", script]


def launch_command(job: Job, workdir: Path, port: int) -> list[str]:
    if job.launcher == "srun":
        return srun_command(job, workdir)
    if job.launcher == "srun_torchrun":
        return srun_torchrun_command(job, workdir, port)
    return torchrun_command(job, workdir, port)


def console_name(job: Job) -> str:
    """srun's one combined `--label` stream, or torchrun's console."""
    return "srun.out" if job.launcher in SLURM_LAUNCHERS else "console.log"


def copy_torchrun_logs(workdir: Path, logs: Path) -> None:
    """`<log-dir>/<run_id>_<random>/attempt_N/<local_rank>/std{out,err}.log`, the run folder renamed
    to a stable name so regenerating does not churn paths."""
    base = workdir / "torchrun-logs"
    runs = sorted(p for p in base.glob("*") if p.is_dir()) if base.exists() else []
    for i, run_dir in enumerate(runs):
        shutil.copytree(run_dir, logs / "torchrun-logs" / f"run_{i}")


#: a port another process took between `free_port` and torchrun's bind (two test runs on one machine)
PORT_RACE = b"address already in use"
PORT_TRIES = 3


def run_job(job: Job, out: Path) -> dict[str, Any]:
    """Run `job`; write `out/logs/...` and `out/meta.json`; return the meta. A job that lost its
    free port to another process before torchrun bound it is run again on another port (the fault
    under test is never a port clash unless the job asks for one)."""
    for _ in range(PORT_TRIES):
        meta = _run_once(job, out)
        console = out / "logs" / console_name(job)
        if job.port_in_use or not console.exists() or PORT_RACE not in console.read_bytes().lower():
            break
    return meta


def _run_once(job: Job, out: Path) -> dict[str, Any]:
    """Run `job` once; write `out/logs/...` and `out/meta.json`; return the meta."""
    if out.exists():
        shutil.rmtree(out)
    logs = out / "logs"
    logs.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix=f"realjob-{job.name}-") as tmp:
        workdir = Path(tmp)
        port = free_port()
        cmd = launch_command(job, workdir, port)
        console = logs / console_name(job)
        started = time.monotonic()
        with port_taken(port, job.port_in_use), console.open("wb") as fh:
            proc = subprocess.run(
                cmd,
                stdout=fh,
                stderr=subprocess.STDOUT,
                env=job_env(job, port),
                cwd=workdir,
                timeout=JOB_TIMEOUT_S,
                check=False,
            )
        seconds = round(time.monotonic() - started, 1)
        if job.launcher == "torchrun":
            copy_torchrun_logs(workdir, logs)
        command = [c.replace(str(workdir), "$WORKDIR").replace(str(HERE), "tests/realjobs") for c in cmd]
    meta = make_meta(job, command, views(job, logs), proc.returncode, seconds)
    write_meta(out, meta)
    return meta


def make_meta(
    job: Job, command: list[str], found: dict[str, list[str]], exit_code: int, seconds: float
) -> dict[str, Any]:
    """What was run with which torch, what was injected, and the answer each view must give."""
    import torch

    return {
        "job": job.name,
        "torch_version": torch.__version__,
        "python": platform.python_version(),
        "launcher": job.launcher,
        "command": command,
        "env": {"OMP_NUM_THREADS": "1", "MASTER_PORT": "<free port>"}
        | ({"TORCH_DISTRIBUTED_DEBUG": "DETAIL"} if job.debug else {}),
        "fault": {
            "kind": job.fault,
            "rank": job.expected_rank,
            "step": None if job.step < 0 else job.step,
            "port_in_use": job.port_in_use,
            "max_restarts": job.max_restarts,
        },
        "expected": job.expected(),
        "views": found,
        "expected_per_view": {view: job.expected(view) for view in found},
        "exit_code": exit_code,
        "seconds": seconds,
        "job_spec": asdict(job),
    }


def write_meta(out: Path, meta: dict[str, Any]) -> None:
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")


def relabel(job: Job, out: Path) -> None:
    """Rewrite only the expected answers of an existing fixture (a label corrected in jobs.toml)."""
    meta = json.loads((out / "meta.json").read_text())
    meta["expected"] = job.expected()
    meta["expected_per_view"] = {view: job.expected(view) for view in meta["views"]}
    meta["job_spec"] = asdict(job)
    write_meta(out, meta)


def views(job: Job, logs: Path) -> dict[str, list[str]]:
    """The ways a user hands these logs over, as paths relative to logs/: the one console stream,
    and (torchrun) the per-rank files of --log-dir."""
    if job.launcher in SLURM_LAUNCHERS:
        return {"console": [console_name(job)]}
    found = {"console": ["console.log"]}
    if (logs / "torchrun-logs").exists():
        found["per_rank"] = ["torchrun-logs"]
    return found
