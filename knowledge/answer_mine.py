"""Is it my model (my code, my data), or the machine? asked in plain words, for the failure modes whose
answer does not depend on reading the code: a disk that filled on a save, a port already taken at
launch, the scheduler's time limit (an Xid is left to the hardware answer: some Xids are the code's).

"Is this a bug in my model? the loss looked fine up to then": the answer is no, with what failed
instead and the line that shows it, then (asked about the loss) the logged values that back it. Why:
the usual answers gave the losses, or said "no sign of hardware", and never answered whose it was.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import answer_evidence, answer_job
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match
from knowledge.wording import phase_words

_MINE = (
    r"(?:my|our|the) (?:own )?"
    r"(?:model|code|script|training (?:code|loop|script)|data(?:set)?|net(?:work)? arch\w*)"
)
#: "is this a bug in my model?", "is it my code?", "something wrong with our model?", "my code or the cluster"
MINE_Q = re.compile(
    rf"\b(?:bug|problem|issue|mistake|error|something wrong|wrong) (?:in|with) {_MINE}\b"
    rf"|\b(?:is|was) (?:it|this|that) {_MINE}\b(?! (?:line|file))"
    rf"|\b{_MINE}'?s? (?:fault|bug|problem)\b"
    rf"|\b{_MINE} or (?:the )?(?:cluster|infra\w*|machine|box|node|hardware|gpu|disk|system|platform)\b"
)
#: asked about the loss too ("the loss looked fine up to then")
_LOSS = re.compile(r"\bloss(?:es)?\b")


def _not_mine(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """The no, with what failed instead and its line; ("", []) for a failure the code may own."""
    ini, key = c.view.initiating, c.view.key_line()
    at = ref(key[0]) if key else "its log"
    cat = c.view.category
    if ini is not None and cat.startswith("disk"):
        doing = f" while {phase_words(ini.phase)}" if ini.phase else ""
        return tv.MINE_DISK.format(rank=ini.rank, doing=doing, ref=at), key
    if answer_job.no_worker_started(c):
        return tv.MINE_LAUNCH.format(what=t.category_words(cat), ref=at), key
    end = answer_job.scheduler_end(c) if ini is None else None
    if end is not None and end.reason == "TIME LIMIT":
        return tv.MINE_TIME.format(ref=ref(end.line)), [end.line]
    return "", []


def mine(c: Ctx, m: Match) -> Reply | None:
    """ "Is this a bug in my model?": no, and what failed instead (the line), then the logged losses
    when the ask leans on them; None for failures whose cause may be the job's own code."""
    if not MINE_Q.search(m.text):
        return None
    said, lines = _not_mine(c)
    if not said:
        return None
    if _LOSS.search(m.text) and c.view.initiating is not None:
        losses = answer_evidence.loss(c, m)
        said = f"{said} {losses.lead}"
        lines = [*lines, *(x for x in losses.lines if x not in lines)]
    return reply("alternatives", said, lines)


__all__ = ["MINE_Q", "mine"]
