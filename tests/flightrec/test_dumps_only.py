"""`denpex diagnose` on dumps without logs: the dump picks the failure mode, and the text says who."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.flightrec.dumps import FIXTURES
from tests.knowledge import scenarios
from tests.knowledge.test_cli_diagnose import run

#: scenario -> (entry, suspects): real gloo dumps made by tests/flightrec/generate_fixtures.py
EXPECTED = {
    "two_ranks_hang": ("nccl-watchdog-timeout", [3, 5]),
    "skip_collective": ("nccl-watchdog-timeout", [2]),
    "wrong_collective": ("nccl-desync-report", [1]),
    "size_mismatch": ("nccl-desync-report", [3]),
}


def _json(*paths: Path) -> Diagnosis:
    proc = run(*map(str, paths), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return Diagnosis.model_validate_json(proc.stdout)


@pytest.mark.parametrize("scenario", sorted(EXPECTED))
def test_a_folder_of_dumps_alone_is_a_collective_timeout_with_its_suspects(
    scenario: str, tmp_path: Path
) -> None:
    shutil.copytree(FIXTURES / scenario, tmp_path / "dumps")
    diag = _json(tmp_path / "dumps")
    entry, suspects = EXPECTED[scenario]
    assert diag.category == "nccl_timeout" and diag.entry is not None and diag.entry.id == entry
    assert diag.suspect_ranks == suspects and diag.initiating.rank == suspects[0]
    assert diag.confidence == 0.8 and diag.root_cause and diag.fix and diag.verify
    whats = [m.what for m in diag.missing_evidence]
    assert not any("empty or binary" in w for w in whats), whats  # the "empty" files were the dumps
    assert any("error message from the job" in w for w in whats)


def test_a_missing_dump_lowers_the_confidence(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "two_ranks_hang", tmp_path / "dumps")
    (tmp_path / "dumps" / "nccl_trace_rank_7").unlink()
    diag = _json(tmp_path / "dumps")
    assert diag.category == "nccl_timeout" and diag.confidence == 0.6
    assert any("dumps of rank 7" in m.what for m in diag.missing_evidence)


def test_logs_that_name_nothing_leave_the_choice_to_the_dumps(tmp_path: Path) -> None:
    for r in range(4):  # ordinary progress lines, no failure signature: the generic fallback
        scenarios.write(tmp_path, f"rank{r}.log", scenarios.training(r, 20))
    shutil.copytree(FIXTURES / "wrong_collective", tmp_path / "fr")
    diag = _json(tmp_path)
    assert diag.entry is not None and diag.entry.id == "nccl-desync-report"
    assert diag.initiating.rank == 1


def test_a_first_hand_failure_in_the_logs_keeps_its_category(tmp_path: Path) -> None:
    scenarios.oom_then_watchdog(tmp_path)
    shutil.copytree(FIXTURES / "two_ranks_hang", tmp_path / "fr")
    diag = _json(tmp_path)
    assert diag.category.startswith("gpu_oom") and diag.initiating.rank == 5
    assert diag.suspect_ranks == [3, 5]


def test_the_text_output_names_the_suspect_ranks_and_why(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "two_ranks_hang", tmp_path / "dumps")
    proc = run(str(tmp_path / "dumps"))
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())  # rich wraps long lines
    assert "Flight Recorder suspects: ranks 3,5" in text
    assert "rank 5: never entered all_reduce #5 in default_pg" in text
    assert "nccl_timeout" in text and "No log content" not in text
