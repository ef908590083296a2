"""Taking a node out of service: the small protocol the Slack Drain button calls.

The bot decides who may drain and audits every press (`bot.slack.drain`); an executor only runs the
scheduler's own drain for one node it was given, already checked by `valid_node`: Slurm's
`scontrol update nodename=<n> state=drain` (`integrations.slurm.drain`) or a Kubernetes cordon
(`integrations.kubernetes.drain`). One node, never a host list or a selector: a button must not be
able to drain a whole partition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

#: one node name: a Slurm NodeName or a Kubernetes node (DNS subdomain), never a host list
#: (`gpu-[01-08]`, `a,b`) nor anything a shell or scontrol would read as more than a name
_NODE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,251}[A-Za-z0-9])?$")


def valid_node(name: str) -> bool:
    """True when `name` is one plain node name an executor may act on."""
    return bool(_NODE.match(name))


class DrainError(RuntimeError):
    """The scheduler refused or could not be reached; `str()` is a one-line reason for the user."""


@dataclass(frozen=True)
class DrainRequest:
    """One node to take out; `reason` is what the scheduler shows (Slurm `sinfo -R`, a node annotation)."""

    node: str
    reason: str

    def __post_init__(self) -> None:
        if not valid_node(self.node):
            raise ValueError(f"not a node name: {self.node[:64]!r}")


class NodeDrainer(Protocol):
    """Runs the scheduler's drain for one node; raises `DrainError` when it did not happen."""

    #: `slurm` or `kubernetes`: the scheduler whose nodes this executor drains
    scheduler: str

    def drain(self, request: DrainRequest) -> str:
        """Drain `request.node`; returns a short description of what was done (for the audit)."""
        ...
