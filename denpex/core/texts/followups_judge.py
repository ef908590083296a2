"""Texts of the answers to premises and challenges ("is the box bad?", "whose fault?", "same as last
week?"): each settled by this job's own facts, and what the logs cannot show said plainly."""

from __future__ import annotations

NODE_CHECK = (
    "To rule {node} in or out, read its kernel log: `dmesg -T` there around {at} — an Xid, an"
    " oom-kill or a segfault line would show a node fault; none is in this job's evidence."
)
OWN_RAISE = "Rank {rank}'s own failure was raised in your code: {file} line {line}{code}."
OWN_ERROR = "Rank {rank}'s own error ({ref}): `{text}`."
OTHERS_PRINTED = (
    "Rank(s) {ranks} only printed `{text}` ({ref}): what a rank prints when its peer rank {ini} stops"
    " answering its collective — collateral of rank {ini}'s failure, not a second fault."
)
NOT_IN_LOGS = (
    "These logs hold this job only: they cannot show other incidents (last week's, or how often this"
    " happens); compare them against this job's facts."
)
CHECK_IT = "The check to run on the node: `{code}`."
CHANGE = "What has to change before the rerun: {step}"

__all__ = ["CHANGE", "CHECK_IT", "NODE_CHECK", "NOT_IN_LOGS", "OTHERS_PRINTED", "OWN_ERROR", "OWN_RAISE"]
