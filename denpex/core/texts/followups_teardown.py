"""Texts of the answers about the launcher's teardown lines, in their order and at their exact times
(`knowledge.answer_teardown`)."""

from __future__ import annotations


def sends(first: str, last: str, pids: str, ref: str) -> str:
    """ "SIGTERM to pids 24100, 24101, 24102 at 21:39:04.331–21:39:04.339 (console.log:41-43)"."""
    span = first if first == last else f"{first} to {last}"
    return f"the agent sent SIGTERM to pid(s) {pids} at {span} ({ref})"


def failed(code: str, local: str, pid: str, time: str, ref: str) -> str:
    """The agent's line that reports the child's failure."""
    return (
        f"its line reporting local_rank {local} (pid {pid}) `failed (exitcode: {code})` is at {time} ({ref})"
    )


def order(sends: str, failed: str, before: bool, gap: str) -> str:
    """Which came first in the agent's log."""
    if before:
        return (
            f"In the launcher's (torchrun agent's) log the SIGTERMs come first: {sends}; {failed},"
            f" {gap} later."
        )
    return f"In the launcher's (torchrun agent's) log the failure line comes first: {failed}; then {sends}."


def why_order(rank: int, code: str) -> str:
    """Why the teardown precedes the failure line: the agent writes it after stopping the others."""
    return (
        f"That is the agent's own order of work, not the order of the failures: it saw rank {rank}'s"
        f" process exit ({code}), sent SIGTERM to the rest, and wrote the `failed` line after they had"
        " stopped. The SIGTERMs follow that exit, not the other way round."
    )


def root(rank: int, ref: str) -> str:
    """The launcher's summary names the first failure."""
    return f"Its summary names rank {rank} as `Root Cause (first observed failure)` ({ref})."


def sure(rank: int) -> str:
    """A doubt of the first rank, answered yes."""
    return f"Yes: rank {rank} failed first."


def stopped(pids: str, ref: str, rows: str, time: str = "") -> str:
    """The workers the agent stopped (and when), then how each ended by the launcher's summary."""
    at = f" at {time}" if time else ""
    return f"The launcher (torchrun's agent) sent SIGTERM to pid(s) {pids}{at} ({ref}). {rows}."
