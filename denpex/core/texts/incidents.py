"""Texts of the incident history and node health: the thread's node lines, drain advice, commands.

Plain text with Slack mrkdwn marks; every value that came from a log or a scheduler (node names,
job ids) is escaped by the caller before it is passed in, so these functions only compose.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from denpex.core.texts.slack import UPGRADE_HINT

#: the checks that clear a node after a hardware fault, in the order to run them
CLEAR_CHECKS = ("nvidia-smi -q -d ECC,PAGE_RETIREMENT", "dcgmi diag -r 3")

HEADING = "*Node history*"
ADVICE_ONLY = "Advice only: Denpex drains nothing."

NODES_TITLE = "*Nodes with incidents* (worst first)"
NODES_EMPTY = "No node has an incident in the history yet."
HISTORY_FILTERED_EMPTY = "No incident in the history matches."
HISTORY_FILTERED_TITLE = "*Incidents*"
HISTORY_USAGE = (
    "Usage: `/denpex history [node:<name>] [category:<category>] [job:<jobid>]`, "
    "e.g. `/denpex history node:gpu-07`."
)


def times(n: int) -> str:
    """1 → once, 2 → twice, n → n times (how people say counts aloud)."""
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def day(at: float) -> str:
    """`28 Nov` (UTC): the day an incident happened."""
    moment = datetime.fromtimestamp(at, UTC)
    return f"{moment.day} {moment:%b}"


def moment(at: float) -> str:
    """`28 Nov 14:05 UTC`."""
    when = datetime.fromtimestamp(at, UTC)
    return f"{when.day} {when:%b %H:%M} UTC"


def signal_counts(counts: Sequence[tuple[str, int]]) -> str:
    """`Xid 79 twice, Xid 48 once`."""
    return ", ".join(f"{label} {times(n)}" for label, n in counts)


def node_summary(
    node: str, initiating: int, total: int, counts: Sequence[tuple[str, int]], since: float
) -> str:
    """`gpu-07 was the initiating node in 3 of the last 5 failed jobs (Xid 79 twice, since 28 Nov)`."""
    inside = ", ".join(p for p in (signal_counts(counts), f"since {day(since)}") if p)
    jobs = "failed job" if total == 1 else "failed jobs"
    if initiating:
        return f"`{node}` was the initiating node in {initiating} of the last {total} {jobs} ({inside})"
    hardware = sum(n for _, n in counts)
    return f"`{node}` showed hardware errors {times(hardware)} in the last {total} {jobs} ({inside})"


def earlier_incident(job: str, at: float, link: str | None) -> str:
    label = f"job `{job}`"
    return f"<{link}|{label}> ({moment(at)})" if link else f"{label} ({moment(at)})"


def earlier_line(items: Sequence[str]) -> str:
    return "Earlier: " + ", ".join(items)


def drain_reason(counts: Sequence[tuple[str, int]]) -> str:
    """`denpex: Xid 79 x2` — what the scheduler shows as the reason the node was drained."""
    return "denpex: " + ", ".join(f"{label} x{n}" for label, n in counts)


def slurm_drain(node: str, reason: str) -> str:
    return f'scontrol update nodename={node} state=drain reason="{reason}"'


def k8s_drain(node: str) -> str:
    return f"kubectl cordon {node} && kubectl drain {node} --ignore-daemonsets"


def slurm_resume(node: str) -> str:
    return f"scontrol update nodename={node} state=resume"


def k8s_resume(node: str) -> str:
    return f"kubectl uncordon {node}"


def drain_advice(node: str, why: str) -> str:
    return f":warning: Drain `{node}` before the next job lands on it ({why}). {ADVICE_ONLY}"


def why_catalogue(label: str) -> str:
    return f"the Xid catalogue says {label} needs the node taken out"


def why_count(hardware: int) -> str:
    return f"{hardware} hardware faults in the history"


def clear_checks(resume: str) -> str:
    checks = " and ".join(f"`{c}`" for c in CLEAR_CHECKS)
    return f"Before it takes jobs again, run {checks} on it; when both are clean: `{resume}`"


def nodes_row(
    node: str, cluster: str, total: int, initiating: int, counts: Sequence[tuple[str, int]], last: float
) -> str:
    """One row of `/denpex nodes`."""
    hardware = f" — {signal_counts(counts)}" if counts else ""
    return (
        f"• `{node}` (`{cluster}`): {total} incident{'s' if total != 1 else ''}, initiating in "
        f"{initiating}{hardware}, last {moment(last)}"
    )


def history_row(job: str, cluster: str, at: float, headline: str, link: str | None) -> str:
    label = f"<{link}|{job}>" if link else f"`{job}`"
    return f"• {label} (`{cluster}`, {moment(at)}): {headline}"


def headline(title: str, rank: int | None, node: str | None) -> str:
    """The one-line summary stored with an incident (masked by the caller)."""
    where = f"rank {rank}" if rank is not None else "no single initiating rank"
    return f"{title} ({where}{f' on {node}' if node else ''})"


SEEN_HEADING = "*Seen before* (the same failure mode)"
SOLVED_USAGE = (
    "Usage: `/denpex solved <jobid> <what fixed it>`, e.g. "
    "`/denpex solved 4242 reseated the GPU in slot 5, dcgmi diag -r 3 clean`."
)


def seen_row(job: str, at: float, node: str | None, link: str | None, fix: str | None) -> str:
    label = f"job `{job}`"
    head = f"<{link}|{label}>" if link else label
    where = f", on `{node}`" if node else ""
    then = f" — fixed: {fix}" if fix else f" — no fix recorded (`/denpex solved {job} <what fixed it>`)"
    return f"• {head} ({moment(at)}{where}){then}"


SOLVED_SCALE_ONLY = (
    "`/denpex solved` is part of the Scale plan, like the history it writes to. " + UPGRADE_HINT
)
#: characters of a recorded fix kept
FIX_CHARS = 500


def solved_ok(job: str) -> str:
    return f"Recorded what fixed job `{job}`; the next thread with the same failure mode shows it."


def solved_unknown(job: str) -> str:
    return f"The history has no job `{job}` (only Scale-plan incidents name their job)."


def unknown_filter(word: str) -> str:
    return f"I don't know the filter `{word}`. " + HISTORY_USAGE
