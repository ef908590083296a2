"""Identifiers that end up in Redis keys, file paths and Slack commands: one spelling each.

- A *safe id* (cluster, job id, node) starts with a letter or digit and then uses only
  `A-Z a-z 0-9 . _ + -`: no `/`, no whitespace, nothing a path or a key could be broken with.
- A *Kubernetes job id*: a batch/v1 Job is identified by its name; other kinds by `<Kind>/<name>`
  (for example `PyTorchJob/llama-ft`), so `JobRef.job_id` alone tells the collector what to look up
  and `JobRef.key` is the same whether the watcher, Alertmanager or `/denpex diagnose` reported it.
"""

from __future__ import annotations

import re

#: the safe-id pattern (pydantic `Field(pattern=...)` and `re` both read it)
SAFE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._+-]*$"
#: the longest job id accepted anywhere
MAX_ID_LENGTH = 200
SAFE_ID = re.compile(SAFE_ID_PATTERN)
#: a Kubernetes training job as `<namespace>/<name>` (DNS-1123 names), as people type it
K8S_NAMESPACED_NAME = re.compile(r"^([a-z0-9][-a-z0-9]{0,62})/([a-z0-9][-a-z0-9.]{0,252})$")
#: the training-job kinds Denpex knows, batch/v1 Job first
K8S_KINDS = ("Job", "PyTorchJob", "JobSet")


def is_safe_id(text: str, max_length: int = MAX_ID_LENGTH) -> bool:
    """True for a safe id of at most `max_length` characters."""
    return len(text) <= max_length and SAFE_ID.match(text) is not None


def k8s_job_id(kind: str, name: str) -> str:
    """`train` for a batch/v1 Job, `PyTorchJob/llama-ft` for the other kinds."""
    return name if kind == "Job" else f"{kind}/{name}"


def split_k8s_job_id(job_id: str) -> tuple[str | None, str]:
    """The inverse of `k8s_job_id`: (kind, name); kind is None for a bare name (a Job, or unknown)."""
    kind, sep, name = job_id.partition("/")
    if sep and kind in K8S_KINDS:
        return kind, name
    return None, job_id
