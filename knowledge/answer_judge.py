"""Premises and challenges settled by this job's facts, added to whatever the message was answered.

"is the box itself broken?", "whose fault is it?", "network ticket as well?", "a second bug?", "same as
last week?", "rank 2 printed nothing, so it's healthy?", "was it actually a memory problem?": the
intent's answer gives the verdict, but a challenge is only settled by the job's own lines — the
node's kernel log to read, the failing rank's own error (its raise, its RSS at the kill), where the
other ranks waited and what they printed, the silent rank's last line. Other incidents are not in
these logs: that is said, then this job's facts are given to compare against.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_judge as tg
from knowledge import (
    answer_advice,
    answer_asks,
    answer_challenge,
    answer_code,
    answer_hostmem,
    answer_places,
    answer_quote,
    answer_rerun,
    answer_silent,
)
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match, named_ranks
from knowledge.jobfacts_answers import RankView, written_by

#: the node, box or GPU doubted ("is the box itself broken?", "is gpu-01 bad?", "bad GPU or code?")
_NODE = re.compile(
    r"\b(?:is|was) (?:it|this|that) (?:the|a bad|a) (?:node|box|host|machine|hardware)\b"
    r"|\b(?:node|box|host|machine|gpu|card)(?:-?\d+)?\b(?: itself)?(?: just)? (?:is |was )?"
    r"(?:bad|broken|faulty|flaky|dead|sick)\b"
    r"|\bbad (?:gpu|node|box|host|card|hardware)\b|\bdrain\b"
)
#: blame or a second fault asked ("whose fault", "network flake?", "network ticket", "a second bug?")
_BLAME = re.compile(
    r"\bwhose fault\b|\bwho(?:'s| is)? (?:to blame|at fault|responsible)\b"
    r"|\bnetwork (?:flake|ticket|issue|problem|glitch)\b|\b(?:second|separate|another|other) bug\b"
)
#: another incident, which these logs cannot show ("same as last week?", "how often do we see this")
_ELSEWHERE = re.compile(
    r"\blast (?:week|month|time|night)\b|\byesterday\b"
    r"|\bhow often\b(?![^?]{0,30}\b(?:logged|logging|printed|written)\b)"  # not a cadence
)
#: the silent rank taken for healthy ("didn't print any error, so it's healthy?")
_HEALTHY = re.compile(r"\b(?:healthy|fine|ok|okay)\b(?:,? right)?\s*\?")
#: a memory cause doubted ("was this actually a memory problem?")
_MEMORY = re.compile(r"\bmemory (?:problem|issue|error)\b")
#: what has to change asked with the check ("what do we check and what has to change")
_CHANGE = re.compile(
    r"\bwhat (?:has|needs|do we need|should we|must) (?:to )?change\b"
    r"|\b(?:doesn't|does not|won't|will not|never) happens? again\b"
)
#: where a line says it, after a grep found nothing ("I grep'd for X and got nothing")
_GREPPED = re.compile(r"\bgrep\w*\b.*\b(?:nothing|no hits?|no match\w*|not there)\b")
#: a port number named ("the default 29500")
_PORT_NAMED = re.compile(r"(?<![\d.])\d{4,5}(?![\d.])")
#: the ask the port answer is put, for its holder command (not the user's words: their port may differ)
_HOLDER_ASK = "what is holding the port"
#: an error line's leading source position ("[/__w/.../pair.cc:553] ")
_POSITION = re.compile(r"^\[[^\]]*\]\s*")


def with_facts(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the job's facts a challenge in `text` needs, each only when not already said."""
    if got.intent == "help":
        return got
    low = text.lower()
    parts: list[str] = [tg.NOT_IN_LOGS] if _ELSEWHERE.search(low) else []
    shown: list[EvidenceLine] = []
    if (ini := c.view.initiating) is not None:
        _challenged(c, ini, low, parts, shown)
    _asked_more(c, low, parts, shown)
    fresh = answer_asks.new_sentences(got, " ".join(p for p in parts if p))
    if not fresh:
        return got
    return answer_asks.with_lead(got, " ".join(dict.fromkeys(fresh)), shown[:1])


def _challenged(c: Ctx, ini: RankView, low: str, parts: list[str], shown: list[EvidenceLine]) -> None:
    """The rank facts each challenge needs: its own failure, the node's log, the others, its silence."""
    if (
        _NODE.search(low)
        or _ELSEWHERE.search(low)
        or (_MEMORY.search(low) and "memory" not in c.view.category)
    ):
        _own(c, ini, parts, shown)
    if _NODE.search(low):
        parts.append(_node_check(c, ini))
    if _BLAME.search(low):
        _others(c, ini, low, parts, shown)
    if answer_silent.silent(ini) and (_HEALTHY.search(low) or _ELSEWHERE.search(low)):
        parts += [answer_silent.quiet(c, ini), answer_silent.next_steps(c, ini)]


def _asked_more(c: Ctx, low: str, parts: list[str], shown: list[EvidenceLine]) -> None:
    """A port taken for another ("someone else was on 29500?", "like last week?"): the port really
    taken and the command that shows its holder; a grep that found nothing: the check to run; what
    has to change: the entry's step that changes this job, not only the check."""
    ask = Match(intent=None, score=0.0, rank=None, node=None, text=low)
    if c.view.category.startswith("rendezvous") and (_PORT_NAMED.search(low) or _ELSEWHERE.search(low)):
        said, lines = answer_challenge.refute(c, low)
        parts.append(said)
        shown += lines
        # the port answer's own "what holds it" form: the port taken and the command naming its holder
        held = answer_quote.port(c, Match(intent="port", score=0.0, rank=None, node=None, text=_HOLDER_ASK))
        if held is not None:
            parts.append(held.lead + (f" `{held.code}`" if held.code and "\n" not in held.code else ""))
    if _GREPPED.search(low):
        check = answer_advice.check_command(c, ask)
        if check is not None and check.code:
            parts.append(tg.CHECK_IT.format(code="; ".join(check.code.splitlines())))
    if _CHANGE.search(low) and (step := answer_rerun.change_step(c)):
        parts.append(tg.CHANGE.format(step=step))


def _node_check(c: Ctx, ini: RankView) -> str:
    """The node's kernel log to read, at the failure's time (its node named only when a line names it)."""
    node = f"rank {ini.rank}'s node {ini.node}" if ini.node else f"rank {ini.rank}'s node"
    return tg.NODE_CHECK.format(node=node, at=ini.first_time or c.view.end or "the failure")


def _own(c: Ctx, ini: RankView, parts: list[str], shown: list[EvidenceLine]) -> None:
    """The failing rank's own fact: its RSS at a kernel kill, the line of its code that raised, and the
    error it printed itself (a CUDA error under an Xid, not the kernel's line)."""
    killed = answer_hostmem.kill_fact(c)
    if killed is not None:
        lead, lines = killed
        parts.append(lead)
        shown += lines[:1]
    found = answer_code.user_frame(c, ini.rank)
    if found is not None:
        frame, code, _ = found
        file = frame.path.rsplit("/", 1)[-1]
        parts.append(
            tg.OWN_RAISE.format(
                rank=ini.rank, file=file, line=frame.number, code=f": `{code}`" if code else ""
            )
        )
    own = next(
        (ln for ln in pool(c) if written_by(ln, ini) and re.search(r"\w(?:Error|Exception): ", ln.text)), None
    )
    if own is not None:
        msg = own.text[re.search(r"\w+(?:Error|Exception): ", own.text).start() :]  # type: ignore[union-attr]
        parts.append(tg.OWN_ERROR.format(rank=ini.rank, ref=f"{own.source}:{own.line}", text=msg[:160]))
        shown.append(own)


def _others(c: Ctx, ini: RankView, text: str, parts: list[str], shown: list[EvidenceLine]) -> None:
    """Where each rank was (the first rank's call, the others' collective) and what the others printed."""
    placed = answer_places.where_all(c)
    if placed is not None:
        parts.append(placed.lead)
        shown += placed.lines[:1]
    coll = [r for r in c.view.with_role("collateral") if r.first_line is not None]
    named = [r for r in coll if r.rank in named_ranks(text)]
    coll = named + [r for r in coll if r not in named]
    if coll and (first := coll[0].first_line) is not None:
        msg = first.text.split("Error: ", 1)[-1]
        msg = _POSITION.sub("", msg).split(". ", 1)[0]
        same = [r.rank for r in coll if r.first_line is not None and msg[:40] in r.first_line.text]
        parts.append(
            tg.OTHERS_PRINTED.format(
                ranks=rl(same), text=msg[:120], ref=f"{first.source}:{first.line}", ini=ini.rank
            )
        )


__all__ = ["with_facts"]
