"""The knowledge pages' view of the entries: groups for `/kb/`, one entry, two entries side by side.

Everything shown is read from `knowledge/entries/*.toml` when the server starts; the templates only
lay it out, so an entry is written once, in its TOML file. Placeholders in snippets and verify
commands (`{nproc=8}`) are filled with their generic values, as a thread without job facts would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from knowledge.jobfacts import JobFacts
from knowledge.jobfill import fill
from knowledge.phases import PHASES
from knowledge.schema import CATEGORIES, Entry
from knowledge.wording import phase_words


@dataclass(frozen=True)
class Group:
    key: str
    label: str
    entries: list[Entry] = field(default_factory=list)


@dataclass(frozen=True)
class Row:
    """One line of the side-by-side table; `differs` marks what tells the two entries apart."""

    label: str
    left: list[str]
    right: list[str]

    @property
    def differs(self) -> bool:
        return self.left != self.right


@dataclass(frozen=True)
class Comparison:
    left: Entry
    right: Entry
    rows: list[Row]
    only_left: list[str]  # signatures (descriptions) only the left entry has
    only_right: list[str]


class KnowledgeBase:
    """The entries by id, grouped once; lookups for the route handlers."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.entries = {e.id: e for e in entries}
        self.by_category = _by_category(entries)
        self.by_phase = _by_phase(entries)

    def get(self, entry_id: str) -> Entry | None:
        return self.entries.get(entry_id)

    def related(self, entry: Entry) -> list[Entry]:
        """The entries it names as related, then those naming it (lookalikes go both ways)."""
        ids = list(entry.related) + [e.id for e in self.entries.values() if entry.id in e.related]
        seen: dict[str, Entry] = {}
        for i in ids:
            if i != entry.id and i in self.entries:
                seen.setdefault(i, self.entries[i])
        return list(seen.values())

    def compare(self, left: Entry, right: Entry) -> Comparison:
        rows = [
            Row("Symptom", [left.symptom], [right.symptom]),
            Row("Fingerprint", [left.faq.fingerprint], [right.faq.fingerprint]),
            Row("Lifecycle phases", phase_labels(left), phase_labels(right)),
            Row("Hardware or software", [left.faq.hardware_or_software], [right.faq.hardware_or_software]),
            Row("Root cause", [left.root_cause], [right.root_cause]),
            Row("Cheapest confirmation", [left.faq.cheapest_confirmation], [right.faq.cheapest_confirmation]),
            Row("First fix step", left.fix.steps[:1], right.fix.steps[:1]),
        ]
        ls, rs = _signature_texts(left), _signature_texts(right)
        return Comparison(left, right, rows, [s for s in ls if s not in rs], [s for s in rs if s not in ls])


def category_label(category: str) -> str:
    return category.replace("_", " ")


def phase_labels(entry: Entry) -> list[str]:
    return [phase_words(p) for p in entry.phases] or ["any phase"]


def snippet(entry: Entry) -> str:
    return fill(entry.fix.snippet, JobFacts()).strip() if entry.fix.snippet else ""


def verify_command(entry: Entry) -> str:
    return fill(entry.verify, JobFacts()).strip()


def search_text(entry: Entry) -> str:
    """What the client-side search matches: names, symptom, tags and what the signatures look for."""
    words = [entry.id, entry.title, category_label(entry.category), entry.symptom, *entry.tags]
    words += [s.description for s in entry.signatures if s.description]
    words += entry.observe
    return " ".join(words).lower()


def _signature_texts(entry: Entry) -> list[str]:
    return [s.description or s.id for s in entry.primary]


def _by_category(entries: Sequence[Entry]) -> list[Group]:
    groups = [Group(c, category_label(c)) for c in CATEGORIES]
    index = {g.key: g for g in groups}
    for e in sorted(entries, key=lambda e: e.title.lower()):
        index[e.category].entries.append(e)
    return [g for g in groups if g.entries]


def _by_phase(entries: Sequence[Entry]) -> list[Group]:
    groups = [Group(p, phase_words(p)) for p in PHASES] + [Group("", "any phase")]
    index = {g.key: g for g in groups}
    for e in sorted(entries, key=lambda e: e.title.lower()):
        for p in e.phases or [""]:
            index[p].entries.append(e)
    return [g for g in groups if g.entries]
