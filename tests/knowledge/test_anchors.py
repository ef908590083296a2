"""`knowledge/anchors.py`: anchors that hold behind colours and timestamps, and the split of a pattern
into simpler expressions whose union it is. Both are checked on every pattern the engine loads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from knowledge.anchors import scan_forms, split_alternation, tolerant
from knowledge.phases import load_markers
from knowledge.schema import load_entries

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def _lines() -> list[str]:
    lines = []
    for f in sorted(CORPUS.glob("*/logs/*")):
        lines += f.read_bytes().decode("utf-8", "replace").splitlines()
    return lines


def _patterns() -> list[tuple[str, str, bool]]:
    out = []
    for e in load_entries():
        out += [(f"{e.id}/{s.id}", s.pattern, s.caseless) for s in [*e.signatures, *e.context]]
    out += [(m.id, m.pattern, m.caseless) for m in load_markers()]
    return out


def _matching(rx: list[re.Pattern[str]], lines: list[str]) -> set[int]:
    return {i for i, line in enumerate(lines) if any(r.search(line) for r in rx)}


def test_split_forms_match_exactly_the_lines_the_pattern_matches() -> None:
    """The union of a pattern's scan forms is the pattern: same corpus lines for every pattern."""
    lines = _lines()
    assert len(lines) > 1000
    split = 0
    for name, pattern, caseless in _patterns():
        flags = re.IGNORECASE if caseless else 0
        forms = scan_forms(pattern)
        split += len(forms) > 1
        whole = _matching([re.compile(pattern, flags)], lines)
        parts = _matching([re.compile(f, flags) for f in forms], lines)
        assert parts == whole, name
    assert split >= 50  # the split is in use, not a no-op


def test_tolerant_anchors_keep_every_match_and_add_delivered_forms() -> None:
    killed = re.compile(tolerant(r"^[ \t*_>`]*Killed[ \t\r*_`]*$"), re.MULTILINE)
    for line in ["Killed", "**Killed**", "\x1b[0;31mKilled\x1b[0m", "2024-05-01T10:00:00.123456789Z Killed"]:
        assert killed.search(line), line
    assert not killed.search("Killed process 51234 (python)")
    assert tolerant(r"[^$^]x") == r"[^$^]x"  # inside a class nothing is an anchor
    assert tolerant(r"a\$b") == r"a\$b"


@pytest.mark.parametrize(
    ("pattern", "forms"),
    [
        (r"x(?:ab|cd|ef)y", ["x(?:ab)y", "x(?:cd)y", "x(?:ef)y"]),
        (r"(a|b|c)+", ["(a|b|c)+"]),  # a quantified group is not a union of its branches
        (r"(a|b)", ["(a|b)"]),  # two branches: not worth it
        (r"[]|(](a|b|c)", ["[]|(](?:a)", "[]|(](?:b)", "[]|(](?:c)"]),  # `]` first in a class is literal
        (r"\((a|b|c)\)", [r"\((?:a)\)", r"\((?:b)\)", r"\((?:c)\)"]),
        (r"(?i)(a|b|c)", ["(?i)(?:a)", "(?i)(?:b)", "(?i)(?:c)"]),
    ],
)
def test_split_alternation(pattern: str, forms: list[str]) -> None:
    assert split_alternation(pattern) == forms


def test_scan_forms_split_top_level_branches_first() -> None:
    assert scan_forms(r"a|b|(c|d|e)f") == ["a", "b", "(?:c)f", "(?:d)f", "(?:e)f"]
    assert scan_forms(r"(?i)a|b") == [r"(?i)a|b"]  # inline flags apply to all branches: left whole
