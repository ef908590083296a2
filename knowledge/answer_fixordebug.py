"""A change weighed as a fix or only a debug step ("is num_workers=0 actually a fix or just a debug
step?", "detect_anomaly: a fix or a diagnostic?", "is CUDA_LAUNCH_BLOCKING=1 a real fix or a
workaround?").

The answer says which it is first, what the change does, and, for a debug step, the change that fixes
this job's failure (the entry's fix). Why: the ask was read as "would it have helped" and answered
"likely, yes", which leaves the reader shipping a debug setting (serial data loading, anomaly
detection's slowdown) as the fix.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_whatif as tw
from knowledge.answer_types import Ctx, Reply, first_sentence, reply
from knowledge.intents import Match

_DEBUG_WORDS = (
    r"(?:debug\w*|diagnos\w*|workaround|work-around|band-?aid|stopgap|hack|mitigation|repro\w*|test)"
)
#: "a fix or just a debug step", "a real fix or a workaround", "debugging aid or the fix?"
ASKED = re.compile(
    r"\bfix(?:es)?\b[^?]{0,25}\bor\b[^?]{0,25}\b" + _DEBUG_WORDS + r"\b"
    r"|\b" + _DEBUG_WORDS + r"\b[^?]{0,25}\bor\b[^?]{0,25}\b(?:the |a |an |real |actual |proper )*fix\b"
)
#: the debug settings a reader may put as the fix, each with what it does (texts in followups_whatif)
_DEBUG_STEPS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"\bnum_workers\s*(?:=|to|of)?\s*0\b|\b(?:no|zero|0) (?:data ?loader )?workers\b"),
        "workers0",
    ),
    (re.compile(r"\bdetect_anomaly\b|\banomaly detection\b"), "anomaly"),
    (re.compile(r"\bcuda_launch_blocking\b"), "launch_blocking"),
    (re.compile(r"\btorch_distributed_debug\b"), "dist_debug"),
    (re.compile(r"\bnccl_debug\b"), "nccl_debug"),
)


def fix_or_debug(c: Ctx, m: Match) -> Reply | None:
    """A debug setting weighed as the fix: a debug step, what it does, and this job's fix."""
    text = m.text.lower()
    if not ASKED.search(text):
        return None
    key = next((k for pat, k in _DEBUG_STEPS if pat.search(text)), None)
    if key is None:
        return None
    lead = tw.DEBUG_STEPS[key]
    if c.steps:
        lead += " " + tw.DEBUG_THE_FIX.format(fix=first_sentence(c.steps[0]))
    ini = c.view.initiating
    return reply("whatif", lead, [ini.first_line] if ini is not None and ini.first_line else [])


__all__ = ["fix_or_debug"]
