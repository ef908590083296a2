"""The `files` scheduler: logs a site copies to shared storage, `$DENPEX_LOG_ROOT/<cluster>/<job_id>/`.

The cluster and job id come from a webhook body, so they are untrusted: each must be one plain path
component, and no component below the root may be a link. The door checks this (400, `resolve_job_dir`)
and the collector checks it again the only way that holds: by opening. Every folder and file is opened
relative to its parent's descriptor with `O_NOFOLLOW` (`integrations.safeopen`), and the open files
are handed to the engine, which reads them and never reopens a path, so a file swapped for a link
after the collector looked is not read from outside the root.
"""

from __future__ import annotations

import os
from pathlib import Path

from denpex.core.models import Evidence, JobRef, LogSource, MissingEvidence
from denpex.core.settings import Settings
from integrations import safeopen

#: never read more files than this from one job folder (a misconfigured copy job is not a DoS)
MAX_FILES = 4096
#: skipped files named in the missing evidence (the rest are counted)
NAMED_SKIPS = 5


class UnsafePath(ValueError):
    """A cluster or job id would resolve outside the log root, or through a link below it."""


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
    """The job's folder, inside `root` with no link below `root`; raises `UnsafePath`.

    A folder that does not exist yet is accepted (the logs may still be copying); the collector opens
    it again without following links when it reads.
    """
    base = root.resolve()
    parts = [_component(cluster, "cluster"), _component(job_id, "job_id")]
    candidate = base.joinpath(*parts).resolve()
    if candidate == base or not candidate.is_relative_to(base):
        raise UnsafePath("job folder resolves outside DENPEX_LOG_ROOT")
    try:
        with safeopen.opened_dir(base, parts):
            pass
    except safeopen.Refused as exc:
        if exc.link:
            raise UnsafePath(f"{exc.name} under DENPEX_LOG_ROOT is a link") from None
    except OSError:  # absent (or not yet readable): nothing to follow
        pass
    return candidate


class FilesCollector:
    """Collects every regular file under the job's folder (recursively), opened once, links refused."""

    def __init__(self, root: Path) -> None:
        self.root = root
        safeopen.raise_fd_limit()  # every file stays open until the engine has read it

    def collect(self, job: JobRef) -> Evidence:
        where = f"{job.cluster}/{job.job_id}"
        parts = [_component(job.cluster, "cluster"), _component(job.job_id, "job_id")]
        try:
            with safeopen.opened_dir(self.root, parts) as folder:
                tree = safeopen.open_tree(folder, MAX_FILES)
        except safeopen.Refused as exc:
            if not exc.link:
                return Evidence(job=job, missing=[_no_folder(where)])
            return Evidence(
                job=job,
                missing=[
                    MissingEvidence(
                        what=f"log folder {where}: `{exc.name}` is a link; Denpex does not follow links",
                        next_action="copy the job's rank logs into the folder itself, not a link to them",
                    )
                ],
            )
        except OSError:  # no such folder (or the root is missing)
            return Evidence(job=job, missing=[_no_folder(where)])
        sources = [LogSource(name=name, file=fh) for name, fh in tree.files]
        missing = (
            []
            if sources
            else [
                MissingEvidence(
                    what=f"log files in {where}", next_action="check the copy job that writes them"
                )
            ]
        )
        if tree.skipped:
            missing.append(_skipped(where, tree.skipped))
        if tree.stopped:
            missing.append(
                MissingEvidence(
                    what=f"some log files in {where}: stopped after {len(sources)}, {tree.stopped}",
                    next_action="keep only the job's logs in its folder, or raise the limit",
                )
            )
        return Evidence(job=job, sources=sources, missing=missing)


def _no_folder(where: str) -> MissingEvidence:
    return MissingEvidence(
        what=f"log folder {where} under DENPEX_LOG_ROOT",
        next_action="copy the job's rank logs there before sending the webhook",
    )


def _skipped(where: str, skipped: list[safeopen.Skipped]) -> MissingEvidence:
    named = ", ".join(f"`{s.name}` ({s.why})" for s in skipped[:NAMED_SKIPS])
    more = f" and {len(skipped) - NAMED_SKIPS} more" if len(skipped) > NAMED_SKIPS else ""
    return MissingEvidence(
        what=f"files in {where} not read: {named}{more}",
        next_action="Denpex reads regular files only and does not follow links: copy the logs themselves",
    )


def create_collector(settings: Settings) -> FilesCollector:
    """Factory named in `workers.collect.COLLECTORS`; needs `DENPEX_LOG_ROOT`."""
    if settings.log_root is None:
        raise RuntimeError("DENPEX_LOG_ROOT is not set")
    return FilesCollector(Path(settings.log_root))
