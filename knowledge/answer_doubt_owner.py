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
from denpex.core.texts import thread as t
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

#: whose side it is, put as the platform's against the job's, or a team to tell ("platform issue or
#: ours?", "our problem or the scheduler's", "need to tell the HPC team?", "who needs to hear about it")
_INFRA = (
    r"(?:platform|infra\w*|cluster|scheduler|slurm|node|box|host|machine|hardware|storage|filesystem"
    r"|network|hpc|ops|sre|admins?|data ?cent(?:er|re))"
)
_OURS = (
    r"(?:ours|us|we|our \w+|my \w+|the job|job|the (?:model|training|user)\w*|model\w*|modell?ing"
    r"|training|code|user code|save code|script)"
)
PLATFORM_Q = re.compile(
    rf"\b{_INFRA}(?:\x27s|s)?(?: (?:issue|problem|thing|fault|side|bug|team|error|failure))?"
    rf" (?:or|vs\.?|versus) (?:(?:is |was )?(?:it |this |that )?)?"
    rf"(?:(?:purely|just|only|on|the|a) )*{_OURS}\b"
    rf"|\b{_OURS}(?: (?:issue|problem|thing|fault|side|bug|end|error))? (?:or|vs\.?|versus)"
    rf" (?:(?:purely|just|only|on|the|a) )*{_INFRA}\b"
    r"|\b(?:tell|notify|inform|loop in|escalate to|warn)\b (?:the |our |an? )?(?:\w+ )?"
    r"(?:team|admins?|on-?call|ops)\b"
    r"|\bwho (?:needs|has|should|must|ought) (?:to )?(?:hear|know|be told)\b"
    r"|\bteam (?:needs?|should|has|must) (?:to )?(?:know|hear|be told)\b"
)


def _asks_who(text: str) -> bool:
    """Whose move it is asked: in so many words, or the platform's side set against the job's."""
    return bool(WHO_Q.search(text) or PLATFORM_Q.search(text))


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
    if not _asks_who(text):
        return ""
    ini = c.view.initiating
    if answer_advice.xid_lines(c):
        node = ini.node if ini is not None and ini.node else "the node"
        return tff.WHO_ADMINS.format(node=node)
    if c.view.category in JOBS_OWN:
        return tff.WHO_OWNER.format(what=t.category_words(c.view.category))
    return ""
