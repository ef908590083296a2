"""Drain one Slurm node: `scontrol update nodename=<n> state=drain reason=...`, run as an argv list.

No shell ever sees the node name or the reason: both are single argv elements, and the node name is
checked by `DrainRequest` (one name, no host list). The reason carries who asked (`denpex: Xid 79 (by
alice)`), so `sinfo -R` tells the on-call engineer where the drain came from. Resuming is left to a
person (`scontrol update nodename=<n> state=resume`), after the checks the thread names.
"""

from __future__ import annotations

from collections.abc import Sequence

from integrations.nodedrain import DrainError, DrainRequest
from integrations.slurm.commands import SlurmUnavailable, run

#: characters of the reason kept (Slurm stores it whole; `sinfo -R` shows the start)
REASON_CHARS = 200


def drain_argv(request: DrainRequest, prefix: Sequence[str] = ()) -> list[str]:
    """The command line, one argv element per field (newlines and quotes cannot split it)."""
    reason = " ".join(request.reason.split())[:REASON_CHARS]
    return [*prefix, "scontrol", "update", f"nodename={request.node}", "state=drain", f"reason={reason}"]


class SlurmDrainer:
    """`NodeDrainer` for Slurm through `scontrol` on PATH (`prefix` runs it elsewhere, e.g. ssh)."""

    scheduler = "slurm"

    def __init__(self, *, timeout: float = 20.0, prefix: Sequence[str] = ()) -> None:
        self.timeout = timeout
        self.prefix = list(prefix)

    def drain(self, request: DrainRequest) -> str:
        argv = drain_argv(request, self.prefix)
        try:
            proc = run(argv, self.timeout)
        except SlurmUnavailable as exc:
            raise DrainError(str(exc)) from exc
        if proc.returncode != 0:
            said = next((x.strip() for x in (proc.stderr or proc.stdout).splitlines() if x.strip()), "")
            raise DrainError(f"scontrol exited {proc.returncode}: {said[:200] or 'no output'}")
        return f"scontrol update nodename={request.node} state=drain"
