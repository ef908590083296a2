"""The shared check of the unseen-class test files: write a case's logs, diagnose, compare.

Each `test_unseen_classes_*.py` holds cases as `{file name: text}` with the category and (where the
logs decide it) the initiating rank; the files are written as UTF-8 bytes so CRLF and non-ASCII
pastes reach the engine exactly as a user's upload would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from denpex.core.models import Diagnosis

Run = Callable[[Path], Diagnosis]


def check_case(
    name: str, case: tuple[Mapping[str, str], str, int | None], diagnose_dir: Run, tmp_path: Path
) -> None:
    files, category, rank = case
    folder = tmp_path / "logs"
    folder.mkdir()
    for fname, text in files.items():
        (folder / fname).write_bytes(text.encode("utf-8"))
    d = diagnose_dir(folder)
    assert d.category == category, (name, d.category, d.initiating.rank)
    if rank is not None:
        assert d.initiating.rank == rank, (name, d.initiating.rank)


def pre(prefix: str, lines: list[str]) -> str:
    """The lines as a launcher writes them: each behind the same prefix (`[rank3]: `, `0: `)."""
    return "".join(prefix + line + "\n" for line in lines)


def tb(frames: list[tuple[str, int, str, str]], err: str) -> list[str]:
    """A Python traceback as printed: (file, line, function, code) frames, then the error line."""
    out = ["Traceback (most recent call last):"]
    for f, line, fn, code in frames:
        out += [f'  File "{f}", line {line}, in {fn}', f"    {code}"]
    return [*out, err]
