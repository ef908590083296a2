"""Texts the pipeline writes into diagnoses and plain-text posts (missing evidence, fallbacks)."""

from __future__ import annotations


def kernel_log_missing(node: str) -> str:
    return f"kernel log of {node}"


def kernel_log_next_action(node: str) -> str:
    return (
        f"run `dmesg -T | grep -iE 'xid|nvrm|oom|segfault'` on {node} (its node epilog did not report "
        "within DENPEX_NODE_GRACE_SECONDS)"
    )


def collector_missing(scheduler: str) -> str:
    return f"logs from the {scheduler} collector"


def collector_next_action(scheduler: str, problem: str) -> str:
    return f"the {scheduler} collector is not available here ({problem}); install its integration"


def job_unknown(job: str) -> str:
    return f"the scheduler does not know job {job}"


def job_unknown_action() -> str:
    return "check the job id and cluster; old jobs may have been purged from the scheduler's records"


def root_text(job: str, cluster: str, state: str, headline: str) -> str:
    return f"Job {job} on {cluster} {state}: {headline}"


QUOTA_OUT = "Diagnosis skipped: this workspace's daily quota is used up."
NO_DIAGNOSIS = "no diagnosis"
