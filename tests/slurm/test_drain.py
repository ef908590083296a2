"""The Drain button's Slurm executor against the real slurmctld/slurmd: the node goes to DRAIN with
the reason naming who asked, and is always resumed afterwards (the cluster is shared machine state)."""

from __future__ import annotations

import re

import pytest

from integrations.nodedrain import DrainError, DrainRequest
from integrations.slurm.drain import SlurmDrainer
from tests.slurm.support import Cluster, sh

REASON = "denpex: Xid 79 (by admin)"


def shown(node: str) -> dict[str, str]:
    """`scontrol show node` as key=value (the Reason value runs to the end of its line)."""
    text = sh("scontrol", "show", "node", node)
    fields = dict(re.findall(r"(\w+)=(\S+)", text))
    reason = re.search(r"Reason=(.*?)(?: \[|$)", text, re.M)
    if reason:
        fields["Reason"] = reason.group(1).strip()
    return fields


def test_the_node_is_drained_with_the_reason_then_resumed(slurm_cluster: Cluster) -> None:
    node = slurm_cluster.node
    try:
        done = SlurmDrainer().drain(DrainRequest(node=node, reason=REASON))
        assert done == f"scontrol update nodename={node} state=drain"
        after = shown(node)
        assert "DRAIN" in after["State"], after["State"]
        assert after["Reason"] == REASON
    finally:
        sh("scontrol", "update", f"nodename={node}", "state=resume", check=False)
    assert "DRAIN" not in shown(node)["State"]


def test_an_unknown_node_is_a_drain_error_and_nothing_changes(slurm_cluster: Cluster) -> None:
    node = slurm_cluster.node
    try:
        with pytest.raises(DrainError, match="scontrol exited"):
            SlurmDrainer().drain(DrainRequest(node="no-such-node-77", reason=REASON))
        # the drain flags, not the whole state: a loaded machine may flag slurmd NOT_RESPONDING a moment
        after = shown(node)
        assert "DRAIN" not in after["State"] and "denpex" not in after.get("Reason", ""), after
    finally:
        slurm_cluster.resume()
