"""The public engine API others code against: load once, diagnose many; cache; progress; missing."""

from __future__ import annotations

from pathlib import Path

from denpex.core.models import LogSource, MissingEvidence
from knowledge.engine import Engine
from knowledge.sources import discover
from tests.knowledge import scenarios
from tests.knowledge.engine_support import entries_dir


def test_keyword_api_progress_and_given_missing_evidence(tmp_path: Path, engine: Engine) -> None:
    srcs = discover([scenarios.oom_then_watchdog(tmp_path)])
    seen: list[int] = []
    given = MissingEvidence(what="kernel log of gpu-07", next_action="node was reimaged")
    diag = engine.diagnose(sources=srcs, missing=[given], progress=seen.append)
    assert seen and seen == sorted(seen) and seen[-1] == diag.stats.bytes
    assert diag.missing_evidence[0] == given
    again = engine.diagnose(srcs)  # the same engine serves job after job
    assert again.initiating.rank == diag.initiating.rank == 5


def test_compiled_database_cache_gives_the_same_answer(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = Engine.load(entries_dir(), cache_dir=cache)
    assert list(cache.glob("hs-*.db"))
    second = Engine.load(entries_dir(), cache_dir=cache)
    job = scenarios.desync(tmp_path / "job")
    a, b = first.diagnose(discover([job])), second.diagnose(discover([job]))
    assert (a.category, a.initiating.rank) == (b.category, b.initiating.rank) == ("nccl_timeout", 3)


def test_collector_sources_with_chunks_and_scheduler_facts(engine: Engine) -> None:
    log = b"".join(f"[rank1]: step {i} loss 2.0\n".encode() for i in range(1000))
    log += b"[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n"
    sources = [
        LogSource(name="pod-worker-1", chunks=lambda: (log[i : i + 4096] for i in range(0, len(log), 4096))),
        LogSource(name="k8s", kind="scheduler", data=b"kubernetes: pod worker-1 Reason=Error ExitCode=1\n"),
    ]
    diag = engine.diagnose(sources)
    assert diag.category == "gpu_oom" and diag.initiating.rank == 1
    assert diag.initiating.evidence[0].line == 1001
