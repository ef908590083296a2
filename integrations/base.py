"""The collector interface every scheduler integration implements."""

from __future__ import annotations

from typing import Protocol

from denpex.core.models import Evidence, JobRef


class CollectorError(RuntimeError):
    """Collecting failed in a way worth retrying (API down, timeout). Not for missing logs:
    those go into `Evidence.missing` so the diagnosis says what is absent."""


class UnknownJob(LookupError):
    """The scheduler does not know this job id (wrong id, wrong cluster, long purged)."""


class Collector(Protocol):
    """Gather every rank's log, node kernel logs and scheduler facts for one job.

    Returned `LogSource`s hold raw bytes, paths or streaming `chunks`; the engine masks every line
    it keeps, and nothing raw is ever written to Redis. Scheduler facts (state, exit codes, OOM
    kills, termination reasons) are returned as a `kind="scheduler"` source of plain lines.
    """

    def collect(self, job: JobRef) -> Evidence: ...
