"""Texts of the answers that give one event of the job with its time and its line: the save's start, the
last training step before it, which rank logged the save, when the job fell over, whether a rank ran on
another host (`knowledge.answer_save_start`, `knowledge.answer_fell_over`, `knowledge.answer_same_host`)."""

from __future__ import annotations

SAVE_START = "The save started at {at} ({ref}): `{text}`{step}."
#: the step the save is of, from the save line itself or the step line just before it
SAVE_STEP = ", the save of step {step}"
SAVE_STEP_AFTER = ", after step {step} ({ref})"

LAST_STEP_JOB = "The last training step logged before it was step {step} at {at} ({ref}: `{text}`)."
LAST_STEP_RANK = "Rank {rank}'s last training step was step {step}, logged at {at} ({ref}: `{text}`)."
THEN_SAVE = " The save started {gap} later, at {at} ({ref}: `{text}`)."

LOGGED_SAVE = "Rank {ranks} logged the save line at {at} ({ref}): `{text}`."
LOGGED_SAVE_MANY = "Ranks {ranks} each logged the save line, the first at {at} ({ref}): `{text}`."

FELL_OVER = (
    "The job fell over at {at}: the launcher reported the failed worker then ({ref}); the first rank "
    "(rank {rank}) had failed {first}."
)
FELL_OVER_NO_REPORT = "The job's last line is at {at}; the first rank (rank {rank}) failed {first}."

SAME_HOST = "No: rank {rank} ran on {node}, the same host as the other ranks ({others}); all ran on {node}."
OTHER_HOST = "Yes: rank {rank} was alone on {node}, while {listed}."
SHARED_HOST = "Rank {rank} ran on {node} with rank(s) {mates}; {listed}."
PAIR_SAME = "Yes: ranks {rank} and {other} both ran on {node}."
PAIR_OTHER = "No: rank {rank} ran on {node}, rank {other} on {other_node}."
OTHER_HOST_PART = "rank(s) {ranks} ran on {node}"
HOST_UNKNOWN = "The logs do not say which host rank {rank} ran on."
