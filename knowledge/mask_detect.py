"""Which secret rules hit a buffer, and on which lines: Hyperscan where it imports, `re` otherwise.

The Masker runs Python `re` only on what this reports, so lines without secrets cost next to nothing.
The compiled databases are cached on disk (`patterns.db_cache_path`), keyed by the exact expressions.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from knowledge.patterns import db_cache_path, load_db, store_db
from knowledge.secret_rules import SecretRule

#: None where no hyperscan wheel exists for the platform; the rules then run through `re` alone
hyperscan: ModuleType | None
try:  # pragma: no cover - which branch runs depends on the platform
    import hyperscan
except ImportError:  # pragma: no cover
    hyperscan = None


class Detector:
    """Which rules hit a buffer, and on which lines: Hyperscan, or `re` per rule as the fallback.

    Two databases of the same rules: SINGLEMATCH for "does anything hit" (one callback per rule at
    most) and an all-matches one that says which lines to hand to Python `re`.
    """

    def __init__(
        self,
        rules: Sequence[SecretRule],
        compiled: Sequence[re.Pattern[str]],
        use_hyperscan: bool,
        cache_dir: Path | None = None,
    ) -> None:
        self._compiled = compiled
        self._dbs: tuple[Any, Any] | None = None
        self._local = threading.local()  # Hyperscan scratch space is per thread
        if use_hyperscan and hyperscan is not None and rules:
            self._dbs = (
                _hs_database(rules, hyperscan.HS_FLAG_SINGLEMATCH, cache_dir),
                _hs_database(rules, 0, cache_dir),
            )

    @property
    def backend(self) -> str:
        return "hyperscan" if self._dbs is not None else "python"

    def _scan(self, which: int, data: bytes, on_match: Callable[..., Any]) -> None:
        assert self._dbs is not None
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            assert hyperscan is not None  # `_dbs` exist only where it imported
            scratch = self._local.scratch = tuple(hyperscan.Scratch(db) for db in self._dbs)
        self._dbs[which].scan(data, match_event_handler=on_match, scratch=scratch[which])

    def hits(self, text: str | bytes) -> set[int]:
        """Indices of the rules that match somewhere in `text`."""
        if self._dbs is None:
            if isinstance(text, bytes):
                text = text.decode("utf-8", "surrogateescape")
            return {i for i, rx in enumerate(self._compiled) if rx.search(text)}
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        found: set[int] = set()
        self._scan(0, data, lambda idx, *_: found.add(idx))
        return found

    def line_hits(self, text: str) -> dict[int, set[int]]:
        """Line index (in `text.split("\\n")`) -> indices of the rules that match on that line."""
        ends: list[tuple[int, int]] = []  # (offset of a match's last character, rule)
        if self._dbs is not None:
            data = text.encode("utf-8", "surrogatepass")
            self._scan(1, data, lambda idx, _from, to, *_: ends.append((to - 1, idx)))
            count: Callable[[int, int], int] = lambda a, b: data.count(b"\n", a, b)  # noqa: E731
        else:
            for i, rx in enumerate(self._compiled):
                ends.extend((max(m.end() - 1, m.start()), i) for m in rx.finditer(text))  # as Hyperscan
            count = lambda a, b: text.count("\n", a, b)  # noqa: E731
        out: dict[int, set[int]] = {}
        line = prev = 0
        for pos, idx in sorted(ends):
            line += count(prev, pos)
            prev = pos
            out.setdefault(line, set()).add(idx)
        return out


def _hs_database(rules: Sequence[SecretRule], extra: int, cache_dir: Path | None) -> Any:
    """The rules' database: deserialised from `cache_dir` when compiled before (keyed by the exact
    expressions and flags), else compiled (~0.3 s, most of a short CLI run) and stored there."""
    path = db_cache_path(cache_dir, ("mask-v1", extra, [(r.pattern, r.caseless) for r in rules]))
    db = load_db(path)
    if db is None:
        db = _hs_compile(rules, extra)
        store_db(path, db)
    return db


def _hs_compile(rules: Sequence[SecretRule], extra: int) -> Any:
    assert hyperscan is not None  # only called where it imported
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    base = hyperscan.HS_FLAG_MULTILINE | extra
    db.compile(
        expressions=[r.pattern.encode("ascii") for r in rules],
        ids=list(range(len(rules))),
        elements=len(rules),
        flags=[base | (hyperscan.HS_FLAG_CASELESS if r.caseless else 0) for r in rules],
    )
    return db
