"""Follow-ups about the port a job could not bind, asked without naming "the port".

Why: a job that failed with `EADDRINUSE` makes "the port" the subject of the thread, so "how do I find
what's sitting on it?" asks for the command that shows the port's holder, whatever "it" is in words,
and "next time I write --master_port 29500, is that fine?" asks whether a fixed port avoids the clash:
it does only if nothing else holds that port when the job starts, which is the very thing that failed.
Both are answered from the line that names the taken port; a job without one gets neither.
"""

from __future__ import annotations

import re
from dataclasses import replace

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
    r"(?: on| to)? (?:it|that|there|(?:the |that )?port|\d{4,5})\b"
    # "someone else's job squatting on our port?": another holder guessed, to be found
    r"|\b(?:someone|somebody|something|another|other)\b[^?]{0,30}\b(?:squatting|sitting|camping|holding"
    r"|hogging|occupying|using|bound to|listening on)(?: on)? (?:our |the |my |that |this )?port\b"
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


#: "how do i verify the port is free before relaunch", "check the port isn't in use", "is it free now?"
FREE_Q = re.compile(
    r"\b(?:verify|check|confirm|make sure|ensure|see|test|know)\w*\b[^?]{0,30}?\b(?:port|it)\b[^?]{0,12}?"
    r"\b(?:is |'s )?(?:free|available|unused|open|clear|not (?:in use|taken|bound))\b"
    r"|\bis (?:the |that |this )?(?:port|it) (?:free|available|clear|still (?:taken|in use|busy))\b"
)


def free_check(c: Ctx, m: Match) -> Reply | None:
    """ "How do I verify the port is free before relaunch?" after a port clash: the command that shows
    whether anything listens on it, on the node, and how to read its output."""
    bound = _bind_line(c)
    if bound is None or not FREE_Q.search(m.text):
        return None
    line, used = bound
    held = answer_quote.port(c, replace(m, text="how do i see what is holding the port"))
    if held is None or not held.code or "\n" in held.code:
        return None
    node = c.view.nodes[0] if len(c.view.nodes) == 1 else "the node you launch on"
    lead = tv.PORT_FREE_CHECK.format(node=node, port=used, check=held.code, ref=ref(line))
    return reply("port", lead, [line])


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


#: a port put as the one that was taken ("so 29500 was taken?", "the default port was busy")
_TAKEN = re.compile(r"\b(?:taken|busy|in use|occupied|clash\w*|collid\w*|collision|conflict\w*|bound)\b")


def wrong_port(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """ "We're on the default 29500, so 29500 was taken?": not that one, when the error names another
    port; the port the line names, and the line."""
    bound = _bind_line(c)
    if bound is None or not _TAKEN.search(text) or _PROPOSED_ASK.search(text):
        return "", []
    line, used = bound
    said = [p for p in _SAID_PORT.findall(text) if p != used and int(p) >= 1024]
    if not said or used in text:
        return "", []
    return tv.PORT_PREMISE.format(said=said[0], used=used, ref=ref(line)), [line]


#: a port the reader means to use next, not one it takes to have clashed ("next time 29500, fine?")
_PROPOSED_ASK = re.compile(r"\bnext time\b|\bif i (?:use|set|pass|write)\b|\bswitch (?:to|it)\b")


#: "which IPs / ports show up in the errors", "anything talking to an outside address?": every pair
ADDRESSES_Q = re.compile(
    r"\b(?:ips|ip ?/ ?ports?|ips ?/ ?ports?|ip addresses|addresses|ports|hosts? ?/ ?ports?)\b"
    r"|\b(?:external|outside|non-?loopback|public|foreign) (?:address|ip|host)"
    r"|\banything (?:non-?loopback|external)\b"
)
#: `[127.0.0.1]:41668`, `10.0.0.5:29500`, `gpu-01:29500`, `localhost:29500`; never a clock or `UID:1000`
_ADDRESS = re.compile(
    r"(?<![\w.:-])\[?(localhost|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[a-z][\w-]*[0-9][\w.-]*)\]?"
    r":([0-9]{4,5})\b(?![0-9:-]|\.[0-9])",
    re.IGNORECASE,
)
_LOOPBACK = re.compile(r"^(?:localhost|127\.\d+\.\d+\.\d+)$", re.IGNORECASE)


def _pairs(c: Ctx) -> list[tuple[str, str, EvidenceLine, int | None]]:
    """Each host:port a failing line names, once, with the line and the rank that wrote it."""
    seen: set[str] = set()
    out: list[tuple[str, str, EvidenceLine, int | None]] = []
    ranked = [(r.first_line, r.rank) for r in sorted(c.view.ranks.values(), key=lambda r: r.rank)]
    lines = [*ranked, *((ln, None) for ln in c.view.evidence)]
    for ln, rank in lines:
        if ln is None:
            continue
        for found in _ADDRESS.finditer(ln.text):
            pair = f"{found.group(1)}:{found.group(2)}"
            if pair not in seen:
                seen.add(pair)
                out.append((found.group(1), found.group(2), ln, rank))
    return out


def addresses(c: Ctx, m: Match) -> Reply | None:
    """ "Which IPs / ports are in the errors, anything external?": each host:port a failing rank's line
    names (its rank and line), then whether any is off this machine; a port clash has its own answers."""
    if not ADDRESSES_Q.search(m.text) or _bind_line(c) is not None:
        return None
    pairs = _pairs(c)
    if not pairs:
        if not c.view.nodes:
            return None
        nodes = ", ".join(c.view.nodes)
        return reply("port", tv.PORT_NO_ADDRESS.format(nodes=nodes), c.view.key_line())
    listed = "; ".join(
        f"{host}:{port} ({f'rank {rank}, ' if rank is not None else ''}{ref(ln)})"
        for host, port, ln, rank in pairs
    )
    outside = sorted({host for host, _, _, _ in pairs if not _LOOPBACK.match(host)})
    backend = "gloo" if any("gloo" in ln.text for _, _, ln, _ in pairs) else "the collective backend"
    tail = (
        tv.PORT_EXTERNAL.format(hosts=", ".join(outside))
        if outside
        else tv.PORT_LOOPBACK.format(backend=backend)
    )
    shown = list({ref(ln): ln for _, _, ln, _ in pairs}.values())[:3]
    return reply("port", f"{tv.PORT_ADDRESSES.format(listed=listed)} {tail}", shown)


__all__ = [
    "ADDRESSES_Q",
    "FREE_Q",
    "HOLDER_Q",
    "addresses",
    "free_check",
    "holder",
    "never_again",
    "proposed",
    "wrong_port",
]
