"""Where the logs say what the verdict claims ("where does it actually say the disk is full?", "where
in my logs does it say stage3_gather_16bit_weights_on_model_save is on?").

Why: a verdict is often inferred — a full disk from a short write, a config setting from the function
the save went through — and a reader who cannot find the words doubts it. The answer says whether
any kept line prints the words the reader names (checked, never assumed), quotes the failing rank's
own lines the verdict was read from, and gives the command that shows the state directly (the
entry's check: `df -h` on the checkpoint dir, a `grep` of the config), since the logs never print it.
"""

from __future__ import annotations

import errno
import os
import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_review as tr
from denpex.core.texts import thread as t
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, rank_lines, ref, reply
from knowledge.answer_where import strip_prefix
from knowledge.intents import Match

#: what the reader reads the verdict from: the traceback, the error, the logs
_SHOWN = r"(?:traceback|stack ?trace|stack|trace|error|errors|exception|logs?|output|message)"
#: what a line does for the verdict ("tells you", "shows", "proves")
_TELLS = r"(?:tells?|shows?|says?|points?|proves?|indicates?|suggests?|makes?|gives? away)\b"
#: "where does it (actually) say …", "where in my logs does it say …", "where is that printed"
ASKS_WHERE_SAID = re.compile(
    r"\bwhere (?:in (?:my|the|our|these|those) (?:logs?|output|lines) )?(?:does|did|do) (?:it|anything|"
    r"the logs?|they|you|that|this) (?:\w+ )?(?:say|show|mention|print|tell|state)s?\b"
    r"|\bwhere(?:'s| is| was) (?:that|it|this) (?:\w+ )?(?:said|printed|logged|shown)\b"
    # "where is that report? grep'd console.log for desync, got nothing": a thing the summary named
    r"|\bwhere(?:s| is| was| are) (?:that|this|the|those) (?:\w+ )?(?:report|message|line|warning)s?\b"
    # "what line in the logs actually points at a full disk?": the lines the verdict was read from
    r"|\b(?:what|which) (?:log )?(?:line|message)s? (?:in (?:the|my|our|these) logs? )?(?:\w+ )?"
    r"(?:points?|shows?|says?|indicates?|suggests?|proves?|tells?|gives? away)\b"
    # "I don't see 'No space left on device' anywhere, why does the bot say disk full?": its basis
    r"|\b(?:don'?t|do not|can'?t|cannot|never) (?:see|find)\b[^?]{0,80}\bwhy (?:does|did|do|is) "
    r"(?:it|the bot|you|denpex|the summary) (?:\w+ )?(?:say|call|claim|think)s?\b"
)
#: "what in the traceback tells you …", "which part of the error shows …", "how can you tell from the
#: stack …": the lines the verdict was read from, when a claim follows (`_CLAIM`)
_WHAT_TELLS = re.compile(
    r"\bwhat (?:in|of|about) (?:the |this |that |my |its |rank \d+\W?s )?"
    + _SHOWN
    + r" (?:\w+ )?"
    + _TELLS
    + r"|\bwhich (?:part|bit|piece|line) of (?:the |this |that |my |its )?"
    + _SHOWN
    + r" (?:\w+ )?"
    + _TELLS
    + r"|\bhow (?:can|do|did|would|could) (?:you|we|i|it|the bot|denpex) (?:\w+ )?(?:tell|know|see|conclude"
    r"|decide|be sure)\b[^?]{0,20}\bfrom (?:the |this |that |its |my )?" + _SHOWN + r"\b"
)
#: the verdict put as a claim ("this is the disk", "it's the filesystem", "rather than my code"); "which
#: one rank 2 was" (died or stuck) is another ask
_CLAIM = re.compile(
    r"\b(?:this|it|that)(?:'s|s| is| was)\b|\b(?:and not|rather than|instead of|not a|not my|not our)\b"
)
#: the word the reader searched the logs for ("grep'd console.log for desync")
_GREPPED = re.compile(r"\bgrep\w* (?:[\w.-]+ )?for ([a-z][\w-]*)")
#: words the reader names: a config key or identifier (`stage3_gather_…`); errnos are told apart below
_IDENT = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+){2,}\b|\b[a-z]\w*\b")
#: a signal's name (`sigsegv`, `sigkill`), looked for as it is
_SIGNAL = re.compile(r"sig(?:segv|kill|term|bus|abrt|ill|fpe|int|hup|usr1|usr2)")
#: errno names (`enospc`, `eio`): each is looked for as its name and as its message
_ERRNOS = {name.lower(): num for num, name in errno.errorcode.items()}
#: how many of the failing rank's lines are quoted
MAX_QUOTED = 2
#: a quoted line is cut here (the whole line is shown below the answer)
MAX_QUOTE = 140


def where_said(c: Ctx, m: Match) -> Reply | None:
    """The named words found or not, the failing rank's lines the verdict came from, then the check."""
    ini = c.view.initiating
    asked = ASKS_WHERE_SAID.search(m.text) or (_WHAT_TELLS.search(m.text) and _CLAIM.search(m.text))
    if not asked or ini is None or not c.view.evidence:
        return None
    kept = pool(c)
    parts: list[str] = []
    shown: list[EvidenceLine] = []
    missing: list[str] = []
    names = _named(m.text)
    for name, forms in names:
        ln = next((x for f in forms if (x := _line_with(kept, f)) is not None), None)
        if ln is None:
            missing.append(name)
            continue
        parts.append(tr.SAID_HERE.format(name=name, ref=ref(ln), text=_cut(strip_prefix(ln.text))))
        shown.append(ln)
    if missing:
        parts.append(tr.SAID_NOWHERE.format(names=" or ".join(missing)))
    own = [ln for ln in _own_lines(c, ini.rank) if ln not in shown]  # a line quoted above is not again
    if own:
        quotes = " and ".join(f"`{_cut(strip_prefix(ln.text))}` ({ref(ln)})" for ln in own)
        read = tr.READ_FROM if names else tr.READ_INFERRED  # "i dont see the ds config printed anywhere"
        parts.append(read.format(what=t.category_words(c.view.category), rank=ini.rank, quotes=quotes))
        shown += own
    if c.d.verify and (missing or not names):  # the state itself, which no line prints
        parts.append(tr.SEE_IT.format(code=c.d.verify.strip()))
    return reply("show_lines", " ".join(parts), shown)


def _named(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The words the reader names, each with the forms a line may print it in: an errno by its name
    and its message (`ENOSPC`, "No space left on device"), a config key as it is."""
    out: dict[str, tuple[str, ...]] = {}
    if found := _GREPPED.search(text):  # searched for and not found: checked here too
        out[f"`{found.group(1)}`"] = (found.group(1),)
    for word in _IDENT.findall(text):
        if word in _ERRNOS:
            message = os.strerror(_ERRNOS[word])
            out.setdefault(tr.ERRNO_NAMED.format(name=word.upper(), message=message), (word, message))
        elif word.count("_") >= 2:
            out.setdefault(tr.KEY_NAMED.format(name=word), (word,))
        elif _SIGNAL.fullmatch(word):  # "i don't see SIGSEGV": the signal as the launcher prints it
            out.setdefault(f"`{word.upper()}`", (word,))
    return list(out.items())


def _cut(text: str) -> str:
    """A quoted line cut at a word (the whole line is shown below the answer)."""
    return text if len(text) <= MAX_QUOTE else text[: MAX_QUOTE - 1].rsplit(" ", 1)[0] + "…"


def _line_with(lines: list[EvidenceLine], words: str) -> EvidenceLine | None:
    low = words.lower()
    return next((ln for ln in lines if low in ln.text.lower()), None)


def _own_lines(c: Ctx, rank: int) -> list[EvidenceLine]:
    """The verdict's key line, then the rank's first error line that says something else (the short
    write, then `iostream error`; the save's frame, then the OOM): each said once."""
    out = c.view.evidence[:1]
    said = {strip_prefix(ln.text) for ln in out}
    own = [ln for lines in rank_lines(c, rank).values() for ln in lines]
    for ln in [*c.view.evidence, *own]:
        if len(out) == MAX_QUOTED:
            break
        if _ERROR.search(ln.text) and strip_prefix(ln.text) not in said:
            out.append(ln)
            said.add(strip_prefix(ln.text))
    return out


#: a rank's own error line, not a frame of its traceback
_ERROR = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b:|\berror\b")


__all__ = ["ASKS_WHERE_SAID", "where_said"]
