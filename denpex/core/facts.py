"""Scheduler facts as plain lines, built in one place for the webhooks and the collectors.

The engine reads facts like any log line, so they must use its syntax: a rank goes in the engine's
rank prefix (`[rank6]: `), never as a `rank=6` field that no signature reads. A fact never carries
a timestamp of the job's start or end: it would place every later fact at that time on the
engine's timeline, ahead of the rank that actually failed first.
"""

from __future__ import annotations

from collections.abc import Iterable


def rank_tag(rank: int | None) -> str:
    """`[rank6]: ` (the engine's rank prefix), or nothing when the rank is unknown."""
    return f"[rank{rank}]: " if rank is not None else ""


def key_values(pairs: Iterable[tuple[str, object]]) -> str:
    """` Key=value` for every pair whose value is set (None and "" are left out)."""
    return "".join(f" {key}={value}" for key, value in pairs if value not in (None, ""))


def slurm_job_fact(
    job_id: str,
    state: str,
    exit_code: str | None,
    *,
    node_list: str | None = None,
    array_job_id: str | None = None,
    array_task_id: str | None = None,
    het_job_id: str | None = None,
    restarts: int = 0,
) -> str:
    """The fact line of a Slurm job-completion webhook."""
    fact = f"slurm: JobId={job_id} JobState={state} ExitCode={exit_code or '?'}"
    if node_list:
        fact += f" NodeList={node_list}"
    if array_job_id:
        fact += f" ArrayJobId={array_job_id} ArrayTaskId={array_task_id or '?'}"
    if het_job_id:
        fact += f" HetJobId={het_job_id}"
    if restarts:
        fact += f" Restarts={restarts}"
    return fact


def files_job_fact(job_id: str, state: str | None, exit_code: str | None) -> str:
    """The fact line of a `/hooks/job` webhook (logs on a shared file system)."""
    return f"job: JobId={job_id} JobState={state or '?'} ExitCode={exit_code or '?'}"


def kubernetes_job_fact(
    kind: str, namespace: str, name: str, state: str, reason: str | None, message: str | None
) -> str:
    """The owner fact of a Kubernetes failure report."""
    return (
        f"kubernetes: {kind} {namespace}/{name} state={state} reason={reason or '-'} message={message or '-'}"
    )


def kubernetes_pod_fact(
    name: str,
    rank: int | None,
    *,
    node: str | None,
    phase: str | None,
    reason: str | None,
    exit_code: int | None,
    container: str | None,
) -> str:
    """One pod of a Kubernetes failure report, its rank in the engine's rank prefix."""
    return (
        f"kubernetes: {rank_tag(rank)}pod {name} node={node or '?'} phase={phase or '?'}"
        f" reason={reason or '-'} exitCode={exit_code if exit_code is not None else '?'}"
        f" container={container or '?'}"
    )


def slack_request_fact(job_id: str, cluster: str) -> str:
    """The fact of a job queued by `/denpex diagnose`."""
    return f"slack: /denpex diagnose {job_id} --cluster {cluster}"
