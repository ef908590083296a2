"""Follow-up sentences that confirm or correct a premise put as a question: a call named as the bug,
an order of failures, whose code raised the error (`knowledge.answer_blame`).

Plain sentences (the Slack renderer escapes them); the knowledge layer fills in this job's facts.
"""

from __future__ import annotations

#: "is the barrier the bug?" about the call the collateral ranks failed in
CALL_WAITED = (
    "No: {ranks} failed in `{call}` ({where}) because {they} {verb} waiting there for rank {rank}, which"
    " {started} with {what}. `{call}` is where the others waited, not the bug: fix rank {rank}'s failure."
)
#: "is my backward pass broken?" about the call the first rank was in when something else failed
CALL_REACHED = (
    "No, not by this job's evidence: rank {rank} was in `{call}` ({where}) when it failed, but the error"
    " is not that call's own: {what}, `{error}` ({ref}){inside}."
)
CALL_REACHED_INSIDE = ", raised inside {inner}"
CALL_CHANGE = "What to change: {step}"
#: "did ranks 1-3 fail before rank 0?"
ORDER_NO = "No: rank {first} {verb}{when}, with {what}; {ranks} failed after it{gap}{role}."
ORDER_YES = "Yes: rank {first} {verb}{when}, with {what}; rank {other} failed after it{gap}."
ORDER_WAITED = ", collateral: waiting on rank {rank} in `{op}`{where}"
ORDER_COLLATERAL = ", collateral: {they} lost rank {rank}"
ORDER_GAP = ", {gap} later"
#: "torch or my own code?", "bug or infra?" when the script's own guard raised the error
OWN_CHOICE = (
    "Your own training code, not {lib}: rank {rank}'s script has a guard at `{file}` line {line}, in"
    " `{func}`: `{code}`; it raised `{exc}` ({message}) and stopped the run."
)
OWN_INFRA = (
    "Not infra: your own training code stopped the run, on purpose. Rank {rank}'s script has a guard at"
    " `{file}` line {line}, in `{func}`: `{code}`; it raised `{exc}` ({message})."
)
