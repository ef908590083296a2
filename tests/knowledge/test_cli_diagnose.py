"""`denpex diagnose` as a user runs it: a real process, JSON contract, text form, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from denpex.core.models import Diagnosis
from tests.knowledge import scenarios
from tests.knowledge.engine_support import entries_dir

DENPEX = str(Path(sys.executable).with_name("denpex"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if entries_dir() is not None:
        env["DENPEX_ENTRIES"] = str(entries_dir())
    env.setdefault("DENPEX_CACHE_DIR", str(Path(tempfile.gettempdir()) / "denpex-test-cache"))
    return subprocess.run([DENPEX, "diagnose", *args], capture_output=True, text=True, timeout=120, env=env)


def test_json_contract(tmp_path: Path) -> None:
    proc = run(str(scenarios.oom_then_watchdog(tmp_path)), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    raw = json.loads(proc.stdout)
    for key in (
        "category",
        "entry",
        "confidence",
        "initiating",
        "collateral",
        "root_cause",
        "fix",
        "verify",
        "missing_evidence",
        "stats",
        "alternatives",
        "tails",
        "nodes",
    ):
        assert key in raw
    assert set(raw["initiating"]) >= {"rank", "node", "time", "evidence"}
    # `record`: true only for a binary dump's record (docs/flight-recorder.md); a log line is false
    assert set(raw["initiating"]["evidence"][0]) == {"source", "line", "text", "record"}
    assert raw["initiating"]["evidence"][0]["record"] is False
    assert set(raw["stats"]) == {"files", "ranks", "bytes", "seconds"}
    diag = Diagnosis.model_validate(raw)
    assert diag.initiating.rank == 5


def test_text_form_for_a_person(tmp_path: Path) -> None:
    proc = run(str(scenarios.oom_then_watchdog(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "rank 5" in out
    assert "0-4,6,7" in out
    assert "rank5.log:" in out
    assert "Verify" in out and "Fix" in out


def test_unreadable_input_is_one_line_and_nonzero(tmp_path: Path) -> None:
    proc = run(str(tmp_path / "nope.log"), "--format", "json")
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "nope.log" in proc.stderr


def test_empty_log_still_gets_a_low_confidence_diagnosis(tmp_path: Path) -> None:
    (tmp_path / "rank0.log").write_bytes(b"")
    proc = run(str(tmp_path), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    diag = Diagnosis.model_validate_json(proc.stdout)
    assert diag.confidence <= 0.3
    assert diag.missing_evidence


def test_secrets_never_reach_the_output(tmp_path: Path) -> None:
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"
    (tmp_path / "rank0.log").write_text(
        f"export HF_TOKEN={token}\n[rank0]: torch.OutOfMemoryError: CUDA out of memory. token={token}\n"
    )
    proc = run(str(tmp_path), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert token not in proc.stdout
