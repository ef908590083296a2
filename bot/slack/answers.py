"""Follow-up answers rendered as Slack mrkdwn; the answering itself is `knowledge.answers`.

Every text that came from a log, an entry or a user is escaped (`mrkdwn.escape`), log lines go in
code blocks (`code_safe`) with their `file:line`, so a reader can find them in the job's logs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.slack.mrkdwn import code_safe, escape
from denpex.core.models import Diagnosis, EvidenceLine
from knowledge import answers as k
from knowledge.intents import IntentMatcher
from knowledge.schema import Entry


@dataclass
class Answer:
    intent: str
    text: str  # mrkdwn, escaped
    material: list[str] = field(default_factory=list)  # plain grounded facts (masked) for an LLM
    known: bool = True


def _lines(lines: list[EvidenceLine]) -> str:
    rows = [f"{ln.ref}  {ln.text}" for ln in lines]
    return "```" + code_safe("\n".join(rows)) + "```" if rows else ""


def render_text(answer: k.Reply) -> str:
    """Lead, then the lines that show it, then the steps, the code and what to do."""
    parts = [escape(answer.lead), _lines(answer.lines)]
    if answer.bullets:
        parts.append("\n".join(f"{i}. {escape(b)}" for i, b in enumerate(answer.bullets, 1)))
    if answer.code:
        parts.append(f"```{code_safe(answer.code)}```")
    if answer.action:
        parts.append(escape(answer.action))
    return "\n".join(p for p in parts if p)


def render(answer: k.Reply) -> Answer:
    return Answer(answer.intent, render_text(answer), answer.material, answer.known)


class Answerer:
    """One diagnosis's answers, rendered (the knowledge answerer underneath, plus mrkdwn)."""

    def __init__(
        self,
        diagnosis: Diagnosis,
        entry: Entry | None,
        related: Mapping[str, Entry] | None = None,
        matcher: IntentMatcher | None = None,
    ) -> None:
        self.answerer = k.Answerer(diagnosis, entry, related, matcher)

    def answer(self, question: str) -> Answer:
        return render(self.answerer.answer(question))
