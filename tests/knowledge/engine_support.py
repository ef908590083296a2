"""Helpers of the engine tests; the fixtures built on them live in conftest.py.

`DENPEX_TEST_ENTRIES` points the tests at another entries folder (useful while entries are edited).
"""

from __future__ import annotations

import os
from pathlib import Path


def entries_dir() -> Path | None:
    value = os.environ.get("DENPEX_TEST_ENTRIES")
    return Path(value) if value else None


def write_log(tmp_path: Path, text: str, name: str = "console.log") -> Path:
    """`text` as `<tmp_path>/logs/<name>`; the folder, ready for `diagnose_dir`."""
    folder = tmp_path / "logs"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return folder
