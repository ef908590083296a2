"""Knowledge entries fuzzed: a broken TOML file is an `EntryError` naming the file and the field,
never another exception; an entry that validates also compiles into a pattern database.

Strategies: real entries with random mutations (keys dropped, values replaced by random TOML values
of the wrong type or range, junk keys, random regexes), byte-level damage to real files, random text.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.engine import compile_patterns
from knowledge.patterns import PatternSet
from knowledge.schema import ENTRIES_DIR, EntryError, load_entry

REAL = sorted(ENTRIES_DIR.glob("*.toml"))[:12]
RAW = {p.stem: tomllib.loads(p.read_text()) for p in REAL}

leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(["(", "a{2,1}", "(?=x)", r"\1", "x*", "[", "gpu_oom"])
)
value = st.recursive(
    leaf.filter(lambda v: v is not None),
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.dictionaries(st.text("abcdef_", min_size=1, max_size=6), kids, max_size=3)
    ),
    max_leaves=6,
)


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def to_toml(doc: dict[str, Any]) -> str:
    plain = [
        f"{json.dumps(k)} = {toml_value(v)}"
        for k, v in doc.items()
        if not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v)) and v is not None
    ]
    tables = []
    for k, v in doc.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for row in v:
                body = "\n".join(
                    f"{json.dumps(a)} = {toml_value(b)}" for a, b in row.items() if b is not None
                )
                tables.append(f"[[{json.dumps(k)}]]\n{body}")
    return "\n".join(plain) + "\n\n" + "\n\n".join(tables) + "\n"


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(st.sampled_from(sorted(RAW)))
    doc = json.loads(json.dumps(RAW[name]))
    for _ in range(draw(st.integers(1, 4))):
        target = doc
        if draw(st.booleans()):
            tables = [k for k, v in doc.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
            if tables:
                rows = doc[draw(st.sampled_from(tables))]
                target = rows[draw(st.integers(0, len(rows) - 1))]
        key = draw(st.sampled_from([*sorted(target), "junk", "pattern", "weight", "window", "category"]))
        action = draw(st.sampled_from(["drop", "replace", "replace"]))
        if action == "drop":
            target.pop(key, None)
        else:
            target[key] = draw(value)
    return name, to_toml(doc)


def load(tmp: Path, name: str, text: str | bytes) -> None:
    path = tmp / f"{name}.toml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    try:
        entry = load_entry(path)
    except EntryError as exc:
        assert exc.path == path and exc.field and str(exc).startswith(path.name)
        return
    PatternSet(compile_patterns([entry]))  # what validates also compiles


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("entries")


@settings(max_examples=60)
@given(mutated())
def test_mutated_entries_raise_entry_error(tmp: Path, case: tuple[str, str]) -> None:
    load(tmp, *case)


@settings(max_examples=30)  # each example validates and compiles a whole entry
@given(st.sampled_from(REAL), st.lists(st.tuples(st.integers(0, 10**6), st.binary(max_size=4)), max_size=4))
def test_damaged_files_raise_entry_error(tmp: Path, path: Path, edits: list[tuple[int, bytes]]) -> None:
    data = bytearray(path.read_bytes())
    for pos, junk in edits:
        pos %= max(len(data), 1)
        data[pos : pos + len(junk)] = junk
    load(tmp, path.stem, bytes(data))


@given(st.text(max_size=300))
def test_random_text_raises_entry_error(tmp: Path, text: str) -> None:
    load(tmp, "random", text)
