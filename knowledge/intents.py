"""Which question was asked: rules plus BM25 over phrasings of each intent, local and deterministic.

People ask the same thing many ways ("which GPU", "what device was rank 5 on", "where did it die").
Each intent (`data/intents.toml`) has strong cues (regexes) and exemplar phrasings. A question's
score for an intent is its cue hits plus its best BM25 similarity to the intent's exemplars, relative
to that exemplar's score against itself; below `MIN_SCORE` nothing matched, and the answer says what it
can answer instead of guessing. The rank and node a question names are read here too, so every
answer handler gets them the same way. No model and no network: the same question always gets the
same intent.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rank_bm25 import BM25Okapi

from knowledge.intent_asks import MAX_ASKS as MAX_ASKS
from knowledge.intent_asks import asks as asks
from knowledge.intent_asks import bare as bare
from knowledge.intent_typos import spelled
from knowledge.schema import DATA_DIR

INTENTS_PATH = DATA_DIR / "intents.toml"
#: a question whose best intent scores less than this matched nothing well enough (a cue alone passes)
MIN_SCORE = 0.55
#: what one cue (regex) hit is worth against a perfect exemplar match (1.0)
CUE_WEIGHT = 1.5
#: a decisive cue says what is asked whatever topic words come with it ("how do I save *without
#: running out of memory*" asks for the fix, not the memory figures): it outranks any cue count
DECISIVE_WEIGHT = 10.0
_WORD = re.compile(r"[a-z0-9_]+")
_STOP = frozenset(  # one string, split: a list literal would take a line per word
    (  # noqa: SIM905
        "a an the is it its this that of to in on for and or do does did i we you my our be was were me "
        "us please there any can could would will with from at by about just so then now"
    ).split()
)
#: words the questions use that no exemplar has, so typo correction does not "fix" them away
_KNOWN = frozenset(
    (  # noqa: SIM905
        "memory checkpoint rank ranks node nodes which where when what why how hang hung stuck timeout "
        "trace stack traceback fault problem issue hardware network driver restart rerun fail failed die "
        "died crash crashed killed kill saving save allocate allocated free total batch step code "
        "collective broadcast reduce gather happen happened other others whats thats wheres whos hows "
        "theres heres dont didnt doesnt isnt wasnt cant wont shouldnt couldnt wouldnt "
        "one two three four five six seven eight nine ten those these there their"
    ).split()
)
_RANK = re.compile(r"\brank\s*#?\s*(\d{1,6})(?!\d)|(?<![\w-])r(\d{1,5})\b")
_NODE = re.compile(r"(?:\bnode\s+|\bon\s+|\bhost\s+)([a-z0-9][\w.-]*\d[\w.-]*)")


def _tables(path: Path = INTENTS_PATH) -> tuple[dict[str, str], tuple[tuple[re.Pattern[str], str], ...]]:
    """The synonyms (word -> the word it is read as) and the phrases (regex -> replacement) of
    `intents.toml`: data, so a new verb people use is a line there, not a code change."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    synonyms = {w.lower(): key for key, words in raw.get("synonyms", {}).items() for w in words}
    phrases = tuple(
        (re.compile(r"(?<![\w-])" + re.escape(k.lower()) + r"(?![\w-])"), str(v).lower())
        for k, v in raw.get("phrases", {}).items()
    )
    return synonyms, phrases


SYNONYMS, PHRASES = _tables()


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    """Lower-cased, stemmed words; question words (what, why, when, which) are kept: they decide."""
    return [_stem(SYNONYMS.get(w, w)) for w in _WORD.findall(text.lower()) if w not in _STOP]


#: a span of ranks in shorthand (`r1-r3`, `rank 0-2`, `r0 to 3`): read as `ranks 1-3`, low to high only;
#: `rank 3 -11` (a space before the dash only) is rank 3's exit code, not a span
_SPAN = re.compile(
    r"(?<![\w-])(?:r|rks?|rnks?|ranks?)[ #]?(\d{1,5})(?: ?- |-| ?to ?)(?:r|rk|rnk|rank)?(\d{1,5})\b"
)


def _span(m: re.Match[str]) -> str:
    lo, hi = int(m.group(1)), int(m.group(2))
    return f"ranks {lo}-{hi}" if lo < hi else m.group(0)


#: Slack shorthand, spelled out before matching (`y did r3 die` -> `why did rank 3 die`)
_SHORTHAND = (
    (_SPAN, _span),
    (re.compile(r"(?<![\w-])(?:r|rk|rnk|rank)[ #]?(\d{1,5})\b"), r"rank \1"),
    # "what were 1+3 doing": ranks joined by `+` after the verb that asks about them
    (
        re.compile(r"\b(were|did|are|about) (\d{1,4}) ?\+ ?(\d{1,4})(?= (?:doing|up to|in)\b)"),
        r"\1 ranks \2 and \3",
    ),
    (re.compile(r"(?<![\w-])(?:mem|memroy|memmory|mmeory)(?![\w-])"), "memory"),
    (re.compile(r"(?<![\w-])(?:ckpt|chkpt|ckpts|checkpt)(?![\w-])"), "checkpoint"),
    (re.compile(r"^y\b|(?<=[,.?!] )y\b"), "why"),
    (re.compile(r"\b(?:wat|wut|wht|whta)\b"), "what"),
    (re.compile(r"\b(?:wen|whn)\b"), "when"),
    (re.compile(r"\b(?:hwo|hw do)\b"), lambda m: "how" if m.group(0) == "hwo" else "how do"),
    (re.compile(r"\bu\b"), "you"),
    (re.compile(r"\bur\b"), "your"),
    (re.compile(r"\bhw\b"), "hardware"),
    (re.compile(r"\b(?:pls|plz|pl[sz]e)\b"), "please"),
    (re.compile(r"\b(?:cfg|conf)\b"), "config"),
    (re.compile(r"\b(?:cmd|cmds)\b"), "command"),
    (re.compile(r"\b(?:tb|tbs)\b"), "traceback"),
    (re.compile(r"\b(?:b/c|bc|cuz|coz)\b"), "because"),
    (re.compile(r"\bb4\b"), "before"),
)
#: a possessive (`the gpu's fault` -> `the gpu fault`); contractions keep their `s` (`what's` -> `whats`)
_POSSESSIVE = re.compile(r"\b(?!(?:what|that|it|where|who|how|there|here|let|he|she)['’]s\b)(\w+)['’]s\b")


#: Slack's markup in a message's raw text: `<@U123>`, `<!here>`, `<#C1|ops>`, `<https://x|label>`
_SLACK_REF = re.compile(r"<([@!#])[^>|]*(?:\|([^>]*))?>|<(?:https?|mailto):[^>|]*(?:\|([^>]*))?>")
_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))


def _plain(text: str) -> str:
    """Slack markup as the reader sees it: mentions dropped, a channel or link by its label (a bare
    link dropped), `&amp;` `&lt;` `&gt;` decoded after that (so a typed `<` is never markup)."""

    def label(m: re.Match[str]) -> str:
        if m.group(1) == "#" and m.group(2):
            return f" {m.group(2)} "
        return f" {m.group(3)} " if m.group(3) else " "

    text = _SLACK_REF.sub(label, text)
    for entity, char in _ENTITIES:
        text = text.replace(entity, char)
    return text


#: Slack's bold and strike (`*fine*`, `~x~`): the word is what is asked, not its markup
_EMPHASIS = re.compile(r"(?<![\w*~])[*~]+([^\s*~][^*~]*?)[*~]+(?![\w*~])")


def normalise(question: str) -> str:
    """Lower case, apostrophes dropped (`what's` -> `whats`), Slack markup read as text, shorthand spelled
    out (`r3` -> `rank 3`, `mem` -> `memory`, `ckpt` -> `checkpoint`, `y` -> `why`, `u` -> `you`)."""
    q = _POSSESSIVE.sub(r"\1", _plain(question).lower())
    q = re.sub(r"['’`]", "", q).strip()
    for rx, repl in _SHORTHAND:
        q = rx.sub(repl, q)
    q = spelled(q)
    for rx, phrase in PHRASES:
        q = rx.sub(phrase, q)
    return re.sub(r"\s+", " ", _EMPHASIS.sub(r"\1", q))


def _near(a: str, b: str) -> bool:
    """A slip of the fingers apart: two neighbours swapped, or a letter dropped or doubled inside the
    word. A changed letter is not one (`killer` is not a typo of `killed`), nor is a changed ending."""
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    if abs(len(a) - len(b)) != 1:
        return False
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(1, len(long_) - 1))


def correct(q: str, vocabulary: frozenset[str]) -> str:
    """Typos of the words the intents know (`whcih`, `restrat`), each replaced by its one-edit
    neighbour; words it knows, short words and identifiers (digits, `_`, `-`) are left alone."""

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if len(word) < 5 or word in vocabulary or not word.isalpha():
            return word
        near = sorted(
            v
            for v in vocabulary
            if v[0] == word[0] and _near(word, v) and not (v.startswith(word) or word.startswith(v))
        )  # `cause` is not a typo of `causes`: an inflection, not a slip
        return near[0] if len(near) == 1 else word

    return re.sub(r"(?<![\w-])[a-z]+(?![\w-])", fix, q)


@dataclass(frozen=True, slots=True)
class Intent:
    id: str
    cues: tuple[re.Pattern[str], ...]
    exemplars: tuple[str, ...]
    decisive: tuple[re.Pattern[str], ...] = ()


@dataclass(frozen=True, slots=True)
class Match:
    """The intent a question asked (None: nothing matched well enough) and what it names."""

    intent: str | None
    score: float
    rank: int | None
    node: str | None
    text: str  # the normalised question
    ranks: tuple[int, ...] = ()  # every rank named, in order ("did rank 3 die before rank 5?")


def load_intents(path: Path | None = None) -> list[Intent]:
    raw = tomllib.loads((path or INTENTS_PATH).read_text(encoding="utf-8"))
    out = []
    for item in raw.get("intent", []):
        cues = tuple(re.compile(p) for p in item.get("patterns", []))
        decisive = tuple(re.compile(p) for p in item.get("decisive", []))
        exemplars = tuple(str(e) for e in item.get("exemplars", []))
        out.append(Intent(str(item["id"]), cues, exemplars, decisive))
    return out


@cache
def ask_words(intent: str) -> frozenset[str]:
    """The words of an intent's exemplars ("what should i change" for a fix): they say what kind of
    ask it is, not what it is about, so they never pick one step of an answer over another."""
    return frozenset(w for i in load_intents() if i.id == intent for ex in i.exemplars for w in tokens(ex))


class IntentMatcher:
    """Built once (the BM25 index over every exemplar), then asked many questions."""

    def __init__(self, intents: list[Intent] | None = None) -> None:
        self.intents = intents if intents is not None else load_intents()
        self._owner: list[int] = []
        docs: list[list[str]] = []
        for i, intent in enumerate(self.intents):
            for ex in intent.exemplars:
                if len(tokens(ex)) < 2:  # one word ("what") would match every question
                    continue
                docs.append(tokens(ex))
                self._owner.append(i)
        self._bm25 = BM25Okapi(docs) if docs else None
        #: the words typos are corrected towards: every exemplar's, plus the shorthand's spellings
        self.vocabulary = (
            frozenset(w for i in self.intents for ex in i.exemplars for w in _WORD.findall(ex.lower()))
            | _KNOWN
        )
        #: each exemplar's score against itself: a question scores 1.0 when it says all of it
        self._full = [self._self_score(i, doc) for i, doc in enumerate(docs)]

    def _self_score(self, index: int, doc: list[str]) -> float:
        if self._bm25 is None or not doc:
            return 1.0
        return max(float(self._bm25.get_scores(doc)[index]), 1e-9)

    def text(self, question: str) -> str:
        """The question as matched: normalised, then its typos corrected."""
        return correct(normalise(question), self.vocabulary)

    def scores(self, question: str) -> list[tuple[float, int, str]]:
        """(score, order, intent id) for every intent, best first."""
        q = self.text(question)
        query = tokens(q)
        similarity = [0.0] * len(self.intents)
        if self._bm25 is not None and query:
            for doc, score in enumerate(self._bm25.get_scores(query)):
                owner = self._owner[doc]
                similarity[owner] = max(similarity[owner], min(1.0, float(score) / self._full[doc]))
        out = []
        for i, intent in enumerate(self.intents):
            cues = sum(1 for rx in intent.cues if rx.search(q))
            decisive = DECISIVE_WEIGHT if any(rx.search(q) for rx in intent.decisive) else 0.0
            out.append((decisive + CUE_WEIGHT * min(cues, 2) + similarity[i], -i, intent.id))
        out.sort(reverse=True)
        return out

    def match(self, question: str, nodes: list[str] | None = None) -> Match:
        q = self.text(question)
        ranked = self.scores(question)
        best = ranked[0] if ranked else (0.0, 0, "")
        intent = best[2] if best[0] >= MIN_SCORE else None
        node = named_node(q, nodes or [])
        return Match(intent, round(best[0], 3), named_rank(q), node, q, named_ranks(q))


def named_rank(q: str) -> int | None:
    m = _RANK.search(q)
    if m is None:
        return None
    return int(m.group(1) or m.group(2))


#: a list or range of ranks: "ranks 4, 6 and 7", "ranks 0-2", "ranks 0 to 3"
_RANK_LIST = re.compile(
    r"\branks\s+(\d{1,6}(?:\s*(?:,|and|&|or|-|to|through)\s*\d{1,6})*)"
    r"|\brank\s+(\d{1,6}(?:(?:\s*(?:,|and|&|or)\s*|\s+)\d{1,6}\b"
    r"(?![.:]\d)(?! ?(?:s|sec|secs|seconds|min|mins|minutes|gib|gb|mb|x)\b))+)"
)
#: a range inside such a list, kept small: a question never means thousands of ranks one by one
_RANGE = re.compile(r"(\d{1,6})\s*(?:-|to|through)\s*(\d{1,6})")
#: ranks written with slashes ("0/1/3 hung on"): three or more, so a step "6/10" is never read as ranks
_SLASHED = re.compile(r"(?<![\w./])(\d{1,4}(?:/\d{1,4}){2,})(?![\w./])")
MAX_RANGE = 64


def named_ranks(q: str) -> tuple[int, ...]:
    """Every rank the question names, first mention order, each once ("ranks 0-2" is 0, 1 and 2)."""
    found: list[tuple[int, int]] = [(m.start(), int(m.group(1) or m.group(2))) for m in _RANK.finditer(q)]
    for m in _RANK_LIST.finditer(q):
        listed = m.group(1) or m.group(2)
        for r in _RANGE.finditer(listed):
            lo, hi = int(r.group(1)), int(r.group(2))
            if lo <= hi <= lo + MAX_RANGE:
                found += [(m.start(), n) for n in range(lo, hi + 1)]
        found += [(m.start(), int(n)) for n in re.findall(r"\d{1,6}", _RANGE.sub(" ", listed))]
    for m in _SLASHED.finditer(q):
        found += [(m.start(), int(n)) for n in m.group(1).split("/")]
    return tuple(dict.fromkeys(n for _, n in sorted(found, key=lambda x: x[0])))


def named_node(q: str, nodes: list[str]) -> str | None:
    """A node of the job the question names (any spelling case), else a node-like word after `on`."""
    for node in sorted(nodes, key=len, reverse=True):
        if re.search(r"(?<![\w.-])" + re.escape(node.lower()) + r"(?![\w-])", q):
            return node
    m = _NODE.search(q)
    return m.group(1) if m else None
