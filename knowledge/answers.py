"""Answers to follow-up questions about a diagnosis, grounded in the diagnosis and its knowledge entry.

Two layers: evidence questions matched by intent patterns ("which rank failed first", "show rank 12's
last lines", "what happened on gpu-07", ...) answered from `Diagnosis` fields, then BM25 (rank-bm25)
over the entry's FAQ and sections for everything else. What neither answers gets an honest "don't
know" naming the evidence that would help. No cloud model is involved.

The answers are structured (which rank, which lines, which entry text), never formatted: the Slack
app renders them (`bot.slack.answers`). Each carries the grounded `material` it used, so an optional
LLM may rephrase it without seeing anything else. An entry's search index is built once
(`FaqIndex`, cached by `AnswerBook`), not once per question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rank_bm25 import BM25Okapi

from denpex.core.models import Diagnosis, EvidenceLine, MissingEvidence
from knowledge.schema import Entry

TAIL_LINES = 15
FIRST_RANK_LINES = 8
ALTERNATIVES = 5
_WORD = re.compile(r"[a-z0-9_]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "it",
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
        "what",
        "how",
        "why",
        "which",
        "who",
        "can",
        "could",
        "should",
        "would",
        "will",
        "with",
        "from",
        "at",
        "by",
        "about",
        "there",
        "any",
        "me",
        "us",
        "please",
    ]
)


def _tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP]


# ---------------------------------------------------------------------- the answers
@dataclass
class Answer:
    """What every answer has; the subclasses carry the facts to render."""

    intent: str
    material: list[str] = field(default_factory=list)  # plain grounded facts (masked) for an LLM
    known: bool = True


@dataclass
class FirstRank(Answer):
    rank: int | None = None
    node: str | None = None
    time: str | None = None
    evidence: list[EvidenceLine] = field(default_factory=list)
    root_cause: str = ""
    #: every collateral rank; None when nothing else failed
    collateral_ranks: list[int] | None = None


@dataclass
class RankLines(Answer):
    """The saved last lines of a rank (`source`/`node` None: its evidence lines instead)."""

    rank: int = 0
    lines: list[EvidenceLine] = field(default_factory=list)
    source: str | None = None
    node: str | None = None


@dataclass
class NoRankLines(Answer):
    rank: int = 0
    ranks_with_lines: list[int] = field(default_factory=list)


@dataclass
class NodeLines(Answer):
    node: str = ""
    ranks: list[int] = field(default_factory=list)
    lines: list[EvidenceLine] = field(default_factory=list)


@dataclass
class NoNodeLines(Answer):
    node: str = ""
    nodes: list[str] = field(default_factory=list)


@dataclass
class EntryText(Answer):
    """A passage of the knowledge entry (an FAQ answer, a section) as it is written."""

    text: str = ""


@dataclass
class Verify(Answer):
    command: str = ""
    confirmation: str | None = None


@dataclass
class Alternative:
    title: str
    symptom: str | None = None


@dataclass
class Alternatives(Answer):
    alternatives: list[Alternative] = field(default_factory=list)  # empty: nothing else scored close


@dataclass
class Fix(Answer):
    fix: str = ""
    #: the entry's fix steps; None without an entry
    steps: list[str] | None = None
    snippet: str | None = None


@dataclass
class Unknown(Answer):
    reason: str = ""
    helpful: list[MissingEvidence] = field(default_factory=list)


# ---------------------------------------------------------------------- entry search
class FaqIndex:
    """BM25 over one entry's FAQ and sections, each passage keyed by the words people ask with."""

    def __init__(self, entry: Entry) -> None:
        self.docs = _faq_docs(entry)
        self._bm25 = BM25Okapi([_tokens(q + " " + a) for q, a in self.docs]) if self.docs else None

    def search(self, question: str) -> str | None:
        """The best passage for `question`, or None when nothing shares a word with it."""
        query = _tokens(question)
        if self._bm25 is None or not query:
            return None
        scores = self._bm25.get_scores(query)
        best = max(range(len(scores)), key=lambda i: scores[i])
        overlap = set(query) & set(_tokens(" ".join(self.docs[best])))
        if scores[best] <= 0 or not overlap:
            return None
        return self.docs[best][1]


def _faq_docs(e: Entry) -> list[tuple[str, str]]:
    f = e.faq
    return [
        ("is it hardware or software gpu broken", f.hardware_or_software),
        ("how long time to fix take effort", f.fix_time),
        ("training or inference serving happen", f.training_vs_inference),
        ("cheapest confirmation confirm check prove", f.cheapest_confirmation),
        ("recur again happen recurrence prevent future", f.recurrence + " " + " ".join(e.prevention)),
        ("fingerprint recognise identify looks like", f.fingerprint),
        ("scale gpus many nodes large small cluster", f.scale),
        ("symptom what happened what does it look like", e.symptom),
        ("root cause why did it happen reason", e.root_cause),
        ("mechanism how does it work explain internals", e.mechanism),
        ("what will i observe see logs", " ".join(e.observe)),
        ("how to confirm diagnosis steps", " ".join(e.confirm)),
        ("which systems affected frameworks versions", ", ".join(e.affected_systems)),
        ("references docs links read more", "; ".join(f"{r.title}: {r.url}" for r in e.references)),
    ]


# ---------------------------------------------------------------------- answering
Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], Answer | None]]


class Answerer:
    """Answers questions about one diagnosis (and its entry, when the knowledge base has it)."""

    def __init__(
        self,
        diagnosis: Diagnosis,
        entry: Entry | None,
        related: Mapping[str, Entry] | None = None,
        index: FaqIndex | None = None,
    ) -> None:
        self.d, self.entry, self.related = diagnosis, entry, related or {}
        self.index = index if index is not None else (FaqIndex(entry) if entry is not None else None)
        self._rules: list[Rule] = [
            (re.compile(r"\brank\s*#?\s*(\d+)"), self._rank_tail),
            (re.compile(r"(?:\bnode\s+|\bon\s+|\bhost\s+)([a-z0-9][\w.-]*\d[\w.-]*)"), self._node),
            (re.compile(r"hardware|software|\bbad (?:gpu|node)|faulty|\brma\b"), self._hardware),
            (re.compile(r"how long|take to fix|time to fix|\beta\b"), self._fix_time),
            (re.compile(r"verify|confirm|prove|check (?:the|that|if)"), self._verify),
            (
                re.compile(r"what else|other (?:cause|explanation|possibilit)|alternative|could it be"),
                self._alts,
            ),
            (re.compile(r"first|initiat|root rank|started|which rank|who failed|culprit"), self._first),
            (re.compile(r"\bfix\b|solve|workaround|what (?:should|do) (?:i|we) do"), self._fix),
        ]

    def answer(self, question: str) -> Answer:
        q = question.lower()
        for pattern, handler in self._rules:
            match = pattern.search(q)
            if match:
                result = handler(match)
                if result is not None:
                    return result
        return self._search(question) or self._unknown("no intent or knowledge section matched")

    # ------------------------------------------------------------------ evidence intents
    def _first(self, _m: re.Match[str]) -> Answer:
        d, ini = self.d, self.d.initiating
        if ini.rank is None and not ini.evidence:
            return self._unknown("no rank could be singled out")
        evidence = ini.evidence[-FIRST_RANK_LINES:]
        collateral = sorted({r for g in d.collateral for r in g.ranks}) if d.collateral else None
        material = [f"initiating rank {ini.rank} node {ini.node} time {ini.time}", d.root_cause]
        material += [ln.text for ln in ini.evidence[:FIRST_RANK_LINES]]
        return FirstRank(
            "first_rank",
            material,
            rank=ini.rank,
            node=ini.node,
            time=ini.time,
            evidence=evidence,
            root_cause=d.root_cause,
            collateral_ranks=collateral,
        )

    def _rank_tail(self, m: re.Match[str]) -> Answer:
        rank = int(m.group(1))
        tail = next((t for t in self.d.tails if t.rank == rank), None)
        if tail is None:
            ini = self.d.initiating
            if rank == ini.rank and ini.evidence:
                return RankLines(
                    "rank_tail", [ln.text for ln in ini.evidence], rank=rank, lines=ini.evidence[-TAIL_LINES:]
                )
            ranks = [t.rank for t in self.d.tails if t.rank is not None]
            return NoRankLines("rank_tail", [], known=False, rank=rank, ranks_with_lines=ranks)
        lines = tail.lines[-TAIL_LINES:]
        return RankLines(
            "rank_tail", [ln.text for ln in lines], rank=rank, lines=lines, source=tail.source, node=tail.node
        )

    def _node(self, m: re.Match[str]) -> Answer | None:
        node = m.group(1)
        if node not in self.d.nodes:
            known = [n for n in self.d.nodes if n.lower() == node.lower()]
            if not known:
                if not self.d.nodes and not re.search(r"gpu|node|host|\d", node):
                    return None
                return NoNodeLines("node", [], known=False, node=node, nodes=list(self.d.nodes))
            node = known[0]
        lines = self.d.nodes[node][-TAIL_LINES:]
        ranks = [t.rank for t in self.d.tails if t.node == node and t.rank is not None]
        return NodeLines("node", [ln.text for ln in lines], node=node, ranks=ranks, lines=lines)

    def _faq(self, intent: str, attr: str) -> Answer:
        if self.entry is None:
            return self._unknown("this failure has no knowledge entry")
        value: str = getattr(self.entry.faq, attr)
        return EntryText(intent, [value], text=value)

    def _hardware(self, _m: re.Match[str]) -> Answer:
        return self._faq("hardware_or_software", "hardware_or_software")

    def _fix_time(self, _m: re.Match[str]) -> Answer:
        return self._faq("fix_time", "fix_time")

    def _verify(self, _m: re.Match[str]) -> Answer:
        material = [self.d.verify] if self.d.verify else []
        confirmation = self.entry.faq.cheapest_confirmation if self.entry is not None else None
        if confirmation is not None:
            material.append(confirmation)
        if not material:
            return self._unknown("no verify command")
        return Verify("verify", material, command=self.d.verify, confirmation=confirmation)

    def _alts(self, _m: re.Match[str]) -> Answer:
        shown = self.d.alternatives[:ALTERNATIVES]
        alternatives = []
        for alt in shown:
            entry = self.related.get(alt.id)
            alternatives.append(Alternative(alt.title, entry.symptom if entry else None))
        return Alternatives("alternatives", [a.title for a in shown], alternatives=alternatives)

    def _fix(self, _m: re.Match[str]) -> Answer:
        if not self.d.fix and self.entry is None:
            return self._unknown("no fix is recorded")
        material = [self.d.fix] if self.d.fix else []
        if self.entry is None:
            return Fix("fix", material, fix=self.d.fix)
        steps = list(self.entry.fix.steps)
        return Fix("fix", material + steps, fix=self.d.fix, steps=steps, snippet=self.entry.fix.snippet)

    # ------------------------------------------------------------------ knowledge search
    def _search(self, question: str) -> Answer | None:
        found = self.index.search(question) if self.index is not None else None
        return EntryText("knowledge", [found], text=found) if found is not None else None

    def _unknown(self, reason: str) -> Answer:
        return Unknown(
            "unknown", [reason], known=False, reason=reason, helpful=list(self.d.missing_evidence[:3])
        )


class AnswerBook:
    """Answers over a set of entries; each entry's search index is built on first use, then kept."""

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        self.entries = entries
        self._indexes: dict[str, FaqIndex] = {}

    def index(self, entry: Entry) -> FaqIndex:
        if entry.id not in self._indexes:
            self._indexes[entry.id] = FaqIndex(entry)
        return self._indexes[entry.id]

    def answerer(self, diagnosis: Diagnosis) -> Answerer:
        entry = self.entries.get(diagnosis.entry.id) if diagnosis.entry else None
        index = self.index(entry) if entry is not None else None
        return Answerer(diagnosis, entry, self.entries, index)

    def answer(self, diagnosis: Diagnosis, question: str) -> Answer:
        return self.answerer(diagnosis).answer(question)
