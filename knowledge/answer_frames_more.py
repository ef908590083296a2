"""The ranks' frames for the stack asks the frame answer's own cues miss, and the peer address in a
gloo error ("where were ranks 0 and 2 in the python stack when the peer vanished", "which ranks were
in all_reduce vs broadcast, broadcast from which src?", "which agent frame kicked off the rendezvous?",
"where in torchrun did it die", "what error did ranks 0/2 get and which peer port").

Why: these ask for the frames (the user's call with its arguments, the launcher's agent frames) in
words the frame answer does not read as a frames ask, so the answer gave the roles alone; and a port
ask about a gloo peer got "no port appears", though the ranks' own error names the peer's address.
Frames come from `answer_frames_asked` (the same walk); an agent ask adds the launcher's agent
frames; the peer address comes from the asked ranks' own kept error line.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.ranks import ranges
from denpex.core.texts import followups_peerport as tp
from knowledge import answer_code, answer_frames_asked
from knowledge.answer_types import Ctx, Reply, rank_lines, reply
from knowledge.lines import parse_rank

_OPS = r"(?:all_?reduce|broadcast|all_?gather|barrier|reduce_?scatter|all_?to_?all|send|recv)"
#: a stack or frames ask in words the frame answer does not read as one
_ASK = re.compile(
    r"\b(?:python|call|py) stack\b|\bin the stack\b|\bagent (?:frame|function|call)s?\b"
    r"|\b(?:which|what) (?:agent|launcher|torchrun|elastic) (?:frame|function|call|line)s?\b"
    r"|\bwhere in (?:torchrun|the agent|(?:torch ?)?elastic|the launcher)\b"
    r"|\b(?:from|with) which (?:src|source|root)\b|\bsrc\b"
    rf"|\b{_OPS}\b.{{0,20}}\b(?:vs\.?|versus|or)\b.{{0,20}}\b{_OPS}\b",
    re.IGNORECASE,
)
_AGENT = re.compile(r"\bagent\b", re.IGNORECASE)
_PORT_ASK = re.compile(r"\b(?:peer|remote)\b.{0,30}\bports?\b|\bports?\b.{0,30}\b(?:peer|remote)\b", re.I)
#: a peer's address in a backend error (`Read error [127.0.0.1]:1931: Connection reset by peer`)
_PEER = re.compile(r"\[([\d.]+|[0-9a-f:]+)\]:(\d{2,5})")
_NO_PORT = re.compile(r"No port appears in this job's kept lines:[^.]*\.\s*")
_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\s*")
_CC_PATH = re.compile(r"\[/\S*/(\w+\.cc:\d+)\]")
_TAIL = re.compile(r"\.?\s+This is typically.*$")


def _agent_lines(c: Ctx) -> str:
    """ "line 528 line 67": the launcher's agent frames' numbers, so the walk keeps them."""
    lines = [ln for t in c.d.tails for ln in t.lines] + list(c.view.evidence)
    own = [ln for ln in lines if parse_rank(ln.text).rank is None]
    frames = answer_code._frames(sorted({(x.source, x.line): x for x in own}.values(), key=lambda x: x.line))
    return " ".join(f"line {f.number}" for f in frames if "/agent/" in f.path)


def _frames(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the asked ranks' frames; a help answer is replaced by them."""
    asked = f"{text} traceback"  # the frame answer's own cue: this message asks for the frames
    if _AGENT.search(text):
        asked = f"{asked} {_agent_lines(c)}"
    if got.intent != "help":
        return answer_frames_asked.with_frames(c, asked, got)
    said = answer_frames_asked.with_frames(c, asked, reply("code", ""))
    return replace(said, lines=got.lines) if said.lead else got


def _peer_lines(c: Ctx) -> list[tuple[int, EvidenceLine]]:
    """Each failing rank's first kept line naming a peer's address."""
    out = []
    for r in sorted(c.view.ranks.values(), key=lambda r: r.rank):
        found = [ln for src in rank_lines(c, r.rank).values() for ln in src if _PEER.search(ln.text)]
        if found:
            out.append((r.rank, found[0]))
    return out


def _peers(c: Ctx, got: Reply) -> Reply:
    """`got` with the peer address each rank's error names, and without a "no port appears" sentence."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    shown: list[EvidenceLine] = []
    for rank, ln in _peer_lines(c):
        m = _PEER.search(ln.text)
        assert m is not None
        error = _TAIL.sub("", _CC_PATH.sub(r"[\1]", _PREFIX.sub("", ln.text).strip()))
        groups.setdefault((error[:200], m.group(1), m.group(2)), []).append(rank)
        shown.append(ln)
    if not groups:
        return got
    said = [tp.peer(ranges(rs), len(rs) > 1, err, host, port) for (err, host, port), rs in groups.items()]
    lead = _NO_PORT.sub("", got.lead).strip()
    if got.intent == "help":
        return reply("port", " ".join(said), shown[:2])
    lines = shown[:2] + [ln for ln in got.lines if ln not in shown]
    return replace(got, lead=f"{' '.join(said)} {lead}".strip(), lines=lines, material=[*said, *got.material])


def with_more(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the frames a stack ask wants and the peer address a peer-port ask wants."""
    if _ASK.search(text):
        got = _frames(c, text, got)
    if _PORT_ASK.search(text) or (_NO_PORT.search(got.lead) and re.search(r"\bports?\b", text, re.I)):
        got = _peers(c, got)
    return got
