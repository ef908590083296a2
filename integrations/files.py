"""The `files` scheduler: logs a site copies to shared storage, `$DENPEX_LOG_ROOT/<cluster>/<job_id>/`.

The cluster and job id come from a webhook body, so they are untrusted: each must be one plain path
component, and the resolved folder (after following symlinks) must stay inside the root. The same
check runs at the door (400) and again here (a symlink may have been planted after the webhook).
Files are handed to the engine as paths; it reads them tail-first and masks what it keeps.
"""

from __future__ import annotations

import os
from pathlib import Path

from denpex.core.models import Evidence, JobRef, LogSource, MissingEvidence
from denpex.core.settings import Settings

#: never read more files than this from one job folder (a misconfigured copy job is not a DoS)
MAX_FILES = 4096


class UnsafePath(ValueError):
    """A cluster or job id would resolve outside the log root."""


def _component(value: str, what: str) -> str:
    if (
        not value
        or value in (".", "..")
        or "/" in value
        or "\\" in value
        or "\0" in value
        or os.path.isabs(value)
    ):
        raise UnsafePath(f"{what} is not a plain path component")
    return value


def resolve_job_dir(root: Path, cluster: str, job_id: str) -> Path:
    """The job's folder, guaranteed to be inside `root` even through symlinks; raises `UnsafePath`."""
    base = root.resolve()
    candidate = (base / _component(cluster, "cluster") / _component(job_id, "job_id")).resolve()
    if candidate == base or not candidate.is_relative_to(base):
        raise UnsafePath("job folder resolves outside DENPEX_LOG_ROOT")
    return candidate


class FilesCollector:
    """Collects every regular file under the job's folder (recursively), skipping symlink escapes."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _files(self, folder: Path) -> list[Path]:
        out: list[Path] = []
        for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
            dirnames.sort()
            for name in sorted(filenames):
                path = Path(dirpath) / name
                real = path.resolve()
                if real.is_relative_to(folder) and real.is_file():
                    out.append(path)
                if len(out) >= MAX_FILES:
                    return out
        return out

    def collect(self, job: JobRef) -> Evidence:
        folder = resolve_job_dir(self.root, job.cluster, job.job_id)
        if not folder.is_dir():
            return Evidence(
                job=job,
                missing=[
                    MissingEvidence(
                        what=f"log folder {job.cluster}/{job.job_id} under DENPEX_LOG_ROOT",
                        next_action="copy the job's rank logs there before sending the webhook",
                    )
                ],
            )
        sources = [LogSource(name=str(p.relative_to(folder)), path=p) for p in self._files(folder)]
        missing = (
            []
            if sources
            else [
                MissingEvidence(
                    what=f"log files in {job.cluster}/{job.job_id}",
                    next_action="check the copy job that writes them",
                )
            ]
        )
        return Evidence(job=job, sources=sources, missing=missing)


def create_collector(settings: Settings) -> FilesCollector:
    """Factory named in `workers.collect.COLLECTORS`; needs `DENPEX_LOG_ROOT`."""
    if settings.log_root is None:
        raise RuntimeError("DENPEX_LOG_ROOT is not set")
    return FilesCollector(Path(settings.log_root))
