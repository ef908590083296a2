"""The terms the fixes use (flags, environment variables, API names, config keys), explained.

A fix that says "set `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`" is only useful to someone who
knows what it does; "what does expandable_segments mean?" in the thread is answered from
`data/glossary.toml`. `fix_terms` finds every such term in an entry's fix, so a test can hold the
glossary to covering all of them.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from knowledge.schema import DATA_DIR, Entry

GLOSSARY_PATH = DATA_DIR / "glossary.toml"
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9_-]+")
_ENV = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_API = re.compile(r"`([A-Za-z_][\w.]*\.[\w.]+)(?:\(\))?`")
_SNAKE = re.compile(r"`[^`]*?\b([a-z][a-z0-9]*_[a-z0-9_]+)\b[^`]*`")


@dataclass(frozen=True, slots=True)
class Term:
    name: str
    text: str
    aliases: tuple[str, ...] = ()


def load_glossary(path: Path | None = None) -> dict[str, Term]:
    """Every term by its lower-cased name and aliases."""
    raw = tomllib.loads((path or GLOSSARY_PATH).read_text(encoding="utf-8"))
    out: dict[str, Term] = {}
    for item in raw.get("term", []):
        t = Term(str(item["name"]), str(item["text"]), tuple(str(a) for a in item.get("aliases", [])))
        for key in (t.name, *t.aliases):
            out[key.lower()] = t
    return out


def fix_terms(entry: Entry) -> set[str]:
    """The flags, environment variables, API names and config keys an entry's fix mentions."""
    steps = " ".join(entry.fix.steps)
    text = steps + "\n" + entry.fix.snippet
    found = set(_FLAG.findall(text)) | set(_ENV.findall(text))
    found |= set(_API.findall(steps)) | set(_SNAKE.findall(steps))
    return found


def find(question: str, glossary: Mapping[str, Term]) -> Term | None:
    """The longest glossary term the question names (`--max_steps`, `NCCL_DEBUG`, `zero_to_fp32`)."""
    q = question.lower()
    best: tuple[int, Term] | None = None
    for key, term in glossary.items():
        if len(key) < 3:
            continue
        if re.search(r"(?<![\w-])" + re.escape(key) + r"(?![\w])", q) and (
            best is None or len(key) > best[0]
        ):
            best = (len(key), term)
    return best[1] if best is not None else None
