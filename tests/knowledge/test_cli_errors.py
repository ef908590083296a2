"""`denpex diagnose` on bad input, as a user runs it: one line on stderr and exit 2, or go on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.knowledge import scenarios
from tests.knowledge.engine_support import entries_dir

DENPEX = str(Path(sys.executable).with_name("denpex"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if entries_dir() is not None:
        env["DENPEX_ENTRIES"] = str(entries_dir())
    env.setdefault("DENPEX_CACHE_DIR", str(Path(tempfile.gettempdir()) / "denpex-test-cache"))
    return subprocess.run([DENPEX, "diagnose", *args], capture_output=True, text=True, timeout=120, env=env)


def test_one_unreadable_file_is_named_and_the_rest_diagnosed(tmp_path: Path) -> None:
    logs = scenarios.oom_then_watchdog(tmp_path / "job")
    # reading /proc/self/mem at offset 0 fails with EIO for every user, root included
    (logs / "rank8.log").symlink_to("/proc/self/mem")
    proc = run(str(logs), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    diag = json.loads(proc.stdout)
    assert diag["initiating"]["rank"] == 5
    assert any("rank8.log" in m["what"] for m in diag["missing_evidence"])


def test_bad_flags_and_paths_are_one_line_exit_2(tmp_path: Path) -> None:
    logs = scenarios.oom_then_watchdog(tmp_path / "job")
    for args, needle in (
        ((str(logs), "--bogus"), "--bogus"),
        ((str(logs), "--format"), "--format"),
        ((str(tmp_path / "missing"),), "missing"),
        ((), "paths"),
    ):
        proc = run(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1 and needle in proc.stderr, (args, proc.stderr)
