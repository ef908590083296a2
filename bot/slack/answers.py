"""Answers to follow-up questions in a diagnosis thread, grounded in the stored diagnosis and its
knowledge entry — no cloud model.

Two layers: evidence questions matched by intent patterns ("which rank failed first", "show rank 12's
last lines", "what happened on gpu-07", ...) answered from `Diagnosis` fields, then BM25 (rank-bm25)
over the entry's FAQ and sections for everything else. What neither answers gets an honest "I don't
know" naming the evidence that would help. Each `Answer` also carries the grounded material it used,
so an optional LLM may rephrase it without seeing anything else.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rank_bm25 import BM25Okapi

from bot.slack.mrkdwn import code_safe, escape, rank_ranges
from denpex.models import Diagnosis
from denpex.texts import slack as texts
from knowledge.schema import Entry

TAIL_LINES = 15
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


@dataclass
class Answer:
    intent: str
    text: str  # mrkdwn, escaped
    material: list[str] = field(default_factory=list)  # plain grounded facts (masked) for an LLM
    known: bool = True


def _tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP]


def _lines(lines: list, limit: int = TAIL_LINES) -> str:
    rows = [f"{getattr(ln, 'source', '')}:{ln.line}  {ln.text}" for ln in lines[-limit:]]
    return "```" + code_safe("\n".join(rows)) + "```" if rows else ""


class Answerer:
    """Answers questions about one diagnosis (and its entry, when the knowledge base has it)."""

    def __init__(self, diagnosis: Diagnosis, entry: Entry | None, related: dict[str, Entry] | None = None):
        self.d, self.entry, self.related = diagnosis, entry, related or {}
        self._rules: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Answer | None]]] = [
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
        self._docs = self._faq_docs()
        self._bm25 = BM25Okapi([_tokens(q + " " + a) for q, a in self._docs]) if self._docs else None

    # ------------------------------------------------------------------ evidence intents
    def _first(self, _m: re.Match[str]) -> Answer:
        d, ini = self.d, self.d.initiating
        if ini.rank is None and not ini.evidence:
            return self._unknown("no rank could be singled out")
        where = f"rank {ini.rank}" if ini.rank is not None else "no single rank"
        where += f" on `{escape(ini.node)}`" if ini.node else ""
        when = f" at {escape(ini.time)}" if ini.time else ""
        parts = [f"*{where}* failed first{when}.", _lines(ini.evidence, 8)]
        if d.root_cause:
            parts.append(f"*Why:* {escape(d.root_cause)}")
        if d.collateral:
            ranks = sorted({r for g in d.collateral for r in g.ranks})
            parts.append(
                f"The other failing ranks ({rank_ranges(ranks)}) were collateral: they waited on it."
            )
        material = [f"initiating rank {ini.rank} node {ini.node} time {ini.time}", d.root_cause]
        material += [ln.text for ln in ini.evidence[:8]]
        return Answer("first_rank", "\n".join(p for p in parts if p), material)

    def _rank_tail(self, m: re.Match[str]) -> Answer:
        rank = int(m.group(1))
        tail = next((t for t in self.d.tails if t.rank == rank), None)
        if tail is None:
            if rank == self.d.initiating.rank and self.d.initiating.evidence:
                return Answer(
                    "rank_tail",
                    f"Rank {rank}'s evidence lines:\n{_lines(self.d.initiating.evidence)}",
                    [ln.text for ln in self.d.initiating.evidence],
                )
            ranks = rank_ranges([t.rank for t in self.d.tails if t.rank is not None]) or "none"
            return Answer("rank_tail", texts.NO_TAIL.format(rank=rank, ranks=ranks), [], known=False)
        node = f" on `{escape(tail.node)}`" if tail.node else ""
        text = f"Last lines of *rank {rank}*{node} (`{escape(tail.source)}`):\n{_lines(tail.lines)}"
        return Answer("rank_tail", text, [ln.text for ln in tail.lines[-TAIL_LINES:]])

    def _node(self, m: re.Match[str]) -> Answer | None:
        node = m.group(1)
        if node not in self.d.nodes:
            known = [n for n in self.d.nodes if n.lower() == node.lower()]
            if not known:
                if not self.d.nodes and not re.search(r"gpu|node|host|\d", node):
                    return None
                nodes = ", ".join(f"`{escape(n)}`" for n in self.d.nodes) or "none"
                return Answer("node", texts.NO_NODE.format(node=escape(node), nodes=nodes), [], known=False)
            node = known[0]
        lines = self.d.nodes[node]
        ranks = [t.rank for t in self.d.tails if t.node == node and t.rank is not None]
        on = f" (ranks {rank_ranges(ranks)})" if ranks else ""
        text = f"On *{escape(node)}*{on}:\n{_lines(lines) or 'no kernel or scheduler lines were recorded.'}"
        return Answer("node", text, [ln.text for ln in lines[-TAIL_LINES:]])

    def _faq(self, intent: str, attr: str, extra: str = "") -> Answer:
        if self.entry is None:
            return self._unknown("this failure has no knowledge entry")
        value = getattr(self.entry.faq, attr)
        return Answer(intent, escape(value) + extra, [value])

    def _hardware(self, _m: re.Match[str]) -> Answer:
        return self._faq("hardware_or_software", "hardware_or_software")

    def _fix_time(self, _m: re.Match[str]) -> Answer:
        return self._faq("fix_time", "fix_time")

    def _verify(self, _m: re.Match[str]) -> Answer:
        parts, material = [], []
        if self.d.verify:
            parts.append(f"Run this after the fix:\n```{code_safe(self.d.verify)}```")
            material.append(self.d.verify)
        if self.entry is not None:
            parts.append(f"*Cheapest confirmation:* {escape(self.entry.faq.cheapest_confirmation)}")
            material.append(self.entry.faq.cheapest_confirmation)
        return Answer("verify", "\n".join(parts), material) if parts else self._unknown("no verify command")

    def _alts(self, _m: re.Match[str]) -> Answer:
        if not self.d.alternatives:
            return Answer("alternatives", texts.NO_ALTERNATIVES, [])
        rows = []
        for alt in self.d.alternatives[:5]:
            entry = self.related.get(alt.id)
            why = f" — {escape(entry.symptom[:200])}" if entry else ""
            rows.append(f"• *{escape(alt.title)}*{why}")
        return Answer(
            "alternatives",
            "Less likely, given the evidence:\n" + "\n".join(rows),
            [a.title for a in self.d.alternatives[:5]],
        )

    def _fix(self, _m: re.Match[str]) -> Answer:
        parts, material = ([f"*Fix:* {escape(self.d.fix)}"], [self.d.fix]) if self.d.fix else ([], [])
        if self.entry is not None:
            steps = "\n".join(f"{i}. {escape(s)}" for i, s in enumerate(self.entry.fix.steps, 1))
            parts.append(steps)
            material += list(self.entry.fix.steps)
            if self.entry.fix.snippet:
                parts.append(f"```{code_safe(self.entry.fix.snippet)}```")
        return Answer("fix", "\n".join(parts), material) if parts else self._unknown("no fix is recorded")

    # ------------------------------------------------------------------ knowledge search
    def _faq_docs(self) -> list[tuple[str, str]]:
        e = self.entry
        if e is None:
            return []
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

    def _search(self, question: str) -> Answer | None:
        query = _tokens(question)
        if self._bm25 is None or not query:
            return None
        scores = self._bm25.get_scores(query)
        best = max(range(len(scores)), key=lambda i: scores[i])
        overlap = set(query) & set(_tokens(" ".join(self._docs[best])))
        if scores[best] <= 0 or not overlap:
            return None
        return Answer("knowledge", escape(self._docs[best][1]), [self._docs[best][1]])

    # ------------------------------------------------------------------ entry point
    def _unknown(self, reason: str) -> Answer:
        helpful = [escape(f"{m.what}: {m.next_action}") for m in self.d.missing_evidence[:3]]
        return Answer("unknown", texts.dont_know(helpful), [reason], known=False)

    def answer(self, question: str) -> Answer:
        q = question.lower()
        for pattern, handler in self._rules:
            match = pattern.search(q)
            if match:
                result = handler(match)
                if result is not None:
                    return result
        return self._search(question) or self._unknown("no intent or knowledge section matched")
