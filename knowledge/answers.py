"""Answers to follow-up questions, from this job's facts first.

A question is matched to an intent (`knowledge.intents`: rules plus BM25 over phrasings) and answered
from the job's facts (`knowledge.jobfacts_answers`: each rank's role, times, lines and the figures in
them). Every answer is a `Reply`: a first sentence that answers with this job's facts, then the lines
that show it, then what to do. A question no intent matches gets example questions fitted to this
job, never a paragraph of the entry's general text. No model and no network are involved.

The answers are structured, never formatted: the Slack app renders them (`bot.slack.answers`). Each
carries the grounded `material` it used, so an optional LLM may rephrase it without seeing anything
else. The intent index and the glossary are built once (`AnswerBook`), not once per question.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from denpex.core.models import Diagnosis, PastIncident
from denpex.core.texts import slack as t
from knowledge import answer_advice, answer_facts
from knowledge.answer_types import Ctx, Reply
from knowledge.facts import load_catalogue
from knowledge.glossary import Term, load_glossary
from knowledge.intents import CUE_WEIGHT, MIN_SCORE, IntentMatcher, Match
from knowledge.jobfacts_answers import build
from knowledge.schema import Entry, Xid

__all__ = ["AnswerBook", "Answerer", "Reply"]


Handler = Callable[[Ctx, Match], Reply | None]
#: intents a question naming one of the job's nodes (and no rank) asks about that node
NODE_FIRST = frozenset({"ranks_count", "which_rank", "show_lines"})
HANDLERS: dict[str, Handler] = {
    "which_rank": answer_facts.which_rank,
    "rank_why": answer_facts.rank_why,
    "when": answer_facts.when,
    "ranks_count": answer_facts.ranks_count,
    "phase": answer_facts.phase,
    "memory": answer_facts.memory,
    "show_lines": answer_facts.show_lines,
    "node": answer_facts.node,
    "hardware": answer_advice.hardware,
    "restart": answer_advice.restart,
    "fix": answer_advice.fix,
    "verify": answer_advice.verify,
    "alternatives": answer_advice.alternatives,
    "explain": answer_advice.explain,
    "activity": answer_advice.activity,
    "fix_time": answer_advice.fix_time,
    "history": answer_advice.history,
}


class Answerer:
    """Answers questions about one diagnosis (and its entry, when the knowledge base has it)."""

    def __init__(
        self,
        diagnosis: Diagnosis,
        entry: Entry | None,
        related: Mapping[str, Entry] | None = None,
        matcher: IntentMatcher | None = None,
        glossary: Mapping[str, Term] | None = None,
        xids: Mapping[int, Xid] | None = None,
        past: Sequence[PastIncident] | None = None,
    ) -> None:
        self.ctx = Ctx(
            d=diagnosis,
            view=build(diagnosis),
            entry=entry,
            related=related or {},
            glossary=glossary if glossary is not None else load_glossary(),
            xids=xids if xids is not None else load_catalogue(),
            past=past,
        )
        self.matcher = matcher or IntentMatcher()

    def answer(self, question: str) -> Reply:
        """The first intent, best first, whose handler can answer from this job's facts."""
        nodes = self.ctx.view.nodes + list(self.ctx.d.nodes)
        m = self.matcher.match(question, nodes)
        ranked = self.matcher.scores(question)
        asks_meaning = any(i == "explain" and score >= CUE_WEIGHT for score, _, i in ranked)
        if asks_meaning and (term := answer_advice.explain(self.ctx, m)) is not None:
            return term  # "what is the OOM killer?": the term, before the memory figures
        for score, _, intent in ranked:
            if score < MIN_SCORE:
                break
            if intent in NODE_FIRST and m.node in nodes and m.rank is None:
                intent = "node"  # "which ranks were on gpu-02?", "show gpu-02's lines": that node's facts
            reply = HANDLERS[intent](self.ctx, m)
            if reply is not None:
                return reply
        if m.node is not None:
            reply = answer_facts.node(self.ctx, m)
            if reply is not None:
                return reply
        return self.help()

    def help(self) -> Reply:
        """What it can answer, with example questions fitted to this job."""
        v = self.ctx.view
        ini = v.initiating
        examples = []
        if ini is not None:
            examples.append(f"why did rank {ini.rank} fail?")
        coll = v.with_role("collateral")
        if coll:
            examples.append(f"what was rank {coll[-1].rank} doing?")
        if v.numbers.oom is not None or v.numbers.kill is not None:
            examples.append("how far over the memory was it?")
        elif v.numbers.xid is not None:
            examples.append("is it hardware?")
        else:
            examples.append("is it safe to restart as is?")
        if len(examples) < 3:
            examples.append("what else could it be?")
        lead = t.can_answer(examples[:3])
        return Reply("help", [lead], known=False, lead=lead)


class AnswerBook:
    """Answers over a set of entries; the intent index and the glossary are built once, then kept."""

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        self.entries = entries
        self.matcher = IntentMatcher()
        self.glossary = load_glossary()
        self.xids = load_catalogue()

    def answerer(self, diagnosis: Diagnosis, past: Sequence[PastIncident] | None = None) -> Answerer:
        entry = self.entries.get(diagnosis.entry.id) if diagnosis.entry else None
        return Answerer(diagnosis, entry, self.entries, self.matcher, self.glossary, self.xids, past)

    def answer(
        self, diagnosis: Diagnosis, question: str, past: Sequence[PastIncident] | None = None
    ) -> Reply:
        return self.answerer(diagnosis, past).answer(question)
