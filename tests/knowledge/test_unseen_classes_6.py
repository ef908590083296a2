# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the December 6 (third session) blind corpus round, each as a small log in the
format its tool prints (not a copy of a case): NCCL's own socket failure relayed by torch after
"Last error:" without NCCL's `NCCL WARN` prefix, which is NCCL failing to reach a peer (interface,
firewall, route), not the rendezvous store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]

_RELAYED = (
    "[rank5]: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027, "
    "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
    "[rank5]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
    "[rank5]: Last error:\n"
    "[rank5]: {last}\n"
)


@pytest.mark.parametrize(
    "last",
    [
        "socketStartConnect: Connect to 10.4.2.17<41913> failed : No route to host",
        "socketStartConnect: Connect to 10.4.2.17<41913> failed : Connection refused",
        "socketPollConnect: Connect to 10.4.2.17<41913> returned 113(No route to host) errno 115(Operation now in progress)",
    ],
)
def test_nccls_socket_failure_relayed_after_last_error_is_a_communication_error(
    diagnose_dir: Run, tmp_path: Path, last: str
) -> None:
    """The address is a peer's NCCL listening socket, not MASTER_ADDR:MASTER_PORT: the store had
    already formed the group. NCCL_SOCKET_IFNAME and the route between nodes decide it."""
    d = diagnose_dir(_log(tmp_path, _RELAYED.format(last=last)))
    assert d.category == "nccl_comm_error"
    assert d.entry is not None and d.entry.id == "nccl-network-transport-error"


def test_the_stores_own_no_route_stays_a_rendezvous_failure(diagnose_dir: Run, tmp_path: Path) -> None:
    """The c10d store's client failing to reach the master is the rendezvous, whatever NCCL says."""
    log = (
        "[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-a]:29500 (errno: 113 - No route to host).\n"
        "torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to (node-a, 29500).\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "rendezvous_failure"
