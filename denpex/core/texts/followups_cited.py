"""Texts of the answers that quote a line the message cites by file:line, or a rank's own error line
(`knowledge.answer_cited_line`)."""

from __future__ import annotations


def cited(ref: str, when: str, text: str) -> str:
    """ "rank5.log:207 (2026-11-20 03:14:03 UTC) says: `…`."."""
    place = f"{ref} ({when})" if when else f"{ref} (no time of its own)"
    return f"{place} says: `{text}`."


def own_error(rank: int, ref: str, when: str, text: str) -> str:
    """ "Rank 5's own log, not the kernel's (rank5.log:207, 2026-11-20 03:14:03 UTC): `…`."."""
    place = f"{ref}, {when}" if when else ref
    return f"Rank {rank}'s own error line, in its own log ({place}): `{text}`."


def source_line(at: str, ref: str, when: str, text: str) -> str:
    """ "It is logged from `ProcessGroupNCCL.cpp:616` (rank0.log:205, …): `…`."."""
    place = f"{ref}, {when}" if when else ref
    return f"It is logged from `{at}` ({place}): `{text}`."


def dump_file(source: str, ref: str, text: str) -> str:
    """ "The dump that shows it: `nccl_trace_rank_2` (its record `nccl_trace_rank_2 entries[3]`: …)."."""
    return f"The dump that shows it is `{source}` (its record `{ref}`: {text})."


def stamped(what: str, clock: str, ref: str, text: str) -> str:
    """ "The step 0 line is stamped 21:36:34,124 (stdout.log:3): `…`."."""
    return f"The {what} line is stamped {clock} ({ref}): `{text}`."


def rerun_command(cmd: str) -> str:
    """The job's own rerun command, as the diagnosis gives it."""
    return f"The command for this job's rerun: `{cmd}`."


def rerun_vars(names: str, cmd: str) -> str:
    """The variables the job's rerun command sets, then the command."""
    return f"Set {names} on the rerun; this job's rerun command: `{cmd}`."


def kill_proof(pid: str, kref: str, ktext: str, eref: str) -> str:
    """The kernel's kill line and the launcher's record of the same pid's SIGKILL exit."""
    return (
        f"The kernel's own line ({kref}): `{ktext}`; and the launcher recorded pid {pid} ending with exit"
        f" code -9 ({eref}): killed by signal 9 (SIGKILL), which a process does not send itself. A crash of"
        " its own would end with an exception's exit code (1) or a fault signal such as SIGSEGV (-11)."
    )
