"""How to tell the fix worked, when a message asks it beside another ask: "after the fix how do I know
it worked - what should the rerun get past and what do I check for memory?".

Why: the message's other ask (is a rerun safe, what should it get past) decides its answer, which says
the step to get past but not the check; the job's verify command (`free -g && sacct … MaxRSS …`) is
the memory check the reader asked for. It is added when the answer does not quote it yet.
"""

from __future__ import annotations

import re

from knowledge import answer_advice, answer_asks
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match

#: asks how to tell the fix worked, or what to check on the rerun
VERIFY_Q = re.compile(
    r"\bhow (?:do|can|would|will|should) (?:i|we|you) (?:\w+ )?(?:check|verify|confirm|know|tell|test|prove"
    r"|make sure)\b[^?]{0,40}\b(?:fix\w*|worked|works|solved|gone|helped)\b"
    r"|\bwhat (?:do|should|can) (?:i|we) (?:check|watch|monitor|look at|measure) (?:for|on|in) "
    r"(?:the )?(?:memory|ram|rss|oom|host memory|gpu memory)\b"
)


def with_verify(c: Ctx, whole: Match, got: Reply) -> Reply:
    """`got` with the job's verify command, when asked how to tell the fix worked and not quoted yet."""
    if got.intent == "verify" or not VERIFY_Q.search(whole.text):
        return got
    check = answer_advice.verify(c, whole)
    if check is None or not check.code or check.code.lower() in answer_asks.said(got):
        return got
    if got.intent == "help":
        return check
    command = "; ".join(check.code.splitlines())
    text = f"{check.lead.rstrip().rstrip(':')}: `{command}`. {check.action}".strip()
    return answer_asks.with_lead(got, text, [])


__all__ = ["VERIFY_Q", "with_verify"]
