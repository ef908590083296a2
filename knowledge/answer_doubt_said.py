"""Whether the logs say a message the reader names ("does anything actually say No space left on device?
all i see is iostream error", "i grepped for No space left on device and got nothing").

A verdict is often inferred: a full disk is read from a short write (`unexpected pos 1088 vs 982`),
not from an `ENOSPC` line. A reader who greps for the textbook message and finds nothing doubts the
verdict; the answer must say plainly whether any kept line says those words, and quote what the
failing rank did print, so the reader sees what the verdict was read from. Why: repeating the verdict,
or the glossary's text for the message, reads as if the logs said it.
"""

from __future__ import annotations

import errno
import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import thread as t
from knowledge import answer_volume
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, rank_lines, ref

#: the ask names a message and doubts the logs print it: "does anything (actually) say X",
#: "i grepped for X", "i don't see 'X' anywhere"
_ASKS_SAID = re.compile(
    r"\b(?:does|do|did) (?:anything|any ?(?:thing|line|log|logs|message|where)|anywhere|the logs?|"
    r"(?:any|the) (?:output|stderr|stdout)) (?:\w+ )?(?:actually |really |ever )?"
    r"(?:say|mention|print|show|contain|log)s?\s+(?P<a>[^?!;,.]+)"
    r"|\bgrep(?:ped|ing)? (?:the logs? |everything |all (?:the )?logs? )?for\s+(?P<b>[^?!;,.]+?)"
    r"(?= and\b| but\b| in\b|[?!;,.]|$)"
    r"|\b(?:don\W?t|dont|do not|can\W?t|cant|never|didnt|didn\W?t) (?:see|find|get)\s+"
    r"(?P<c>['\"`][^'\"`]{4,80}['\"`])"
    # "i dont see no space left anywhere in log": an unquoted message, then where it was looked for
    r"|\b(?:don\W?t|dont|do not|can\W?t|cant|never|didnt|didn\W?t) (?:see|find|get) (?:any |a |an |the )?"
    r"(?P<f>[a-z][\w' -]{3,40}?) (?=anywhere\b|in (?:the |any |our |my )?logs?\b)"
    r"|\b(?:is there|any) (?:a |one |any )?(?:log )?line (?:that |which |where )?(?:\w+ )?"
    r"(?:says|mentions|prints|shows|contains)\s+(?P<d>[^?!;,.]+)"
    r"|^(?:\W*\w+ )?(?:is|was) (?P<e>[a-z][\w' -]{3,48}?) (?:actually |really |ever |even |literally )?"
    r"(?:printed|logged|written|mentioned) (?=anywhere|in (?:the|any) logs?|by (?:rank|r\d))"
)
#: a one-word message taken as named: an errno (`ENOSPC`), or an identifier with a digit or `_`
_ERRNO = frozenset(name.lower() for name in errno.errorcode.values())
#: words a named message never starts with: the ask is about something else ("does it say why")
_NOT_A_MESSAGE = re.compile(
    r"^(?:what|why|which|where|when|who|how|anything|something|nothing|it|that|this|so|much|more|about|"
    r"any|the (?:same|reason|cause)|rank|ranks|a lot"
    # "what env vars does the log show for this run": a place or a time after the verb, not a message
    r"|for|during|here|there)\b"
)
#: filler after the message ("... anywhere", "... in the logs", "... at all")
_TAIL = re.compile(
    r"\s+(?:anywhere|at all|in (?:the|any|our|my) (?:logs?|output)|either|though|tho"
    r"|or (?:is|was|did|does) (?:that|it|this))\b.*$"
)
#: a failing rank's own error line (not a frame of its traceback)
_ERROR = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b:|\berror\b", re.I)
_PREFIX = re.compile(r"^(?:\[[^\]]*\]:?\s*)+")
#: how many of the rank's own error lines are quoted
MAX_QUOTED = 2


def named(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The sentence that says whether a kept line prints the message the ask names, and the lines it
    quotes; ("", []) when the ask names no message."""
    phrases = _phrases(text)
    if not phrases:
        return "", []
    lines = pool(c)
    found = [(p, ln) for p in phrases if (ln := _line_with(lines, p)) is not None]
    if found:
        phrase, ln = found[0]
        return tff.SAID_YES.format(phrase=phrase, ref=ref(ln)), [ln]
    said = " or ".join(f"`{p}`" for p in phrases)
    own = _own_errors(c)
    if not own:
        return tff.SAID_NOT.format(said=said), []
    quoted = " and ".join(f"`{short_quote(ln.text)}` ({ref(ln)})" for ln in own)
    what = t.category_words(c.view.category)
    rank = c.view.initiating.rank if c.view.initiating is not None else None
    who = f"rank {rank}" if rank is not None else "the job"
    instead = tff.SAID_INSTEAD.format(who=who, quoted=quoted, what=what)
    if answer_volume.disk_verdict(c):  # "did it literally say disk full?": the check that settles it
        instead = f"{instead} {answer_volume.df_note(c)}".rstrip()
    return f"{tff.SAID_NOT.format(said=said)} {instead}", own


def _phrases(text: str) -> list[str]:
    """The message(s) named: the words after "say"/"grep for", split at "or", filler dropped."""
    m = _ASKS_SAID.search(text)
    if m is None:
        return []
    raw = next((g for g in m.groups() if g), "").strip()
    quoted = raw[:1] in "'\"`"
    raw = _TAIL.sub("", raw.strip("'\"` ")).strip()
    if not raw or _NOT_A_MESSAGE.search(raw):
        return []
    parts = [re.sub(r"^(?:the|a|an|any) ", "", p.strip("'\"` ")) for p in re.split(r"\s+or\s+|\s*/\s*", raw)]
    return [p for p in parts if p and (quoted or len(p.split()) >= 2 or _one_word(p))]


def _one_word(word: str) -> bool:
    return word in _ERRNO or bool(re.fullmatch(r"[a-z]+(?:[_\d][a-z\d_]*)+", word))


def _normal(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def _line_with(lines: list[EvidenceLine], phrase: str) -> EvidenceLine | None:
    """A kept line that says the phrase in those words (case and punctuation aside)."""
    want = _normal(phrase)
    return next((ln for ln in lines if want and want in _normal(_PATHS.sub(" ", ln.text))), None)


#: a file path in a line: `disk full` inside `/tmp/realjob-disk_full_save/…` is a name, not the message
_PATHS = re.compile(r"\S*/\S*")


def _own_errors(c: Ctx) -> list[EvidenceLine]:
    """The failing rank's own error lines, its first one first, each text once; else the key line."""
    ini = c.view.initiating
    if ini is None:
        return list(c.view.key_line())[:1]
    out = [ini.first_line] if ini.first_line is not None else []
    for lines in rank_lines(c, ini.rank).values():
        out += [ln for ln in lines if _ERROR.search(ln.text) and 'File "' not in ln.text]
    seen: set[str] = set()
    unique = []
    for ln in out:
        key = _PREFIX.sub("", ln.text).strip()
        if key not in seen:
            seen.add(key)
            unique.append(ln)
    return unique[:MAX_QUOTED]


#: a line quoted inside a sentence is cut after this many characters (the whole line is shown below)
MAX_QUOTE = 120
#: a first sentence shorter than this (`err == 0`) is quoted with the next one
MIN_QUOTE = 24


def short_quote(text: str) -> str:
    """A log line as quoted inside a sentence: its rank prefixes and an error's source location dropped
    (`[rank0]: RuntimeError: [/path/x.cc:553]`), up to its first sentence end, at most `MAX_QUOTE`."""
    words = _PREFIX.sub("", text).strip()
    words = re.sub(r"^(\w+(?:Error|Exception): )\[[^\]]*\]\s*\.?\s*", r"\1", words)
    first = ""
    for sentence in re.split(r"(?<=[a-z0-9\])])\. ", words):  # `err == 0.` alone says nothing: go on
        first = f"{first}. {sentence}" if first else sentence
        if len(first) >= MIN_QUOTE:
            break
    if len(first) <= MAX_QUOTE:
        return first
    return first[: MAX_QUOTE - 1].rsplit(" ", 1)[0] + "…"
