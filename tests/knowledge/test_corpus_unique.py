"""Every corpus case is a different real failure: one issue thread never counts twice."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def test_no_thread_is_in_the_corpus_twice() -> None:
    urls = Counter(json.loads(p.read_text())["url"].rstrip("/") for p in CORPUS.glob("*/case.json"))
    assert urls, "no corpus cases found"
    assert [u for u, n in urls.items() if n > 1] == []
