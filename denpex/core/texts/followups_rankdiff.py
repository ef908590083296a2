"""Follow-up sentences that set the ranks side by side ("did every rank see it or just one?", "what
did rank 0 do differently?", "which rank's log ends last?"): each rank's role, first line and time.

Kept apart so `followups_facts` stays small; every sentence is a format string filled with this job's
facts.
"""

from __future__ import annotations

ROLE_WORDS = {
    "initiating": "started it",
    "collateral": "failed because of it",
    "healthy": "logged no failure",
    "missing": "no line of its own in the logs",
}
RANK_ROW = "{who} ({role}): first failure line `{text}` ({ref}){at}."
RANK_ROW_NONE = "{who} ({role}): no failure line of {their} own."
RANK_SIGNAL = (
    "{who} ({role}): no Python error of {their} own; the launcher reports {signal} (signal {num}, {ref}){at}."
)
BEFORE = " Last line before it ({ref}): `{text}`."
NOT_ON_INI = "Rank {rank}'s own lines have no {what}."
LAST_ENDS = "The log that ends last is {who}'s, at {at}: {why}"
LAST_WHY = "{gap} after rank {rank} failed."
