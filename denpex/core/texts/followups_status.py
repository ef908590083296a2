"""Texts of the incident status update ("status update: ranks, where it died, progress lost, owner").

Kept apart from `followups.py`: one sentence per part a status update asks for, each filled with this
job's numbers by `knowledge.answer_status`.
"""

from __future__ import annotations

#: the lead: who failed first, where, when, with what, doing what
FIRST = "Rank {rank}{node} failed first{when}, with {what}{doing}."
#: the lead for a rank named from the others' behaviour: its own failure has no time in the logs
FIRST_SILENT = (
    "Rank {rank}{node} started it ({what}{doing}): it logged no error of its own and went silent, so its "
    "failure has no time in the logs."
)
#: how many ranks and nodes the job had, and how many of them failed
COUNTS = "The job had {world} ranks{nodes}; {failed} failed ({coll} of them collateral, after rank {rank})."
COUNTS_NO_WORLD = "{failed} ranks failed{nodes} ({coll} of them collateral, after rank {rank})."
#: how far it got: the last step the failing rank (or, when it logged none, any rank) logged
STEP_OWN = "Step reached: step {step}{total} (rank {rank}, {ref})."
STEP_ANY = (
    "Step reached: rank {ini} logged no step; the last step any rank logged is step {step}{total} "
    "(rank {rank}, {ref})."
)
STEP_NONE = "Step reached: no step number is in the logs."
#: how long it ran before the failure
RAN = "It ran {span} before the failure (first log line{start})."
#: whose move it is
OWNER_INFRA = (
    "Owner: infra: the GPU on {node} faulted (Xid {code}); the cluster admins drain it, the job only "
    "needs other nodes."
)
OWNER_JOB = (
    "Owner: training code (the job's own code, config or launch), not infra: no hardware fault is in "
    "the logs."
)
OWNER_SOFTWARE = (
    "Owner: most likely the job's side (its software), not infra: no hardware fault is in the logs ({faq})."
)
OWNER_OPEN = "Owner: the logs don't settle it: {faq}"
#: the first failing rank's own error line, for a standup's "which rank, and why"
ERROR_LINE = "Its error ({ref}): `{text}`"
