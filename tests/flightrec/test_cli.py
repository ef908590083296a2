"""`denpex diagnose FOLDER --format json` with Flight Recorder dumps, as a user runs it."""

from __future__ import annotations

import shutil
from pathlib import Path

from denpex.core.models import Diagnosis
from tests.flightrec.dumps import FIXTURES
from tests.flightrec.test_reader import malicious_dump
from tests.knowledge import scenarios
from tests.knowledge.test_cli_diagnose import run


def _diagnose(*paths: Path) -> Diagnosis:
    proc = run(*map(str, paths), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return Diagnosis.model_validate_json(proc.stdout)


def test_folder_of_dumps_alone_names_suspects_and_initiating_rank(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "two_ranks_hang", tmp_path / "dumps")
    diag = _diagnose(tmp_path / "dumps")
    assert diag.suspect_ranks == [3, 5]
    assert diag.initiating.rank == 3
    (ev,) = diag.initiating.evidence
    assert ev.source == "nccl_trace_rank_3" and "never entered all_reduce #5" in ev.text
    assert [s.rank for s in diag.collectives.suspects] == [3, 5]
    assert diag.collectives.dumps == 8


def test_dumps_outrank_collateral_timeouts_in_the_logs(tmp_path: Path) -> None:
    for r in range(4):  # every rank's log only says it timed out waiting
        lines = scenarios.training(r, 50) + scenarios.watchdog(r, "1120 03:24:02.123456", seq=5)
        scenarios.write(tmp_path, f"rank{r}.log", lines)
    shutil.copytree(FIXTURES / "skip_collective", tmp_path / "fr")
    diag = _diagnose(tmp_path)
    assert diag.suspect_ranks == [2]
    assert diag.initiating.rank == 2
    assert diag.initiating.evidence[0].source.endswith("nccl_trace_rank_2")
    assert all(2 not in g.ranks for g in diag.collateral)


def test_a_dumps_evidence_is_cited_as_a_record_not_a_line(tmp_path: Path) -> None:
    """A dump is a pickle: `nccl_trace_rank_2:4` sent readers looking for a line 4 that isn't there
    (two blind batches asked), so the citation names the record and a log line keeps `file:line`."""
    for r in range(4):
        lines = scenarios.training(r, 50) + scenarios.watchdog(r, "1120 03:24:02.123456", seq=5)
        scenarios.write(tmp_path, f"rank{r}.log", lines)
    shutil.copytree(FIXTURES / "skip_collective", tmp_path / "fr")
    (ev,) = _diagnose(tmp_path).initiating.evidence
    assert ev.record and ev.ref == f"{ev.source} entries[{ev.line - 1}]"
    assert ":" not in ev.ref.rsplit("/", 1)[-1]
    log = _diagnose(tmp_path / "rank0.log").initiating.evidence[0]
    assert not log.record and log.ref == f"{log.source}:{log.line}"


def test_first_hand_failure_in_the_logs_decides_and_the_dump_adds_suspects(tmp_path: Path) -> None:
    scenarios.oom_then_watchdog(tmp_path)  # rank 5 OOMs first-hand
    shutil.copytree(FIXTURES / "two_ranks_hang", tmp_path / "fr")
    diag = _diagnose(tmp_path)
    assert diag.initiating.rank == 5
    assert diag.suspect_ranks == [3, 5]
    assert any(ev.source == "rank5.log" for ev in diag.initiating.evidence)


def test_hostile_and_broken_dumps_never_crash_and_run_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    shutil.copytree(FIXTURES / "skip_collective", tmp_path / "fr")
    malicious_dump(tmp_path / "fr" / "nccl_trace_rank_9", marker)
    data = (tmp_path / "fr" / "nccl_trace_rank_1").read_bytes()
    (tmp_path / "fr" / "nccl_trace_rank_1").write_bytes(data[: len(data) // 3])
    diag = _diagnose(tmp_path / "fr")
    assert not marker.exists()
    whats = [m.what for m in diag.missing_evidence]
    assert any("nccl_trace_rank_9" in w and "refused" in w for w in whats)
    assert any("nccl_trace_rank_1" in w and "truncated" in w for w in whats)
    assert 2 in diag.suspect_ranks
