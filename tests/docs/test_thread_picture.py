"""The README's thread picture: the demo's real thread, rendered by real headless Chromium.

`scripts/thread-picture` makes `docs/img/thread.png` from the same HTML; this test renders that HTML
in the browser (`--dump-dom`, the DOM after Chromium laid it out) and checks what a reader must see.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from denpex.demo import PLANTED_TOKEN

ROOT = Path(__file__).resolve().parents[2]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "thread_picture", ROOT / "docs" / "tools" / "thread_picture.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    if not any(shutil.which(c) for c in ("/usr/bin/chromium", "chromium", "chromium-browser")):
        pytest.fail("Chromium is missing: scripts/bootstrap installs the chromium package")
    return _tool()


def test_chromium_renders_the_demo_thread(tool: ModuleType, tmp_path: Path) -> None:
    page = tmp_path / "thread.html"
    page.write_text(tool.render_html(tool.demo_thread()), encoding="utf-8")
    dom = tool.dump_dom(page)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))
    for expected in (
        "Failed first:",
        "rank 5 on gpu-02",
        "while training",
        "Trigger:",
        "batch of 4 x 16384 tokens",
        "In your code:",
        "/workspace/train.py:412",
        "2.41 GiB is reserved by PyTorch but unallocated",
        "deepspeed --num_nodes 2 --num_gpus 4 /workspace/train.py",
        # what happened to the other ranks in their own terms, not the category name
        "ranks 0-4,6,7: timed out waiting in a collective (NCCL watchdog: _REDUCE_SCATTER_BASE, "
        "600000 ms), 10 min later",
        "Details",
    ):
        assert expected in text, expected
    assert text.count("# keep the global batch, halve the per-GPU micro-batch") == 1  # the snippet once
    assert PLANTED_TOKEN not in dom
    height = re.search(r"<title>(\d+)</title>", dom)
    assert height and 600 < int(height.group(1)) < 4000  # laid out, one screen of thread


def test_mrkdwn_is_drawn_as_slack_does_and_log_text_stays_text(tool: ModuleType) -> None:
    out = tool.mrkdwn_html("*Job `*x*` failed* &lt;script&gt; <b> ```a\n*b*```")
    assert out.startswith("<b>Job <code>*x*</code> failed</b>")
    assert "&lt;script&gt;" in out and "<b> " not in out.split("</b>", 1)[1]
    assert "<pre>a\n*b*</pre>" in out


def test_the_readme_shows_the_picture() -> None:
    png = ROOT / "docs" / "img" / "thread.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "docs/img/thread.png" in (ROOT / "README.md").read_text()
