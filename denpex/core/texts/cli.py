"""Texts of the `denpex` command line (errors and headings a person reads at a terminal)."""

from __future__ import annotations

DIAGNOSE_HELP = "Diagnose why a distributed training job died, from its log files or folders."
PATHS_HELP = "Log files or folders (rank logs, combined logs, node kernel logs, scheduler logs)."
FORMAT_HELP = "Output format: `text` for a person, `json` for programs (the public contract)."
ENTRIES_HELP = "Folder of knowledge entries (*.toml) to use instead of the bundled ones."
JOBS_HELP = "Processes that scan the logs in parallel (0: one per CPU). The answer is the same."


def unreadable(message: str) -> str:
    return f"denpex diagnose: {message}"


def bad_knowledge(message: str) -> str:
    return f"denpex diagnose: invalid knowledge entry: {message}"


def bad_format(value: str) -> str:
    return f"denpex diagnose: unknown --format {value!r} (use text or json)"


def internal_error(message: str) -> str:
    return f"denpex diagnose: internal error ({message}); rerun with DENPEX_DEBUG=1 for details"


def bad_arguments(message: str) -> str:
    return f"denpex diagnose: {message} (see denpex diagnose --help)"


def no_sources() -> str:
    return "denpex diagnose: no log files found in the given paths"


HEADING = "Denpex diagnosis"
INITIATING = "Initiating"
ROOT_CAUSE = "Root cause"
FIX = "Fix"
VERIFY = "Verify"
EVIDENCE = "Evidence"
COLLATERAL = "Collateral ranks"
MISSING = "Missing evidence"
ALTERNATIVES = "Also possible"
SCANNING = "Scanning logs"


#: who started it when no rank did: the scheduler stopped every rank (a time limit, a cancel) ...
NO_RANK_SCHEDULER = "the scheduler (no rank failed on its own)"
#: ... or the launcher failed before any worker logged a line (a rendezvous port in use)
NO_RANK_LAUNCHER = "the launcher, before any rank started"


def initiator(rank: int | None, *, category: str = "", ranks_seen: int = -1) -> str:
    """Who started the failure, said the same way in the terminal, the Slack thread and the evidence
    file: "rank unknown" only when a rank did fail but no line tells which; a scheduler kill or a
    launcher that failed before any rank ran has no rank to name, and "rank unknown" would send the
    reader looking for one."""
    if rank is not None:
        return f"rank {rank}"
    if category == "scheduler_kill":
        return NO_RANK_SCHEDULER
    if ranks_seen == 0:
        return NO_RANK_LAUNCHER
    return "rank unknown"


def ranks_seen(files: int, ranks: int) -> int:
    """The rank count `initiator` may trust: none when no file was read (a diagnosis built elsewhere)."""
    return ranks if files else -1


def initiating_line(
    rank: int | None,
    node: str | None,
    time: str | None,
    borrowed: bool = False,
    *,
    category: str = "",
    ranks_seen: int = -1,
) -> str:
    who = initiator(rank, category=category, ranks_seen=ranks_seen)
    where = f" on {node}" if node else ""
    when = (
        (f" at or after {time} (its line has no time of its own)" if borrowed else f" at {time}")
        if time
        else ""
    )
    return f"{who}{where}{when}"


def confidence_line(category: str, confidence: float) -> str:
    return f"{category} (confidence {confidence:.2f})"


def stats_line(files: int, ranks: int, nbytes: int, seconds: float) -> str:
    return f"{files} files, {ranks} ranks, {nbytes / 1e6:.1f} MB scanned in {seconds:.2f} s"


#: the collateral table's columns: "what happened" is the ranks' own end (a gloo peer lost, terminated
#: by the launcher, timed out in NCCL's watchdog), not the taxonomy category (kept in the JSON)
COLLATERAL_COLUMNS = ("ranks", "what happened", "first", "why")


def group_time(time: str | None, borrowed: bool) -> str:
    """A collateral group's first time in the table: `≥ <time>` when it is an earlier line's."""
    if not time:
        return "-"
    return f"≥ {time}" if borrowed else time
