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
from pathlib import Path

from rank_bm25 import BM25Okapi

from knowledge.schema import DATA_DIR

INTENTS_PATH = DATA_DIR / "intents.toml"
#: a question whose best intent scores less than this matched nothing well enough (a cue alone passes)
MIN_SCORE = 0.55
#: what one cue (regex) hit is worth against a perfect exemplar match (1.0)
CUE_WEIGHT = 1.5
_WORD = re.compile(r"[a-z0-9_]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "it",
        "its",
        "this",
        "that",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "do",
        "does",
        "did",
        "i",
        "we",
        "you",
        "my",
        "our",
        "be",
        "was",
        "were",
        "me",
        "us",
        "please",
        "there",
        "any",
        "can",
        "could",
        "would",
        "will",
        "with",
        "from",
        "at",
        "by",
        "about",
        "just",
        "so",
        "then",
        "now",
    ]
)
_RANK = re.compile(r"\brank\s*#?\s*(\d{1,6})(?!\d)|\br(\d{1,5})\b")
_NODE = re.compile(r"(?:\bnode\s+|\bon\s+|\bhost\s+)([a-z0-9][\w.-]*\d[\w.-]*)")


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    """Lower-cased, stemmed words; question words (what, why, when, which) are kept: they decide."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP]


def normalise(question: str) -> str:
    """Lower case, apostrophes dropped (`what's` -> `whats`), Slack mentions removed."""
    q = re.sub(r"<@[A-Z0-9]+>", " ", question).lower()
    return re.sub(r"['’`]", "", q).strip()


@dataclass(frozen=True, slots=True)
class Intent:
    id: str
    cues: tuple[re.Pattern[str], ...]
    exemplars: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Match:
    """The intent a question asked (None: nothing matched well enough) and what it names."""

    intent: str | None
    score: float
    rank: int | None
    node: str | None
    text: str  # the normalised question


def load_intents(path: Path | None = None) -> list[Intent]:
    raw = tomllib.loads((path or INTENTS_PATH).read_text(encoding="utf-8"))
    out = []
    for item in raw.get("intent", []):
        cues = tuple(re.compile(p) for p in item.get("patterns", []))
        out.append(Intent(str(item["id"]), cues, tuple(str(e) for e in item.get("exemplars", []))))
    return out


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
        #: each exemplar's score against itself: a question scores 1.0 when it says all of it
        self._full = [self._self_score(i, doc) for i, doc in enumerate(docs)]

    def _self_score(self, index: int, doc: list[str]) -> float:
        if self._bm25 is None or not doc:
            return 1.0
        return max(float(self._bm25.get_scores(doc)[index]), 1e-9)

    def scores(self, question: str) -> list[tuple[float, int, str]]:
        """(score, order, intent id) for every intent, best first."""
        q = normalise(question)
        query = tokens(q)
        similarity = [0.0] * len(self.intents)
        if self._bm25 is not None and query:
            for doc, score in enumerate(self._bm25.get_scores(query)):
                owner = self._owner[doc]
                similarity[owner] = max(similarity[owner], min(1.0, float(score) / self._full[doc]))
        out = []
        for i, intent in enumerate(self.intents):
            cues = sum(1 for rx in intent.cues if rx.search(q))
            out.append((CUE_WEIGHT * min(cues, 2) + similarity[i], -i, intent.id))
        out.sort(reverse=True)
        return out

    def match(self, question: str, nodes: list[str] | None = None) -> Match:
        q = normalise(question)
        ranked = self.scores(question)
        best = ranked[0] if ranked else (0.0, 0, "")
        intent = best[2] if best[0] >= MIN_SCORE else None
        return Match(intent, round(best[0], 3), named_rank(q), named_node(q, nodes or []), q)


def named_rank(q: str) -> int | None:
    m = _RANK.search(q)
    if m is None:
        return None
    return int(m.group(1) or m.group(2))


def named_node(q: str, nodes: list[str]) -> str | None:
    """A node of the job the question names (any spelling case), else a node-like word after `on`."""
    for node in sorted(nodes, key=len, reverse=True):
        if re.search(r"(?<![\w.-])" + re.escape(node.lower()) + r"(?![\w-])", q):
            return node
    m = _NODE.search(q)
    return m.group(1) if m else None
