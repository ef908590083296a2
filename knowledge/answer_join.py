"""How the answers of one message are joined, and the reply when no intent matches.

Kept apart from `knowledge.answers` (which decides what each ask of a message gets) so that module
stays a router: these put a doubt's own sentence first, keep a restart verdict the whole message's
answer left out, tell two asks about different ranks apart, and list example questions fitted to
this job when nothing else answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import thread as t
from knowledge import answer_asks
from knowledge.answer_types import Reply
from knowledge.intents import named_ranks
from knowledge.jobfacts_answers import JobView

#: a restart verdict's opening: kept when the whole message's answer leaves it out
_VERDICTS = ("Yes", "No,", "No:", "Not ", "Maybe")


def first(base: Reply, lead: str, lines: Sequence[EvidenceLine]) -> Reply:
    """`base` led by a sentence that answers the doubt itself ("is this the usual 29500 collision":
    not 29500, the port it was), with that sentence's lines shown first."""
    shown = [*lines, *(ln for ln in base.lines if ln not in lines)]
    return replace(base, lead=f"{lead} {base.lead}", lines=shown, material=[lead, *base.material])


def kept_verdict(whole: Reply, first: Reply) -> Reply:
    """The whole message's answer, led by the first ask's verdict when it left it out ("safe to resubmit
    with the same --time? was there a checkpoint": the no to the same limit, then the save)."""
    if not first.lead.startswith(_VERDICTS) or whole.lead.startswith(_VERDICTS):
        return whole
    return answer_asks.add(first, "", whole)


def other_ranks(first: str, second: str) -> bool:
    """Two asks of one kind about different ranks ("did rank 1 …? why do ranks 0 and 2 …"): each is
    answered, not the message as one question about the first rank."""
    a, b = named_ranks(first), named_ranks(second)
    return bool(b) and set(a) != set(b)


def help_reply(v: JobView, rank: int | None = None) -> Reply:
    """What it can answer, with example questions fitted to this job (and to the rank asked about)."""
    ini = v.initiating
    examples = []
    if rank is not None and rank in v.ranks:
        examples = [
            f"why did rank {rank} fail?",
            f"what was rank {rank} doing?",
            f"show rank {rank}'s last lines",
        ]
    elif ini is not None:
        examples.append(f"why did rank {ini.rank} fail?")
    coll = v.with_role("collateral")
    if coll:
        examples.append(f"what was rank {coll[-1].rank} doing?")
    if v.numbers.oom is not None or v.numbers.kill is not None:
        examples.append("how far over the memory was it?")
    elif v.numbers.xid is not None:
        examples.append("is it hardware?")
    else:
        examples.append("is it safe to restart as is?")
    if len(examples) < 3:
        examples.append("what else could it be?")
    lead = t.can_answer(examples[:3])
    return Reply("help", [lead], known=False, lead=lead)
