"""Follow-ups about the port a job could not bind, asked without naming "the port".

Why: a job that failed with `EADDRINUSE` makes "the port" the subject of the thread, so "how do I find
what's sitting on it?" asks for the command that shows the port's holder, whatever "it" is in words,
and "next time I write --master_port 29500, is that fine?" asks whether a fixed port avoids the clash:
it does only if nothing else holds that port when the job starts, which is the very thing that failed.
Both are answered from the line that names the taken port; a job without one gets neither.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_verdicts as tv
from knowledge import answer_quote
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: the bind failure's own words
_IN_USE = re.compile(r"EADDRINUSE|address already in use", re.IGNORECASE)
#: the port a bind failure names ("port: 54661", "port 29500")
_PORT = re.compile(r"\bport:? (\d{2,5})\b", re.IGNORECASE)
#: "what's sitting on it", "who is holding that": the port's holder, asked with a pronoun
HOLDER_Q = re.compile(
    r"\b(?:what|who|which process)(?:s|\x27s| is| was)? (?:\w+ )?"
    r"(?:sitting|squatting|camping|holding|hogging|occupying|using|listening|bound)"
    r"(?: on| to)? (?:it|that|there)\b"
)
#: a port the reader means to set ("next time i write --master_port 29500 and is fine?")
_PROPOSED = re.compile(r"(?:--master[_-]port|master_port|--rdzv[_-]endpoint\S*?:|\bport)[= ]?(\d{2,5})\b")
#: asked as yes or no: will that port do
_FINE_Q = re.compile(
    r"\b(?:fine|ok|okay|good|safe|work|works|enough|solve|fix|fixes|avoid|help)\b"
    r"|\bis (?:that|it) (?:it|all)\b"
)


def _bind_line(c: Ctx) -> tuple[EvidenceLine, str] | None:
    """The line where the port was already taken, and the port it names."""
    for ln in [*c.view.key_line(), *c.view.evidence]:
        if _IN_USE.search(ln.text) and (found := _PORT.search(ln.text)) is not None:
            return ln, found.group(1)
    return None


def _node(c: Ctx) -> str:
    return c.view.nodes[0] if len(c.view.nodes) == 1 else "that node"


def holder(c: Ctx, m: Match) -> Reply | None:
    """ "How do I find what's sitting on it?" after a port clash: the command that shows the holder."""
    if not HOLDER_Q.search(m.text) or _bind_line(c) is None:
        return None
    return answer_quote.port(c, m)


def proposed(c: Ctx, m: Match) -> Reply | None:
    """ "Next time I pass --master_port 29500, is that fine?": only if that port is free at start-up;
    the port this job found taken is named, and how to have a free one picked."""
    bound = _bind_line(c)
    asked = _PROPOSED.search(m.text)
    if bound is None or asked is None or not _FINE_Q.search(m.text):
        return None
    line, used = bound
    port = asked.group(1)
    text = tv.PORT_PROPOSED_SAME if port == used else tv.PORT_PROPOSED
    return reply("port", text.format(port=port, used=used, ref=ref(line), node=_node(c)), [line])


#: asked what to launch with so it cannot clash again ("what do i put on the torchrun line so it never
#: collides", "how do we stop the port clash next time")
_NEVER_AGAIN = re.compile(
    r"\b(?:torchrun|launch|launcher|srun|command) (?:line|cmd|command|args?|flags?)\b"
    r"|\bnever (?:collides?|clash\w*|happens?|conflicts?)\b"
    r"|\b(?:avoid|prevent|stop)\w* (?:this|it|that|the|a)? ?(?:port )?(?:clash|collision|conflict)\w*"
)
#: a port the reader takes the summary to say ("the default 29500", "29500 isn't what we launched with")
_SAID_PORT = re.compile(r"\b(\d{4,5})\b")


def never_again(c: Ctx, m: Match) -> Reply | None:
    """ "What do I put on the torchrun line so a single-node job never collides again?": the port this
    job found taken (not the default a reader assumed), then the flags that have a free one picked."""
    bound = _bind_line(c)
    if bound is None or not _NEVER_AGAIN.search(m.text):
        return None
    line, used = bound
    lead = tv.PORT_NEVER_AGAIN.format(used=used, ref=ref(line))
    said = [p for p in _SAID_PORT.findall(m.text) if p != used]
    if said:  # "the summary says the default 29500": not the port this job asked for
        lead = f"{tv.PORT_NOT_SAID.format(said=said[0], used=used)} {lead}"
    return reply("port", lead, [line])


__all__ = ["HOLDER_Q", "holder", "never_again", "proposed"]
