"""Texts of the answers about how the job was launched (`knowledge.answer_launch`): the rendezvous
address and port, the launcher, the versions and settings lines, the steps configured, the nodes."""

from __future__ import annotations


def master(pairs: str, text: str, ref: str, same: int) -> str:
    """ "MASTER_ADDR=gpu-01, MASTER_PORT=29500: `…` (rank0.log:1)"."""
    also = f"; every rank's launch line ({same}) prints the same" if same > 1 else ""
    return f"The ranks rendezvoused at {pairs}: `{text}` ({ref}){also}."


def port_only(port: str, text: str, ref: str, what: str, rank: int) -> str:
    """No error names a port, but the launch line prints the rendezvous port."""
    return (
        f"No port appears in this job's errors: it failed with {what} on rank {rank}, not a port or"
        f" rendezvous problem. The port its lines print is the rendezvous port {port}, from the launch"
        f" line `{text}` ({ref})."
    )


def launcher(name: str, n: int, nodes: str) -> str:
    """The launcher the run facts name."""
    return f"It was launched with {name} ({n} process(es) on {nodes})."


def versions(rows: str) -> str:
    """The version lines, each quoted."""
    return f"Versions as the job printed them: {rows}."


def settings(rows: str) -> str:
    """The training-settings lines, each quoted."""
    return f"Its settings as printed: {rows}."


def quoted(text: str, ref: str) -> str:
    """ "`torch 2.5.1, …` (rank0.log:2)"."""
    return f"`{text}` ({ref})"


def steps(total: str, text: str, ref: str) -> str:
    """The steps the run was set to, from the line that prints them."""
    return f"It was set to run {total} steps: `{text}` ({ref})."


def world_steps(n: int, total: str, text: str, ref: str) -> str:
    """World size and steps from the one line that prints both."""
    return f"World size {n}, set to run {total} steps: `{text}` ({ref})."


def world(n: int, text: str, ref: str) -> str:
    """The world size a start-up line prints."""
    return f"World size {n}: `{text}` ({ref})."


def nodes(count: int, layout: str, how: str) -> str:
    """ "1 node: gpu-01 ran ranks 0-3"."""
    word = "node" if count == 1 else "nodes"
    only = "only one node" if count == 1 else f"{count} {word}"
    return f"The job ran on {only}: {layout}{how}."


def node_ranks(node: str, ranks: str) -> str:
    return f"{node} (rank(s) {ranks})"


def node_how(ref: str) -> str:
    return f" — each rank's own line names its node (e.g. {ref})"
