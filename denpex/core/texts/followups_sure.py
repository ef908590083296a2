"""Texts of how sure the diagnosis is of a rank it inferred (knowledge/answer_sure.py)."""

from __future__ import annotations

#: asked how sure it is of the starting rank, when that rank was inferred rather than read from its error
SURE_INFERRED = (
    "Not certain: rank {rank} is inferred, not read from an error of its own ({basis}). The diagnosis's "
    "confidence is {conf:.2f}, which is {level}."
)
#: the basis when the others' timeouts and the rank's silence name it
BY_ELIMINATION = (
    "by elimination: {others} reported timing out while waiting in a collective and rank {rank} never "
    "did, and no kept line is an error from rank {rank}"
)
#: the basis when a collective trace names it
BY_TRACE = "from the collective traces: {suspect}"
#: a runner-up that scored about as well
RUNNER_UP_CLOSE = "The runner-up, *{title}*, scored {alt:.2f}: about as well."
#: what would settle it
SURE_CONFIRM = (
    "What would confirm it: rank {rank}'s own Python stack while it is stuck (`py-spy dump`), or a "
    "Flight Recorder dump of the last collective each rank entered, on the next run."
)

# a cause or a reason put to be checked with a rank (knowledge/answer_premise_cause.py)
#: the claimed rank is not the one whose failure started it
CLAIM_OTHER_RANK = "No: rank {named}{on} did not {claim}: rank {rank}{ini_on} did."
#: the claimed rank started it, but not with the cause named
CLAIM_WRONG_CAUSE = "No: rank {rank} did not {claim}: no memory error is in its lines."
#: "because it's the one writing the checkpoint": every rank built its own copy
CLAIM_NOT_ONLY_WRITER = (
    "And not because only rank {named} writes the checkpoint: every rank built its own full copy of the "
    "model in host RAM for the save (no `rank0_only=True`)."
)
