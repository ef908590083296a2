"""Slurm integration: the evidence collector (CLI backend; pyslurm when it matches) and its parts.

The hook scripts that report failures live in `deploy/slurm/` (standalone, Python standard library
only, because they run on every compute node); this package runs inside the Denpex worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import structlog

from integrations.slurm.collector import SlurmCollector
from integrations.slurm.commands import CliBackend, SlurmBackend

if TYPE_CHECKING:
    from denpex.core.settings import Settings

__all__ = ["CliBackend", "SlurmBackend", "SlurmCollector", "create_collector", "select_backend"]

log = structlog.get_logger("denpex.slurm")


def select_backend(prefer: str = "auto") -> SlurmBackend:
    """`cli`, `pyslurm`, or `auto` (pyslurm only when it imports and matches the installed Slurm).

    Raises RuntimeError (the worker reports it as missing evidence) when neither can work."""
    cli = CliBackend()
    if prefer in ("auto", "pyslurm"):
        from integrations.slurm import pyslurm_backend

        backend, why = pyslurm_backend.load(cli)
        if backend is not None:
            return backend
        if prefer == "pyslurm":
            raise RuntimeError(why)
        log.debug("slurm_backend_cli", why=why)
    missing = CliBackend.available()
    if missing:
        raise RuntimeError(f"Slurm commands not on PATH: {missing}")
    return cli


def create_collector(settings: Settings) -> SlurmCollector:
    """Factory named in `workers.collect.COLLECTORS`."""
    from integrations.slurm.dumps import DumpOptions

    dumps = DumpOptions.parse(settings.fr_glob, settings.fr_max_bytes)
    return SlurmCollector(select_backend(), rank_byte_cap=settings.rank_byte_cap, dump_options=dumps)
