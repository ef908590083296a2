"""docs/coverage.md is generated from the entries: it must say what the knowledge base holds today."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from knowledge.schema import load_entries

ROOT = Path(__file__).resolve().parents[2]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "coverage_table", ROOT / "docs" / "tools" / "coverage_table.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_page_matches_the_entries() -> None:
    tool = _tool()
    page = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    assert tool.render(page, load_entries()) == page, "run: .venv/bin/python docs/tools/coverage_table.py"


def test_every_signature_names_its_source() -> None:
    missing = [f"{e.id}:{s.id}" for e in load_entries() for s in e.signatures if not s.source.strip()]
    assert missing == []


@pytest.mark.parametrize(
    ("source", "column"),
    [
        ("pytorch/pytorch@v2.5.0:torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", "PT"),
        ("NVIDIA/nccl@v2.21.5-1:src/transport/net_ib.cc", "NCCL"),
        ("https://slurm.schedmd.com/sacct.html#SECTION_JOB-STATE-CODES", "Slurm"),
        ("https://docs.nvidia.com/deploy/xid-errors/index.html", "Xid"),
        ("https://github.com/someone/some-thread/issues/3", "other"),
    ],
)
def test_sources_fall_in_their_framework(source: str, column: str) -> None:
    assert _tool().framework_of(source) == column


def test_a_page_without_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="markers"):
        _tool().render("# no markers here\n", load_entries())


def test_the_table_counts_a_new_signature() -> None:
    tool = _tool()
    entries = load_entries()
    page = "<!-- coverage:begin -->\n<!-- coverage:end -->\n"
    before = tool.render(page, entries)
    first = entries[0]
    extra = first.signatures[0].model_copy(
        update={"id": "added-for-test", "source": "NVIDIA/apex@25.09:x.py"}
    )
    grown = [first.model_copy(update={"signatures": [*first.signatures, extra]}), *entries[1:]]
    after = tool.render(page, grown)
    total = sum(len(e.signatures) for e in entries)
    assert f"{total} signatures of {len(entries)} entries" in before
    assert f"{total + 1} signatures of {len(entries)} entries" in after
    assert f"| apex | `{first.category}` |" in after
