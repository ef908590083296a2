"""Who to ping ("is this us or the cluster, who do i ping"): the cluster's admins when the evidence
shows a hardware fault on a node, the job's owner when the failure is one the job's own code, config
or launch decides.

Why: the hardware answer says whether a GPU is at fault; an on-call reader also needs whose move it
is. Only the failure modes whose fix is in the job are said to be the owner's; a storage or network
failure may be either side's, so no owner is named there.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_facts as tff
from denpex.core.texts import slack as t
from knowledge import answer_advice
from knowledge.answer_types import Ctx

#: the ask is whose move it is, ours or the cluster's
WHO_Q = re.compile(
    r"\bwho (?:do|should|can) (?:i|we) "
    r"(?:ping|page|contact|escalate to|notify|talk to|reach out to|loop in)\b"
    r"|\b(?:us|our (?:side|end|code|job|fault)|we) or (?:the )?"
    r"(?:cluster|infra\w*|platform|admins?|ops|sre)\b"
    r"|\b(?:cluster|infra\w*|platform|admins?|ops) or (?:us|our (?:side|end|code|job|fault))\b"
)
#: failure modes fixed in the job itself (its code, config or launch), never by the cluster's admins;
#: a rendezvous failure (a port, or a host not reachable) or a scheduler's kill (a limit, or a
#: preemption) may be either side's
JOBS_OWN = frozenset(
    {
        "gpu_oom",
        "gpu_oom_checkpoint_gather",
        "cpu_oom_checkpoint",
        "host_oom",
        "nan_divergence",
        "shape_or_user_code_error",
    }
)


def who_to_ping(c: Ctx, text: str) -> str:
    """The sentence naming whose move it is, or "" when the ask is not that or the evidence can't say."""
    if not WHO_Q.search(text):
        return ""
    ini = c.view.initiating
    if answer_advice.xid_lines(c):
        node = ini.node if ini is not None and ini.node else "the node"
        return tff.WHO_ADMINS.format(node=node)
    if c.view.category in JOBS_OWN:
        return tff.WHO_OWNER.format(what=t.category_words(c.view.category))
    return ""
