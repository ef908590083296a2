"""One scenario run live: a real 4-rank gloo job with torch 2.13 writes the dumps we analyse."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.flightrec import analyse_sources
from knowledge.sources import discover


def test_a_live_gloo_job_skipping_a_collective_is_named(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from tests.flightrec.generate_fixtures import generate

    files = generate("skip_collective", tmp_path)
    assert all(f.exists() for f in files)
    dumps = [s for s in discover([tmp_path]) if s.kind == "flight_recorder"]
    assert len(dumps) == 4
    result, missing = analyse_sources(dumps)
    assert missing == []
    assert result.suspect_ranks == [2]
    assert result.collectives.suspects[0].reason == "missing"
