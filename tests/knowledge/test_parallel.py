"""`--jobs N`: sources scanned on several processes give the diagnosis one process gives."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from denpex.cli import diagnose as cli
from knowledge import parallel
from knowledge.engine import Engine
from knowledge.scanner import Scanner, SourceScan
from knowledge.sources import discover

FIXTURES = Path(__file__).resolve().parent.parent / "realjobs" / "fixtures"
#: a real 4-rank torchrun job, one file per rank (torchrun's --log-dir)
PER_RANK = FIXTURES / "segfault" / "logs" / "torchrun-logs"


def _without_timing(text: str) -> dict[str, object]:
    out: dict[str, object] = json.loads(text)
    stats = out["stats"]
    assert isinstance(stats, dict)
    stats.pop("seconds")
    return out


@pytest.fixture
def pooled(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every job goes through the process pool however small it is; yields the pool sizes used."""
    used: list[int] = []
    forked = parallel._forked

    def counting(*args: object, **kwargs: object) -> object:
        used.append(int(args[3]))  # type: ignore[call-overload]
        return forked(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "_forked", counting)
    return used


def test_cli_jobs_2_prints_what_jobs_1_prints(
    pooled: list[int], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DENPEX_CACHE_DIR", str(tmp_path / "cache"))
    assert len(discover([PER_RANK])) >= 4
    assert cli.run([PER_RANK], "json", None, 1) == 0
    one = capsys.readouterr().out
    assert pooled == []
    assert cli.run([PER_RANK], "json", None, 2) == 0
    two = capsys.readouterr().out
    assert pooled == [2]
    assert _without_timing(two) == _without_timing(one)
    assert json.loads(one)["stats"]["files"] == 8  # four ranks, stdout and stderr each


def test_every_source_scans_the_same_on_a_child(engine: Engine, pooled: list[int]) -> None:
    sources = discover([PER_RANK])
    serial = parallel.scan_all(engine.scanner, sources, 2000, 1)
    forked = parallel.scan_all(engine.scanner, sources, 2000, 3)
    assert pooled == [3]
    assert [s.source for s in forked] == sources  # the caller's sources, in their order
    assert forked == serial


def test_a_child_that_dies_leaves_its_source_to_the_caller(
    engine: Engine, pooled: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    sources = discover([PER_RANK])
    victim = sources[1].name
    parent = os.getpid()
    scan = Scanner.scan

    def dying(self: Scanner, source: object, *args: object, **kwargs: object) -> SourceScan:
        if os.getpid() != parent and getattr(source, "name", None) == victim:
            os._exit(9)  # killed mid-scan (an OOM kill, a signal)
        return scan(self, source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Scanner, "scan", dying)
    serial = parallel.scan_all(engine.scanner, sources, 2000, 1)
    assert parallel.scan_all(engine.scanner, sources, 2000, 2) == serial
    assert pooled == [2]


def test_an_unreadable_source_fails_as_on_one_core(engine: Engine, pooled: list[int], tmp_path: Path) -> None:
    for rank in range(3):
        (tmp_path / f"rank{rank}.log").write_text(f"[rank{rank}]: step 1 loss 0.5\n")
    sources = discover([tmp_path])
    (tmp_path / "rank1.log").unlink()  # gone between discovery and the scan
    with pytest.raises(FileNotFoundError):
        parallel.scan_all(engine.scanner, sources, 2000, 1)
    with pytest.raises(FileNotFoundError):
        parallel.scan_all(engine.scanner, sources, 2000, 2)


def test_small_jobs_stay_in_process(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """No pool for a job below `PARALLEL_MIN_BYTES` or with one source: forking would cost more."""

    def forbidden(*args: object, **kwargs: object) -> object:
        raise AssertionError("a pool was started")

    monkeypatch.setattr(parallel, "_forked", forbidden)
    assert parallel.scan_all(engine.scanner, discover([PER_RANK]), 2000, 4)
    one = discover([PER_RANK])[:1]
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    assert parallel.scan_all(engine.scanner, one, 2000, 4)


def test_jobs_zero_means_every_cpu() -> None:
    assert parallel.resolve_jobs(0) == len(os.sched_getaffinity(0))
    assert parallel.resolve_jobs(3) == 3
