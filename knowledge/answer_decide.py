"""The drain or rerun decision (or the story) a message asks next to another question, answered too.

"killed = oom killer right? … drain the host or just restart it", "rank5 `OutOfMemoryError …` — which
box and is the gpu bad", "what step did we reach, and if i just resubmit will it work?": the first ask
(or a pasted line) picks the answer, and the decision the asker is about to act on was dropped. Here a
message that also asks whether the node is at fault gets the hardware answer's new sentences, and one
that asks whether to rerun gets the restart verdict's (will it fail again, what to change first); a
pasted line asked "whats going on" gets the story's (who failed first, with what, and the others).
"""

from __future__ import annotations

import re
from dataclasses import replace

from knowledge import answer_asks, answer_overview, answer_rerun
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match

#: asks whether the node or its GPU is at fault ("bad gpu?", "bad dimm?", "drain the host?", "hw?")
NODE_Q = re.compile(
    r"\b(?:bad|broken|faulty|dying|dead|flaky) (?:gpu|node|host|box|dimm|ram|mem(?:ory)?|card|hardware|hw)\b"
    r"|\b(?:is|was) (?:the |this |that |it )?(?:gpu|node|host|box|card)\b[^?.]{0,12}"
    r"\b(?:bad|broken|faulty|dying)\b"
    r"|\bhw\b|\bhardware\b|(?<!down the )(?<!down a )\bdrain\w*\b"  # not "down the drain": wasted
)
#: asks whether to run it again as it is ("just restart it", "if i resubmit the same thing will it work")
RERUN_Q = re.compile(
    r"\b(?:just|simply|safe to|ok to|okay to|can (?:i|we)|should (?:i|we)|or) (?:\w+ )?"
    r"(?:re-?submit|re-?start|re-?run|re-?launch)\w*\b"
    r"|\b(?:same thing|same config|as is)\b[^?]{0,30}\b(?:work|again)\b"
)

#: asks what is happening at all ("whats going on", "what happened here"), whatever line it pastes
HAPPENED_Q = re.compile(r"\b(?:what\W?s|what is) (?:going on|happening)\b|\bwhat (?:happened|went wrong)\b")


def decided(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got`, then the story (what happened, asked next to a pasted line), the hardware answer (a node
    asked about) and the restart verdict (a rerun asked about), each only when the answer is of another
    kind and only its sentences not said yet."""
    if got.intent in ("hardware", "restart", "help", "summary"):
        return got
    if HAPPENED_Q.search(m.text) and (story := answer_overview.summary(c, m)) is not None:
        got = answer_asks.add(got, m.text, story)  # a pasted line, "whats going on": the story too
    if NODE_Q.search(m.text) and (node := answer_overview.hardware(c, m)) is not None:
        got = answer_asks.add(got, m.text, _untold(got, node))
    if RERUN_Q.search(m.text) and (again := answer_overview.restart(c, m)) is not None:
        step = answer_rerun.change_step(c)
        told = step and step.lower() in answer_asks.said(got)  # the hardware answer said the change
        if told:
            kept = [s for s in answer_asks.sentences(again.lead) if step not in s]
            again = replace(again, lead=" ".join(kept))
        got = answer_asks.add(got, m.text, _untold(got, again))
    return got


#: where a sentence ends for this check: also before a digit ("… localhost. 4 ranks ran …"), since
#: the answers added here repeat the figures' sentences the first answer already holds
_PIECE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`*_\"'(])")


def _untold(got: Reply, later: Reply) -> Reply:
    """`later` without the sentences `got` already says."""
    told = answer_asks.said(got)
    kept = [p for p in _PIECE.split(later.lead) if p.strip() and p.lower().rstrip(".") not in told]
    return replace(later, lead=" ".join(kept))


__all__ = ["HAPPENED_Q", "NODE_Q", "RERUN_Q", "decided"]
