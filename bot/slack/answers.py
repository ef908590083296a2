"""Follow-up answers rendered as Slack mrkdwn; the answering itself is `knowledge.answers`.

Every text that came from a log, an entry or a user is escaped (`mrkdwn.escape`), log lines go in
code blocks (`code_safe`), and rank lists use the engine's own grouping (`rank_ranges`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import singledispatch

from bot.slack.mrkdwn import code_safe, escape, rank_ranges
from denpex.core.models import Diagnosis, EvidenceLine
from denpex.core.texts import slack as texts
from knowledge import answers as k
from knowledge.schema import Entry


@dataclass
class Answer:
    intent: str
    text: str  # mrkdwn, escaped
    material: list[str] = field(default_factory=list)  # plain grounded facts (masked) for an LLM
    known: bool = True


def _lines(lines: list[EvidenceLine]) -> str:
    rows = [f"{ln.source}:{ln.line}  {ln.text}" for ln in lines]
    return "```" + code_safe("\n".join(rows)) + "```" if rows else ""


@singledispatch
def render_text(answer: k.Answer) -> str:
    raise TypeError(f"no rendering for {type(answer).__name__}")


@render_text.register
def _(a: k.FirstRank) -> str:
    where = f"rank {a.rank}" if a.rank is not None else "no single rank"
    where += f" on `{escape(a.node)}`" if a.node else ""
    when = f" at {escape(a.time)}" if a.time else ""
    parts = [f"*{where}* failed first{when}.", _lines(a.evidence)]
    if a.root_cause:
        parts.append(f"*Why:* {escape(a.root_cause)}")
    if a.collateral_ranks is not None:
        ranks = rank_ranges(a.collateral_ranks)
        parts.append(f"The other failing ranks ({ranks}) were collateral: they waited on it.")
    return "\n".join(p for p in parts if p)


@render_text.register
def _(a: k.RankLines) -> str:
    if a.source is None:
        return f"Rank {a.rank}'s evidence lines:\n{_lines(a.lines)}"
    node = f" on `{escape(a.node)}`" if a.node else ""
    return f"Last lines of *rank {a.rank}*{node} (`{escape(a.source)}`):\n{_lines(a.lines)}"


@render_text.register
def _(a: k.NoRankLines) -> str:
    return texts.NO_TAIL.format(rank=a.rank, ranks=rank_ranges(a.ranks_with_lines) or "none")


@render_text.register
def _(a: k.NodeLines) -> str:
    on = f" (ranks {rank_ranges(a.ranks)})" if a.ranks else ""
    return f"On *{escape(a.node)}*{on}:\n{_lines(a.lines) or 'no kernel or scheduler lines were recorded.'}"


@render_text.register
def _(a: k.NoNodeLines) -> str:
    nodes = ", ".join(f"`{escape(n)}`" for n in a.nodes) or "none"
    return texts.NO_NODE.format(node=escape(a.node), nodes=nodes)


@render_text.register
def _(a: k.EntryText) -> str:
    return escape(a.text)


@render_text.register
def _(a: k.Verify) -> str:
    parts = [f"Run this after the fix:\n```{code_safe(a.command)}```"] if a.command else []
    if a.confirmation is not None:
        parts.append(f"*Cheapest confirmation:* {escape(a.confirmation)}")
    return "\n".join(parts)


@render_text.register
def _(a: k.Alternatives) -> str:
    if not a.alternatives:
        return texts.NO_ALTERNATIVES
    rows = []
    for alt in a.alternatives:
        why = f" — {escape(alt.symptom[:200])}" if alt.symptom is not None else ""
        rows.append(f"• *{escape(alt.title)}*{why}")
    return "Less likely, given the evidence:\n" + "\n".join(rows)


@render_text.register
def _(a: k.Fix) -> str:
    parts = [f"*Fix:* {escape(a.fix)}"] if a.fix else []
    if a.steps is not None:
        parts.append("\n".join(f"{i}. {escape(s)}" for i, s in enumerate(a.steps, 1)))
        if a.snippet:
            parts.append(f"```{code_safe(a.snippet)}```")
    return "\n".join(parts)


@render_text.register
def _(a: k.Unknown) -> str:
    return texts.dont_know([escape(f"{m.what}: {m.next_action}") for m in a.helpful])


def render(answer: k.Answer) -> Answer:
    return Answer(answer.intent, render_text(answer), answer.material, answer.known)


class Answerer:
    """One diagnosis's answers, rendered (the knowledge answerer underneath, plus mrkdwn)."""

    def __init__(
        self,
        diagnosis: Diagnosis,
        entry: Entry | None,
        related: Mapping[str, Entry] | None = None,
        index: k.FaqIndex | None = None,
    ) -> None:
        self.answerer = k.Answerer(diagnosis, entry, related, index)

    def answer(self, question: str) -> Answer:
        return render(self.answerer.answer(question))
