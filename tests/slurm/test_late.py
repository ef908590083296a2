"""Checks on jobs the session started first (see `Cluster.start_background`): they need time.

A requeued job restarts only after the credential lifetime; a finished job leaves slurmctld's memory
MinJobAge (30 s on the dev cluster) after it ended, at the next 60 s purge cycle. This module runs
last (file order), so by then most of that wait has passed behind the other tests.
"""

from __future__ import annotations

from denpex.core.models import JobRef
from integrations.slurm import CliBackend, SlurmCollector
from tests.slurm.support import Cluster, wait_until


def collect(job_id: str) -> tuple[dict[str, str], str, list[str]]:
    ev = SlurmCollector(CliBackend()).collect(JobRef(scheduler="slurm", cluster="ci", job_id=job_id))
    logs = {s.name: b"".join(s.open_bytes()).decode() for s in ev.sources if s.kind != "scheduler"}
    facts = "\n".join(b"".join(s.open_bytes()).decode() for s in ev.sources if s.kind == "scheduler")
    return logs, facts, [m.what for m in ev.missing]


def test_requeued_job_reports_the_run_that_failed_and_the_earlier_one(slurm_cluster: Cluster) -> None:
    job = slurm_cluster.requeued
    assert slurm_cluster.wait_done(job, timeout=150) == "FAILED"
    slurm_cluster.accounted(job)
    logs, facts, missing = collect(job)
    assert "JobState=FAILED ExitCode=5:0" in facts and "Restarts=1" in facts
    assert f"earlier run of JobId={job} (requeued) State=REQUEUED" in facts
    assert "second run fails" in logs[f"requeued_{job}.out"] and missing == []


def test_sacct_alone_after_the_job_left_slurmctld(slurm_cluster: Cluster) -> None:
    """scontrol no longer knows the job: states from sacct, output paths from the stored batch script."""
    job = slurm_cluster.aged
    slurm_cluster.wait_done(job, timeout=90)
    wait_until(lambda: not slurm_cluster.show(job), 150, f"slurmctld to purge job {job}", interval=1)
    logs, facts, missing = collect(job)
    assert "JobState=FAILED" in facts and f"step {job}.0 State=CANCELLED" in facts
    assert f"aged_{job}.out" in logs and "aged job starting" in logs[f"aged_{job}.out"]
    assert "RuntimeError: rank one of the aged job failed" in logs[f"aged_{job}_1.log"]
    assert missing == []
