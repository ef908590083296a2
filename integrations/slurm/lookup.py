"""Does Slurm know job `<id>`? The look-up behind `/denpex diagnose <id>` on a Slurm cluster.

It asks the accounting database through the same backend the collector uses (`sacct`), so the Slack
app never runs a Slurm command itself. The answer is the `JobRef` the pipeline queues.
"""

from __future__ import annotations

from denpex.core.models import JobRef, Scheduler
from integrations.slurm.commands import AccountingUnavailable, SlurmBackend


def find_job(backend: SlurmBackend, cluster: str, job_id: str) -> JobRef | None:
    """The job as accounting records it (state, user, name), or None when Slurm does not know it.

    Accounting that cannot answer (disabled, slurmdbd down) reads as "not known": the user is told
    the id was not found and can try again, rather than queueing a job no collector can find.
    """
    try:
        rows = backend.accounting(job_id)
    except AccountingUnavailable:
        return None
    row = next((r for r in rows if r.get("JobID") == job_id), rows[0] if rows else None)
    if row is None:
        return None
    return JobRef(
        scheduler=Scheduler.slurm,
        cluster=cluster,
        job_id=job_id,
        state=row.get("State") or None,
        user=row.get("User") or None,
        name=row.get("JobName") or None,
    )
