"""The held-out follow-up questions (heldout_questions.toml), scored against the real answer layer.

Kept apart from the tests so the score can be printed while working on the matcher:
`.venv/bin/python -m tests.slack.heldout [-v] [questions.toml]` diagnoses the six fact jobs and prints
every miss.
A question is right when it was answered (not the help reply), every required group of facts is in
the answer and no forbidden claim is.
"""

from __future__ import annotations

import sys
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.slack.answers import Answerer
from denpex.core.models import Diagnosis
from knowledge.schema import load_entries
from tests.slack import factjobs

QUESTIONS = Path(__file__).with_name("heldout_questions.toml")


@dataclass(frozen=True)
class Question:
    job: str
    text: str
    must: tuple[str, ...]
    must_not: tuple[str, ...]
    batch: int = 1


@dataclass(frozen=True)
class Outcome:
    question: Question
    intent: str
    answer: str
    missing: tuple[str, ...]
    false_claims: tuple[str, ...]

    @property
    def right(self) -> bool:
        """The help reply ("here's what I can answer") never counts: it answered nothing."""
        return self.intent != "help" and not self.missing and not self.false_claims


def load(path: Path = QUESTIONS) -> list[Question]:
    data = tomllib.loads(path.read_text())
    forbid: dict[str, list[str]] = data.get("forbid") or tomllib.loads(QUESTIONS.read_text())["forbid"]
    return [
        Question(
            q["job"],
            q["text"],
            tuple(q.get("must", [])),
            tuple(q.get("must_not", [])) + tuple(forbid.get(q["job"], [])),
            int(q.get("batch", 1)),
        )
        for q in data["q"]
    ]


def answerers(jobs: Mapping[str, Diagnosis]) -> dict[str, Answerer]:
    entries = {e.id: e for e in load_entries()}
    return {
        name: Answerer(d, entries.get(d.entry.id) if d.entry else None, entries) for name, d in jobs.items()
    }


def score(question: Question, answerer: Answerer) -> Outcome:
    answer = answerer.answer(question.text)
    low = answer.text.lower()
    missing = tuple(g for g in question.must if not any(alt.lower() in low for alt in g.split("|")))
    false = tuple(c for c in question.must_not if c.lower() in low)
    return Outcome(question, answer.intent, answer.text, missing, false)


def run(jobs: Mapping[str, Diagnosis], path: Path = QUESTIONS) -> list[Outcome]:
    by_job = answerers(jobs)
    return [score(q, by_job[q.job]) for q in load(path)]


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        jobs = {name: build(Path(tmp)) for name, build in factjobs.JOBS.items()}
        files = [Path(a) for a in argv if not a.startswith("-")]
        outcomes = run(jobs, files[0] if files else QUESTIONS)
    right = sum(o.right for o in outcomes)
    false = sum(bool(o.false_claims) for o in outcomes)
    for o in outcomes:
        if o.right and "-v" not in argv:
            continue
        mark = "ok  " if o.right else "MISS"
        print(f"{mark} [{o.question.job}] {o.question.text!r} -> {o.intent}")
        if not o.right:
            print(f"     missing={list(o.missing)} false={list(o.false_claims)}")
            print("     " + o.answer.replace("\n", "\n     ")[:1200])
    for batch in sorted({o.question.batch for o in outcomes}):
        mine = [o for o in outcomes if o.question.batch == batch]
        ok = sum(o.right for o in mine)
        print(f"batch {batch}: {ok}/{len(mine)} right ({100 * ok / len(mine):.1f} %)")
    print(
        f"\n{right}/{len(outcomes)} right ({100 * right / len(outcomes):.1f} %), {false} with a false claim"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
