"""A line asked for by what it says ("which line says time limit, quote it", "where in the logs does it
say stage3_gather_16bit_weights_on_model_save is true? quote it").

When a kept line says it, the answer quotes that line with its place. When the ask names a setting
(an identifier such as a config key) that no kept line prints, the answer says so, and what the
verdict read instead: the frame the failure went through. Why: a request for the line that proves a
claim must get that line, or a plain "no line says it" — never the verdict repeated as if it were
the quote.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tff
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: the line asked for by what it says ("which line says X", "where in the logs does it say X")
_ASKS_LINE = re.compile(
    r"\b(?:which|what) (?:exact )?(?:log )?line (?:says|shows|mentions|prints|names|has)\b\s*(?P<a>[^,?!;]*)"
    r"|\bwhere (?:in the logs? |exactly )?(?:does|do|did) (?:it|they|the logs?) (?:say|show|mention|print)\b"
    r"\s*(?:that )?(?P<b>[^,?!;]*)"
    r"|\bshow me (?:the )?(?:exact )?line (?:that |which )?(?:says|shows|mentions|prints)\b\s*(?P<c>[^,?!;]*)"
)
#: the ask wants the words themselves
_QUOTE = re.compile(
    r"\bquote\b|\bpaste\b|\bexact (?:line|words)\b|\bverbatim\b|\bwhich line\b|\bwhat line\b"
    r"|\bwhere in the logs?\b"
)
#: a setting's name: a word with an underscore or a dot inside (a config key, an env var, a flag)
_KEY = re.compile(r"(?<![\w.-])(-{0,2}[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+)(?![\w-])")
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\w+)')
_PART = re.compile(r"[a-z]+|\d+[a-z]*")


def which_line(c: Ctx, m: Match) -> Reply | None:
    """The kept line that says what the ask names; a setting no kept line prints: that it is not
    printed, and the frame the verdict read it from."""
    asked = _ASKS_LINE.search(m.text)
    if asked is None or not _QUOTE.search(m.text):
        return None
    phrase = next((g for g in asked.groups() if g), "").strip()
    phrase = re.sub(r"\s+(?:is|was|are|were) (?:true|false|on|off|set|enabled|disabled)\b.*$", "", phrase)
    if not phrase:
        return None
    lines = pool(c)
    found = next((ln for ln in lines if _says(ln.text, phrase)), None)
    if found is not None:
        return reply("quote", tff.LINE_SAYS.format(phrase=phrase, ref=ref(found)), [found])
    key = _KEY.search(phrase)
    if key is None or _printed(c, key.group(1), lines):
        return None
    return _unlogged(c, key.group(1), lines)


#: words a phrase names a line by that are not in the line ("the cancel", "the oom")
_FILLER = frozenset({"the", "a", "an", "that", "this", "it", "its", "there", "was", "is"})
_SPELLED = {"oom": ("oom", "out of memory"), "segfault": ("segfault", "sigsegv", "segmentation fault")}


def _says(text: str, phrase: str) -> bool:
    """Whether a line says the phrase: as written, or each of its words as the start of one of the
    line's words ("the cancel" in "CANCELLED AT"), a short name by its long form ("oom")."""
    low = text.lower()
    if phrase.lower() in low:
        return True
    words = [w for w in re.findall(r"[\w.-]+", phrase.lower()) if w not in _FILLER]
    if not words or len(words) > 4:
        return False
    heads = re.findall(r"[\w.-]+", low)
    return all(
        any(alt in low for alt in _SPELLED[w])
        if w in _SPELLED
        else any(h.startswith(_stem(w)) for h in heads)
        for w in words
    )


def _stem(word: str) -> str:
    """A word's stem, so "cancellation" finds "CANCELLED" and "terminated" finds "terminating"."""
    for suffix in ("ations", "ation", "ions", "ion", "ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _printed(c: Ctx, key: str, lines: list[EvidenceLine]) -> bool:
    """Whether any kept line or any fact read from the logs names the key."""
    bare = key.lstrip("-").lower()
    return any(bare in ln.text.lower() for ln in lines) or bare in str(c.d.facts.model_dump()).lower()


def _unlogged(c: Ctx, key: str, lines: list[EvidenceLine]) -> Reply:
    """Not printed: said plainly, with the frame the verdict read when its explanation names the key."""
    lead = tff.KEY_NOT_PRINTED.format(key=key)
    if key.lower() not in c.d.root_cause.lower():
        return reply("quote", f"{lead} {tff.KEY_UNKNOWN}")
    frame = _frame(c, key, lines)
    if frame is None:
        return reply("quote", f"{lead} {tff.KEY_UNKNOWN}")
    ln, fn, path = frame
    return reply("quote", f"{lead} {tff.KEY_INFERRED.format(fn=fn, path=path, ref=ref(ln))}", [ln])


def _frame(c: Ctx, key: str, lines: list[EvidenceLine]) -> tuple[EvidenceLine, str, str] | None:
    """The verdict's stack frame (its own lines first) whose function shares most words with the key;
    else the deepest one."""
    frames = [(ln, f) for ln in c.view.evidence if (f := _FRAME.search(ln.text)) is not None]
    frames = frames or [(ln, f) for ln in lines if (f := _FRAME.search(ln.text)) is not None]
    if not frames:
        return None
    parts = set(_PART.findall(key.lower()))

    def overlap(item: tuple[EvidenceLine, re.Match[str]]) -> int:
        return len(parts & set(_PART.findall(item[1].group(3).lower())))

    ln, f = max(reversed(frames), key=overlap)
    return ln, f.group(3), "/".join(f.group(1).split("/")[-3:])


#: a summary asked for in one line ("one liner for the ticket"): the first sentence is the answer
ONE_LINER = re.compile(r"\bone[- ]?liner\b|\bin (?:one|a single) (?:line|sentence)\b")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)`*][.!])\s+(?=[A-Z*`])")


def one_liner(c: Ctx, base: Reply) -> Reply:
    """The verdict's title and the first sentence of the summary: a ticket's line, not the story."""
    first = _SENTENCE_END.split(base.lead, maxsplit=1)[0]
    return reply("summary", tf.summary(c.view.title or "", first), base.lines[:1])
