"""Every code block in README.md (and docs/engine.md) runs as written: a newcomer copies them first.

Python blocks are executed in a fresh interpreter from the repo root; for shell blocks, each
`denpex SUBCOMMAND` named must exist (its `--help` exits 0), which is cheap and catches renames.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: the README links here for the engine's API; its snippets must run as written too
DOCS = (README, ROOT / "docs" / "engine.md")
DENPEX = Path(sys.executable).with_name("denpex")
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks(lang: str) -> list[str]:
    return [body for doc in DOCS for kind, body in _BLOCK.findall(doc.read_text()) if kind == lang]


def _subcommands() -> list[str]:
    found = {m for b in _blocks("sh") for m in re.findall(r"(?:^|\s)denpex ([a-z][a-z0-9-]+)(?=\s|$)", b)}
    return sorted(found)


@pytest.mark.parametrize("code", _blocks("python"), ids=lambda c: c.splitlines()[0][:40])
def test_python_snippet_runs(code: str) -> None:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("sub", _subcommands())
def test_denpex_subcommand_exists(sub: str) -> None:
    done = subprocess.run([str(DENPEX), sub, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"denpex {sub} --help: {done.stderr[-500:]}"


def test_quick_start_is_two_commands() -> None:
    quick = README.read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = _BLOCK.search(quick)
    assert block is not None
    cmds = [ln.split("#")[0].strip() for ln in block.group(2).splitlines() if ln.split("#")[0].strip()]
    assert cmds == ["scripts/demo", "scripts/test"]
