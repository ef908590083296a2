"""Terse one-liners ("nccl?", "sig?", "err code", "dmesg cmd?", "odd rank out?", "which rnak hung"):
the same ask in full words, when the message as typed matched no intent.

People type two words in a thread and expect the fact; the intents are written for questions. A
message that got the help text and is short is rewritten (typos fixed, the bare noun made a
question) and asked again; the rewrite is kept only when it reaches a real answer, so it can only
turn a help reply into this job's fact, never change an answer that was found.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from knowledge.answer_types import Reply

#: words longer than this message are a question the intents should answer as typed
_MAX_WORDS = 5
#: common slips in a fast thread reply, fixed word by word
_TYPOS = {"rnak": "rank", "rakn": "rank", "wat": "what", "wht": "what", "wich": "which", "cmd": "command"}
#: a bare noun and the question it stands for, first match wins
_FULL: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(?:nccl|gloo|backend|nccl or gloo)$"), "was it nccl or gloo"),
    (re.compile(r"^(?:sig|signal|which sig|what sig)$"), "what signal was it"),
    (re.compile(r"^(?:err|error|errno)(?: code| num(?:ber)?)?$"), "what error code was it"),
    (re.compile(r"^(?:exit|return|ret)(?: ?code| status)$"), "what exit code was it"),
    (re.compile(r"^(?:dmesg|kernel log)(?: command| check| line)?$"), "what dmesg command should i run"),
    (re.compile(r"^odd (?:rank|one) out$"), "which rank was the odd one out"),
    # a bare noun of a lead on a phone ("ts pls", "tmo?", "sigterm ts"): the fact a reader expects of this job
    (re.compile(r"^(?:timestamp|time|when|failure (?:time|timestamp))$"), "when did it fail"),
    (re.compile(r"^(?:timeout|timeout value)$"), "what was the timeout"),
    (re.compile(r"^(?:timeout|timed out) timestamp$"), "when did it time out"),
    (re.compile(r"^(?:others|other ranks|the others|victims) timestamp$"), "when did the other ranks fail"),
    (re.compile(r"^(sigterm|sigkill|signal|kill|oom kill) timestamp$"), r"when was the \1 sent"),
    (re.compile(r"^(?:exact )?error line(?: exact)?$"), "quote the exact error line"),
    (re.compile(r"^checkpoint step$"), "which step was the checkpoint at"),
    (re.compile(r"^how much (?:did )?it tr(?:y|ied)(?: to allocate)?$"), "how much did it try to allocate"),
)
#: politeness and emphasis words that carry no ask ("ts pls", "err line exact")
_FILLER = frozenset({"please", "pls", "plz", "thx", "thanks", "exact", "exactly", "quick", "again"})


def _rewritten(text: str) -> str:
    """The message in full words: typos fixed, then a bare noun made its question ("" if unchanged)."""
    words = re.findall(r"[\w.-]+", text.lower())
    fixed = " ".join(_TYPOS.get(w, w) for w in words if w not in _FILLER) or " ".join(words)
    for pat, full in _FULL:
        if pat.fullmatch(fixed):
            return full
    return fixed if fixed != " ".join(words) else ""


def expand(text: str, got: Reply, asked: Callable[[str], Reply]) -> Reply:
    """`got`, or, when it is the help text for a short message, the answer to its full-word form."""
    if got.intent != "help" or len(text.split()) > _MAX_WORDS:
        return got
    full = _rewritten(text)
    if not full:
        return got
    again = asked(full)
    return again if again.intent != "help" else got
