"""Optional backend over pyslurm (the `pyslurm` extra), used only when it matches the installed Slurm.

pyslurm is compiled against one Slurm release and talks to slurmctld over that release's RPCs, so a
mismatched build fails in ways that are worse than no build. PyPI carries pyslurm only for recent
Slurm releases (25.11; 17/18 for the ancient API), so on Slurm 22.05 — Debian 12's — `pip install
denpex[pyslurm]` cannot build and the CLI backend is used. This backend answers `show_job` for plain
job ids from pyslurm's `Job` (one RPC, no process spawn, no text parsing) and delegates everything
else (array/het lookups, `sacct`, batch scripts it cannot fetch) to the CLI backend.
"""

from __future__ import annotations

import re
import time
from typing import Any

from integrations.slurm.commands import CliBackend, SlurmUnavailable, run


def slurm_version(cli_timeout: float = 10.0) -> str | None:
    """`22.05` from `scontrol --version` (`slurm 22.05.8`), or None."""
    try:
        proc = run(["scontrol", "--version"], cli_timeout)
    except SlurmUnavailable:
        return None
    m = re.search(r"(\d+)\.(\d+)", proc.stdout)
    return f"{int(m.group(1))}.{int(m.group(2)):02d}" if m else None


def pyslurm_version(module: Any) -> str | None:
    """`25.11` from pyslurm's own version (`25.11.0`), or None."""
    raw = getattr(module, "__version__", None)
    if raw is None and callable(getattr(module, "version", None)):
        raw = module.version()
    m = re.match(r"(\d+)\.(\d+)", str(raw or ""))
    return f"{int(m.group(1))}.{int(m.group(2)):02d}" if m else None


def load(cli: CliBackend) -> tuple[PyslurmBackend | None, str]:
    """The backend when pyslurm imports and matches the installed Slurm; else (None, why not)."""
    try:
        import pyslurm  # type: ignore[import-not-found]
    except Exception as exc:  # ImportError, or a pyslurm built against another libslurm
        return None, f"pyslurm not usable ({type(exc).__name__}: {exc})"
    have, want = pyslurm_version(pyslurm), slurm_version()
    if have is None or want is None or have != want:
        return None, f"pyslurm {have or '?'} does not match Slurm {want or '?'}"
    return PyslurmBackend(pyslurm, cli), f"pyslurm {have}"


def _local(epoch: Any) -> str:
    if not epoch:
        return "Unknown"
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(int(epoch)))


def record(job: Any) -> dict[str, str]:
    """A pyslurm `Job` as the `scontrol show job -o` record the collector parses."""

    def s(v: Any) -> str:
        return "(null)" if v is None else str(v)

    return {
        "JobId": s(job.id),
        "JobName": s(job.name),
        "UserId": f"{job.user_name}({job.user_id})",
        "JobState": s(job.state),
        "Reason": s(job.state_reason),
        "ExitCode": f"{job.exit_code or 0}:{job.exit_code_signal or 0}",
        "DerivedExitCode": f"{job.derived_exit_code or 0}:{job.derived_exit_code_signal or 0}",
        "NodeList": s(job.allocated_nodes),
        "WorkDir": s(job.working_directory),
        "StdOut": s(job.standard_output),
        "StdErr": s(job.standard_error),
        "StartTime": _local(job.start_time),
        "EndTime": _local(getattr(job, "end_time", None)),
        "ArrayJobId": s(getattr(job, "array_id", None)),
        "ArrayTaskId": s(getattr(job, "array_task_id", None)),
        "HetJobId": s(getattr(job, "het_job_id", None)),
        "HetJobOffset": s(getattr(job, "het_job_offset", None)),
        "Restarts": s(job.requeue_count or 0),
        "NumTasks": s(job.ntasks),
        "TimeLimit": s(job.time_limit),
    }


class PyslurmBackend:
    """`SlurmBackend` over pyslurm for plain ids; the CLI for everything else."""

    name = "pyslurm"

    def __init__(self, module: Any, cli: CliBackend) -> None:
        self.pyslurm = module
        self.cli = cli

    def show_job(self, job_id: str) -> list[dict[str, str]]:
        if not job_id.isdigit():
            return self.cli.show_job(job_id)
        try:
            job = self.pyslurm.Job.load(int(job_id))
        except self.pyslurm.RPCError as exc:
            if "Invalid job id" in str(exc):
                return []
            raise SlurmUnavailable(f"pyslurm: {exc}") from exc
        rec = record(job)
        if rec["ArrayJobId"] == job_id or rec["HetJobId"] == job_id:
            return self.cli.show_job(job_id)  # an array or het leader: every task/component
        return [rec]

    def accounting(self, job_id: str) -> list[dict[str, str]]:
        return self.cli.accounting(job_id)

    def batch_script(self, job_id: str) -> str | None:
        if job_id.isdigit():
            try:
                script = self.pyslurm.Job(int(job_id)).get_batch_script()
            except Exception:  # gone from memory: sacct may still have it
                script = None
            if script:
                return str(script)
        return self.cli.batch_script(job_id)
