"""The Slurm command-line backend: `scontrol`, `sacct` on the worker's PATH, with timeouts.

Each method returns plain text-derived records (see `records`), so the pyslurm backend can return
the same shapes and the collector does not care which one it got.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from typing import Protocol

from integrations.base import CollectorError
from integrations.slurm.records import SACCT_FIELDS, parse_sacct, parse_show_job

#: stderr of a command that does not know the job (as opposed to one that cannot reach slurmctld)
_UNKNOWN = re.compile(r"Invalid job id|does not exist|not found", re.I)
_NO_ACCOUNTING = re.compile(
    r"accounting storage is disabled|accounting_storage/none|not running a supported", re.I
)


class SlurmUnavailable(CollectorError):
    """slurmctld (or slurmdbd) did not answer: worth retrying later."""


class AccountingUnavailable(Exception):
    """`sacct` cannot help: accounting is disabled or slurmdbd is down. The message says which."""


class SlurmBackend(Protocol):
    """What the collector needs from Slurm."""

    name: str

    def show_job(self, job_id: str) -> list[dict[str, str]]:
        """`scontrol show job -o` records (several for an array or a het job); [] if not in memory."""
        ...

    def accounting(self, job_id: str) -> list[dict[str, str]]:
        """`sacct -P -D` rows with `records.SACCT_FIELDS`; raises `AccountingUnavailable`."""
        ...

    def batch_script(self, job_id: str) -> str | None:
        """The job's batch script, or None when Slurm no longer has (or never stored) it."""
        ...


def run(argv: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            list(argv), capture_output=True, text=True, timeout=timeout, check=False, errors="replace"
        )
    except subprocess.TimeoutExpired as exc:
        raise SlurmUnavailable(f"`{' '.join(argv[:3])}` did not answer within {timeout:.0f} s") from exc
    except OSError as exc:
        raise SlurmUnavailable(f"cannot run {argv[0]}: {exc.strerror or exc}") from exc


def _first_line(text: str) -> str:
    return next((x.strip() for x in text.splitlines() if x.strip()), "no output")


class CliBackend:
    """Slurm through its commands. `prefix` runs them elsewhere (e.g. `["ssh", "login1"]`)."""

    name = "cli"

    def __init__(self, *, timeout: float = 20.0, prefix: Sequence[str] = ()) -> None:
        self.timeout = timeout
        self.prefix = list(prefix)

    @staticmethod
    def available() -> str | None:
        """None when scontrol and sacct are on PATH, else what is missing."""
        missing = [c for c in ("scontrol", "sacct") if shutil.which(c) is None]
        return ", ".join(missing) or None

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return run([*self.prefix, *argv], self.timeout)

    def show_job(self, job_id: str) -> list[dict[str, str]]:
        proc = self._run("scontrol", "show", "job", "-o", job_id)
        if proc.returncode != 0:
            if _UNKNOWN.search(proc.stderr):
                return []
            raise SlurmUnavailable(f"scontrol show job {job_id}: {_first_line(proc.stderr)}")
        return parse_show_job(proc.stdout)

    def accounting(self, job_id: str) -> list[dict[str, str]]:
        proc = self._run("sacct", "-j", job_id, "-P", "-n", "-D", "--format=" + ",".join(SACCT_FIELDS))
        if proc.returncode != 0:
            raise AccountingUnavailable(_first_line(proc.stderr))
        if _NO_ACCOUNTING.search(proc.stderr):
            raise AccountingUnavailable(_first_line(proc.stderr))
        return parse_sacct(proc.stdout)

    def batch_script(self, job_id: str) -> str | None:
        proc = self._run("scontrol", "write", "batch_script", job_id, "-")
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout
        proc = self._run("sacct", "-j", job_id, "-B", "-n")
        if proc.returncode != 0:
            return None
        return parse_sacct_script(proc.stdout)


def parse_sacct_script(text: str) -> str | None:
    """The script from `sacct -B` (a `Batch Script for N` header and a dashed rule before it)."""
    lines = text.splitlines()
    while lines and (
        not lines[0].strip() or lines[0].startswith("Batch Script for") or set(lines[0]) == {"-"}
    ):
        lines.pop(0)
    body = "\n".join(lines).strip("\n")
    return None if body.strip() in ("", "NONE") else body + "\n"
