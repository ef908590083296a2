"""How long the whole run took, and on how many ranks, asked beside another fact ("how long did it
train, on how many gpus, and did the step 50 checkpoint land?", "total run time?", "wall clock + gpu
count").

Why: a review asks for the run's wall-clock length and its size in one breath with the question it is
really about (how long the others hung, how far it got). The other answer says its own fact and not
these, so the run's length (first to last log line) and its rank count are added to it, each from
this job's lines, when asked and not already said.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups_facts as tf
from knowledge.answer_asks import said, with_lead
from knowledge.answer_types import Ctx, Reply, at, duration, reply
from knowledge.jobfacts_answers import seconds_between

#: asks for the run's whole length ("wall clock", "total run time", "how long did it train", "8 gpus
#: for how long total"), not a span between two events
ASKS_RUN = re.compile(
    r"\bwall[- ]?clock\b|\bwall[- ]?time\b|\btotal (?:run ?time|runtime|time|duration|length)\b"
    r"|\b(?:run ?time|runtime|duration) (?:of the (?:job|run)|total|overall)\b"
    r"|\bhow long did (?:it|the job|the run|this|this one|training|they|the gpus) "
    r"(?:run|train|go|last|take|work|get)\b(?! (?:before|after|until|from|between|in(?! total)|at|to)\b)"
    r"|\bwie lange?\b(?! (?:vor|nach|bis|von|zwischen)\b)"  # German "how long (did it run)"
    r"|\bhow long (?:total|in total|overall|altogether|all in)\b|\bfor how long (?:total|in total|overall)\b"
    r"|\bhow long (?:was|had) (?:it|the job|the run) (?:up|running|been running|alive)\b"
    r"(?! (?:before|when)\b)"
)
#: asks how many ranks or GPUs the run had ("on how many gpus", "gpu count", "how many ranks")
ASKS_SIZE = re.compile(
    r"\bhow many (?:gpus?|ranks?|processes|workers|nodes)\b|\b(?:gpu|rank|world|node) (?:count|size)\b"
    r"|\bon how many\b|\b(?:number|#) of (?:gpus?|ranks?)\b"
)


def run_sentence(c: Ctx, text: str) -> str:
    """The run's wall-clock length and rank count as asked; "" when neither is asked or none is logged."""
    if not ASKS_RUN.search(text):
        return ""
    v = c.view
    span = seconds_between(v.start, v.end)
    if span is None or span <= 0:
        return tf.RUN_UNTIMED
    n = v.world_size or len([r for r in v.ranks.values() if r.role != "missing"])
    size = tf.RUN_SIZE.format(n=n) if n and ASKS_SIZE.search(text) else ""
    return tf.RUN_LENGTH.format(
        span=duration(span),
        start=at(v.start).removeprefix(" at "),
        end=at(v.end).removeprefix(" at "),
        size=size,
    )


def with_run(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the run's length (and size) when the ask wants it and `got` does not say it."""
    sentence = run_sentence(c, text)
    if not sentence:
        return got
    told = said(got)
    span = seconds_between(c.view.start, c.view.end)
    if (
        span is not None
        and span > 0
        and duration(span).lower() in told
        and (not ASKS_SIZE.search(text) or f"{c.view.world_size} ranks" in told)
    ):
        return got
    if got.intent == "help":
        return reply("when", sentence)
    if got.intent == "phase":  # "how long did the job run in total?": the length leads, not the phase
        return replace(got, lead=f"{sentence} {got.lead}", material=[sentence, *got.material])
    return with_lead(got, sentence, [])
