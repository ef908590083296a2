"""The labelled corpus (tests/corpus, copied from the shared set) scored with the shared scorer.

The floor only rises. It is met by being right about failure classes, never by matching a file:
the judged set is a larger hidden corpus of the same kind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.knowledge.engine_support import entries_dir

ROOT = Path(__file__).resolve().parents[2]
MIN_CATEGORY_ACCURACY = 0.9
MIN_RANK_ACCURACY = 0.9


def test_corpus_accuracy_floor() -> None:
    env = dict(os.environ)
    if entries_dir() is not None:
        env["DENPEX_ENTRIES"] = str(entries_dir())
    env.setdefault("DENPEX_CACHE_DIR", str(Path(tempfile.gettempdir()) / "denpex-test-cache"))
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "tools" / "score_corpus.py"),
            str(ROOT / "tests" / "corpus"),
            "--denpex",
            str(Path(sys.executable).with_name("denpex")),
            "--min-accuracy",
            str(MIN_CATEGORY_ACCURACY),
            "--min-rank-accuracy",
            str(MIN_RANK_ACCURACY),
            "--verbose",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert "errors 0" in proc.stdout, proc.stdout
    assert proc.returncode == 0, proc.stdout + proc.stderr
