"""Texts of the per-rank figure answers: a value every rank logged at one step, what a rank logged right
before it failed, what the ranks printed last, whether the per-rank files differ, how often steps were
logged, and the Flight Recorder dumps' last entry per rank."""

from __future__ import annotations

#: "At step 2000 each rank logged loss: rank 0 1.5235, rank 1 1.5199 (rank0.log:205, …)."
EACH_AT_STEP = "At step {step} each rank logged {name}: {rows} ({refs})."
EACH_ROW = "rank {rank} {value}"
#: the values agree, or how far apart they are
EACH_SAME = " All {n} ranks logged the same value."
EACH_SPREAD = " They range from {lo} to {hi}."
#: ranks that logged no such value at that step
EACH_MISSING = " No kept line of rank(s) {ranks} logs {name} at step {step}."

BEFORE_FAIL = "Right before it failed, rank {rank} logged: {rows}."
BEFORE_ROW = "`{text}` ({ref}{at})"

#: the ranks' very last lines, grouped by what they say
LAST_PRINTED = "At the very end, {rows}."
LAST_GROUP = "rank(s) {ranks} printed `{text}` ({ref}{at})"

FILES_SAME = (
    "The {n} per-rank files ({files}) are identical in the lines kept of each (the last {k} lines): the "
    "same steps, losses and times line for line: in those lines the ranks' logged values agree and no "
    "rank printed anything the others did not."
)
FILES_DIFFER = (
    "The per-rank files differ: {rows}. Different per-rank values are normal (each rank logs its own "
    "batch); a rank whose last lines say something the others do not is the one to read."
)
FILES_ROW = "rank {rank}'s last line is `{text}` ({ref})"

CADENCE = (
    "Steps were logged every {every} ({ref}: {first} at {t0}, then {last} at {t1}), about {gap} apart{per}."
)
CADENCE_PER = ", {per} per step"
CADENCE_ONE = "step"
CADENCE_MANY = "{n} steps"

DUMP_LAST = "In the Flight Recorder dumps, the last recorded entry of each rank: {rows}."
DUMP_ROW = "rank(s) {ranks}: {op} #{seq} in {group}, state `{state}`"
#: the sequence number counts the group's collectives: #5 is the fifth one the rank entered there
DUMP_COUNT = (
    " The sequence number counts a group's collectives, so in {group} {counts} (the dumps' own entry "
    "lists and format version are not kept in this diagnosis)."
)
DUMP_COUNT_ROW = "rank(s) {ranks} had entered {seq}"

# knowledge/answer_lastloss.py
LAST_LOSS = "The last loss printed was {loss}, at step {step} (rank {rank}, {ref})."
LOSS_NOT_LOGGED = "No rank's kept lines print a loss value: the logs do not say what the loss was."
LOSS_ALL_RANKS = "Every rank logged its loss (ranks {ranks}): their values can be compared step by step."
LOSS_ONLY_RANKS = (
    "Only {ranks} logged losses ({ref}): the script prints the loss from {n} only; {silent} logged none, so"
    " their losses are not in the logs."
)
LOSS_LOCAL_UNKNOWN = (
    "Rank {rank}, the one that failed, logged no step loss of its own: the logs cannot tell whether the"
    " NaN was local to its batch or on every rank — log the loss on every rank (or all-reduce a NaN flag)"
    " to see."
)
