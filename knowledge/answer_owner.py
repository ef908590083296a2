"""Which team a ticket goes to ("model team or infra ticket?", "who owns this", "infra or the ML folks?").

An on-call reader files the failure with one team; the summary names a cause but not whose it is. The
answer names the owner only when this job's own facts decide it: a GPU fault (Xid) on the node is the
cluster's; a failure the job's own code, config or launch decides (a desync between ranks' collectives,
a memory blow-up of its own save or step, a NaN, its own exception) is the model team's. Any other
failure (a timeout whose silent rank is unexplained, a segfault, a port, a limit, a disk) may be either
side's: that is said, with the cause, rather than a guess.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_owner as to
from denpex.core.texts import thread as t
from knowledge import answer_advice, answer_code
from knowledge.answer_doubt_owner import JOBS_OWN
from knowledge.answer_types import Ctx, Reply, first_sentence, reply
from knowledge.intents import Match, asks

_TEAM = r"(?:model|ml|research|researchers?|training|modell?ing|app|application)"
_INFRA = r"(?:infra\w*|cluster|platform|ops|sre|admins?)"
#: the owner asked: two teams put side by side, a ticket's destination, or who owns it
#: two sides named are a ticket's only with a team or ticket word ("training or cluster issue?" is a cause)
_ROUTED = r"(?=.*\b(?:team|ticket|owns?|owner|side|folks|people|escalate|file|route|assign|page|jira)\b)"
OWNER_Q = re.compile(
    rf"{_ROUTED}\b{_TEAM}(?: team| side| folks| people| code| owners?)?\b.{{0,25}}"
    rf"\b(?:or|vs\.?|versus)\b.{{0,12}}\b{_INFRA}\b"
    rf"|{_ROUTED}\b{_INFRA}(?: team| side| folks| people)?\b.{{0,25}}"
    rf"\b(?:or|vs\.?|versus)\b.{{0,12}}\b{_TEAM}\b"
    r"|\bwho (?:owns|should own|gets|takes) (?:it|this|that|the (?:ticket|fix|bug|failure))\b"
    r"|\b(?:which|what) team\b|\bwhose (?:ticket|court|problem|move)\b"
    r"|\bticket (?:to|for) (?:which|what|whom|who)\b|\bwho do (?:i|we) (?:file|ticket|assign)\b"
)


#: another ask in the same message ("tl;dr …, and who owns the fix?", "first command + who owns it")
_OTHER_ASK = re.compile(r"\btl ?;? ?dr\b|\bsummar|\bcommand|\bcmd\b|\bhandover\b|\bstandup\b|\s\+\s|\band\b")


def owner(c: Ctx, m: Match) -> Reply | None:
    """Whose ticket this is, with the job's cause that decides it; None when the owner is not asked."""
    if not OWNER_Q.search(m.text) or len(asks(m.text)) > 1 or _OTHER_ASK.search(m.text):
        return None  # "tl;dr, and who owns the fix?": the other ask leads, its answer says whose it is
    ini = c.view.initiating
    key = [ini.first_line] if ini is not None and ini.first_line is not None else []
    if xid := answer_advice.xid_lines(c):
        node = ini.node if ini is not None and ini.node else "the node"
        return reply("owner", to.OWNER_INFRA.format(node=node, why=_why(c)), xid[:1])
    desync = answer_code.desync_note(c)
    if desync:
        return reply("owner", to.OWNER_MODEL_DESYNC.format(why=desync), key)
    if c.view.category in JOBS_OWN:
        return reply("owner", to.OWNER_MODEL.format(what=t.category_words(c.view.category), why=_why(c)), key)
    return reply("owner", to.OWNER_EITHER.format(what=t.category_words(c.view.category), why=_why(c)), key)


def _why(c: Ctx) -> str:
    """The entry's cause in one sentence (empty without an entry)."""
    return first_sentence(c.entry.root_cause) + "." if c.entry is not None and c.entry.root_cause else ""


__all__ = ["OWNER_Q", "owner"]
