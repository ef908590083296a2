"""When the waiting ranks timed out, and why that came so long after the first failure: "others hung on
what seqnum, and when did they time out", "why did ranks 1 to 7 fail only about ten minutes after rank
0's error?", "at what time did the rest give up?".

Why: the collective answer names the SeqNum and the wait as a span ("600 s after rank 0") and the
collateral answer one waiting rank's time, but neither says both clock times: when the rank that
started it failed and when the others came down, with the watchdog's timeout between them. The wait
window's sentence (`knowledge.answer_waited`) says exactly that, from the ranks' own lines.
"""

from __future__ import annotations

import re
from dataclasses import replace

from knowledge import answer_waited
from knowledge.answer_types import Ctx, Reply, reply

#: "when did they time out", "at what time did the others give up", "why … ten minutes after rank 0"
_ASK = re.compile(
    r"\b(?:when|(?:at )?what time) (?:did|do|had|were) (?:they|the others?|the rest|the other ranks"
    r"|the waiting ranks|ranks? \d[\d, and&-]*|everyone else)\b.{0,20}"
    r"\b(?:time ?out|timed ?out|timing out|give up|gave up|come down|came down|die|fail|error out)\b"
    r"|\bwhy\b.{0,60}\b(?:\d+|ten|five|fifteen|twenty|thirty)\s*(?:minutes?|mins?|seconds?|secs?|s)"
    r" (?:after|later than|behind)\b",
    re.IGNORECASE,
)
_CLOCK = re.compile(r"\d\d:\d\d:\d\d")


def with_timed_out(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the wait window's two clock times, when the message asks when the waiting ranks
    timed out (or why they failed minutes later) and the answer does not give both yet."""
    if not _ASK.search(text):
        return got
    said, ranks = answer_waited.sentence(c)
    clocks = [r.first_time or "" for r in ranks]
    if len(clocks) > 1 and clocks[0] >= min(clocks[1:]):
        return got  # the first rank's time is not before the others': no wait to tell
    if not said or all(t in got.lead for t in _CLOCK.findall(said)[:2]):
        return got
    shown = [r.first_line for r in ranks[:2] if r.first_line is not None]
    if got.intent in ("help", "explain"):
        return reply("hang", said, shown)
    lines = got.lines + [ln for ln in shown if all(ln.ref != x.ref for x in got.lines)]
    return replace(got, lead=f"{got.lead} {said}".strip(), lines=lines, material=[*got.material, said])
