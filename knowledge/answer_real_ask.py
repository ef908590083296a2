"""The real ask inside a long, polite message, answered as its short form would be: "Could you please
explain why ranks 0, 2 and 3 also failed, even though only rank 1 ran out of memory? Rank 3 does not
even seem to have an error message of its own.", "I am a little confused about the timing: the bot
says 'at or after 21:38:30.286', but when did the job actually end?", "I am not sure what time limit I
set. Can you tell from the logs how long the job actually ran?".

Why: the whole message is matched as one ask, so the words of its context (a premise after "even
though", a statement before or after the question, a quoted phrase of the summary, a polite "could you
please explain") pick the intent: "ran out of memory" makes it a memory answer, "what time limit I
set" a time-limit answer, and the question itself goes unanswered. The message's one question, with
its polite lead-in and its concessive clause taken off, is answered as asked, and leads; the whole
message's answer follows, so what its context asked about is still said.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from knowledge import answer_asks
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import asks

#: a polite lead-in before the question itself ("could you please explain why", "can you tell from the
#: logs how long", "i would like to know which")
_POLITE = re.compile(
    r"^(?:(?:hi|hello|hey|sorry|thanks|thank you)\W+)?"
    r"(?:(?:could|can|would) you (?:please |kindly )?(?:explain|tell(?: me)?|clarify|help me understand"
    r"|let me know|say)(?: to me)?(?: from (?:the|these|those) logs)?(?: please)?"
    r"|(?:please )?(?:explain|tell me|clarify)(?: to me)?"
    r"|i (?:would|d) (?:like|love) to (?:know|understand)"
    r"|i (?:am|was) (?:wondering|curious)(?: about)?)\s+",
)
#: a premise the question is asked against ("even though only rank 1 ran out of memory"): context
_CONCESSIVE = re.compile(
    r",?\s+(?:even though|even if|although|though|despite|given that|since only|when only|while only)"
    r"\b[^?]*$"
)
#: the writer's own doubt put before or around the question ("i am a little confused about the timing",
#: "i am not sure what time limit i set", "i do not remember which --time")
_HEDGE = re.compile(
    r"\bi (?:am|m) (?:a (?:little|bit) |slightly |somewhat |rather )?(?:confused|not sure|unsure|puzzled)\b"
    r"|\bi (?:do not|dont|cannot|cant) (?:remember|recall|understand|find|see)\b"
)
#: a question word the core must start with after its lead-in is taken off
_QUESTION = re.compile(
    r"^(?:why|what|whats|which|how|when|where|who|whose|did|does|do|is|was|were|are|can|could|has|have)\b"
)
#: a message shorter than this many words has no context hiding its ask
MIN_WORDS = 14


def core(text: str) -> str:
    """The message's one question without its polite lead-in and its premise ("" when the message asks
    more than one thing, or nothing was left out)."""
    if len(text.split()) < MIN_WORDS:
        return ""
    parts = asks(text)
    if len(parts) != 1:
        return ""
    part = parts[0].rsplit(": ", 1)[-1].strip()
    if not (_POLITE.search(part) or _CONCESSIVE.search(part) or _HEDGE.search(text)):
        return ""  # plain context ("rank 2 has no traceback. why not a gpu problem?") is meant as asked
    part = _CONCESSIVE.sub("", _POLITE.sub("", part, count=1)).strip(" ,;.!?")
    if not _QUESTION.search(part) or len(part.split()) < 3:
        return ""
    return part if part != text.strip(" ,;.!?") else ""


def with_real_ask(ctx: Ctx, text: str, got: Reply, asked: Callable[[str], Reply]) -> Reply:
    """`got` led by the answer to the message's real ask, when its context words routed it elsewhere."""
    del ctx  # the ask's own answer holds this job's facts
    ask = core(text)
    if not ask:
        return got
    real = asked(ask)
    if real.intent == "help" or not real.lead:
        return got
    if all(s.lower().rstrip(".") in answer_asks.said(got) for s in answer_asks.sentences(real.lead)):
        return got
    return answer_asks.add(real, text, got)
