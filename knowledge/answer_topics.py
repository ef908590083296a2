"""Topics a message names in passing that its answer left out, each answered by its own ask.

A postmortem or how-to message often lists what it wants in one clause ("impact: step lost, nodes
involved, and was there a checkpoint?"; "how far did it get, step-wise, and what's the cheapest repro
command"; "the others timed out at 03:24, what's the gap"). The splitter sees one ask, so the answer
speaks to its first topic only. Each topic here is a phrase that names one fact of the diagnosis and a
plain ask that fetches it; the ask's answer is added (its new sentences only) when it is another kind
of answer than the one given, so an answer that already covers the topic is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from knowledge import answer_asks
from knowledge.answer_types import Reply

Ask = Callable[[str], Reply]

#: (what in the message names the topic, the plain ask that fetches its fact)
TOPICS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:nodes?|hosts?|machines?|boxes) (?:involved|affected|hit|down|lost|went down|impacted)\b"
            r"|\bhow many (?:ranks ?/ ?|ranks (?:and|or|&) )?nodes\b|\branks ?/ ?nodes\b"
        ),
        "how many ranks and nodes went down?",
    ),
    (
        re.compile(
            r"\b(?:any|a|some) (?:checkpoint|ckpt)s?\b.{0,40}\b(?:saved|written|resume|restart)\b"
            r"|\b(?:checkpoint|ckpt)s? (?:saved|written)\b.{0,30}\bresume\b"
        ),
        "was any checkpoint saved?",
    ),
    (
        re.compile(
            r"\blast (?:completed|finished|good|full|successful) step\b|\bsteps? lost\b"
            r"|\bhow many steps (?:did we|were) lost\b"
        ),
        "what was the last completed step?",
    ),
    (
        re.compile(
            r"\b(?:op|ops|collective|operation|call) (?:they|the others|the rest|the other ranks) "
            r"(?:hung|hang|were stuck|got stuck|waited|were waiting|sat|timed out)\b"
        ),
        "which collective op did the other ranks hang in?",
    ),
    (
        re.compile(
            r"\b(?:cheapest|quickest|smallest|fastest|minimal|simplest|easiest) (?:way to )?repro\w*\b"
            r"|\brepro(?:duce)? (?:command|cmd)\b|\b(?:command|cmd) to repro\w*\b"
        ),
        "what's the cheapest repro command?",
    ),
    (
        re.compile(r"\bwhat(?:s| is| was) the gap\b|\bhow (?:long|big|wide) (?:is|was) the gap\b"),
        "how long between the first failure and the others timing out?",
    ),
    (
        re.compile(
            r"\btimeout\b.*\bwhere (?:do|should|can|would) (?:i|we) (?:set|change|raise|bump|configure)\b"
            r"|\bwhere (?:do|should|can|would) (?:i|we) (?:set|change|raise|bump|configure)\b.*\btimeout\b"
        ),
        "where do i set the nccl timeout?",
    ),
    (
        re.compile(
            r"\bwhere (?:should|do|can|would) (?:i|we) look\b"
            r".*\bwhat (?:it|he|she|they|rank \d+) (?:was|were) doing\b"
            r"|\b(?:find out|see|tell|work out|figure out) what (?:it|rank \d+) was (?:doing|stuck on)\b"
        ),
        "how do i find out what the stuck rank was doing?",
    ),
    (
        re.compile(
            r"\b(?:last|final|latest) (?:loss )?values\b|\bwhat were the (?:last )?loss(?:es| values)\b"
        ),
        "what were the last loss values?",
    ),
    (
        re.compile(
            r"\b(?:which|what) (?:exact )?line (?:in|of) "
            r"(?:[\w/.-]+\.py|the script|my code|the code|our code)\b"
            r".{0,30}\b(?:change|edit|fix|touch)\b"
        ),
        "which line of my code raised it?",
    ),
    (re.compile(r"\bnum_workers ?= ?0\b"), "how do i see the worker's real error with num_workers=0?"),
    (
        re.compile(
            r"\bwhy (?:were|was|did|are|do) (?:the |all )?(?:other|rest|remaining)\b.{0,25}"
            r"\b(?:stuck|hung|hang|wait\w*|time out|timed out|sit|sat|block\w*)\b"
        ),
        "why did the other ranks time out?",
    ),
)


def complete(text: str, got: Reply, ask: Ask) -> Reply:
    """`got` with each topic `text` names that the answer did not speak to, from its own ask."""
    low = text.lower()
    for said, plain in TOPICS:
        if not said.search(low):
            continue
        later = ask(plain)
        if later.intent in ("help", got.intent):
            continue
        got = answer_asks.add(got, plain, later)
    return got
