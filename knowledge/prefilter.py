"""Necessary literals of a regex: strings of which every match contains at least one.

The phase markers (`knowledge/data/phases.toml`) match a few lines of a log, yet in the one Hyperscan
database they cost two thirds of the scan. Scanning the log for their literals instead (a literal
matcher runs near memory speed) and running the markers themselves only on the lines that hold one
gives exactly the same matches, as long as the literals are necessary and a match cannot cross a line
break. Both are decided here from Python's parse of the pattern; whatever cannot be proven (an
unsupported construct, a literal shorter than `MIN_LITERAL`, a class that includes the line break)
answers None, and the caller scans that pattern over every byte as before.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge import cache

sre_c: Any
sre_parse: Any
try:  # the parser behind `re.compile`; private, so its absence only turns the prefilter off
    sre_c = importlib.import_module("re._constants")
    sre_parse = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - other Python versions
    sre_c = sre_parse = None

#: shorter literals would stand on too many lines to save anything
MIN_LITERAL = 4
#: syntax Python's parser reads differently from Hyperscan's PCRE (POSIX classes, \Q…\E, \x{…},
#: \h, back references and group options; `\xHH` both read alike): such patterns get no prefilter
_PCRE_ONLY = re.compile(r"\[:\^?[a-z]+:\]|\\[QEpPhHvVRKNoceEgk0-9]|\\x(?![0-9a-fA-F]{2})|\(\?(?!:)")
#: largest set of alternatives carried along (`[Ss]aving (?:model|checkpoint)` is 4)
MAX_SET = 64


@dataclass(frozen=True, slots=True)
class Literals:
    """Every match of the pattern contains one of `strings`, on one line."""

    strings: tuple[str, ...]


class _Unprovable(Exception):
    """A construct this analysis does not model: no prefilter for that pattern."""


# A node's facts: `exact` is the finite set of strings it matches (None: unknown or too many) and
# `need` the best set of necessary factors found inside it (None: none).
_Facts = tuple[frozenset[str] | None, frozenset[str] | None]


def literals_for(
    patterns: Sequence[tuple[str, bool]], cache_dir: Path | None = None
) -> list[Literals | None]:
    """`necessary_literals` of each `(regex, caseless)`, kept in `cache_dir` between processes.

    Parsing and analysing the markers costs tens of milliseconds, a large part of a short CLI run; the
    answers are stored as JSON keyed by the patterns and this module's own source, so an edited
    marker or analysis is always analysed again.
    """
    items = list(patterns)
    path = None
    if cache_dir is not None:  # a file private to this user only (knowledge/cache.py)
        path = cache_dir / f"literals-{cache.file_digest([Path(__file__)], repr(items))}.json"
        data = cache.read(path)
        try:
            stored = json.loads(data) if data is not None else None
            if isinstance(stored, list) and len(stored) == len(items):
                return [Literals(tuple(x)) if x is not None else None for x in stored]
        except (ValueError, TypeError):  # damaged: analyse again
            pass
    out = [necessary_literals(regex, caseless) for regex, caseless in items]
    if path is not None:
        cache.write(path, json.dumps([list(x.strings) if x else None for x in out]).encode())
    return out


def necessary_literals(regex: str, caseless: bool = False) -> Literals | None:
    """Literals of which every match of `regex` contains one, or None when that cannot be shown.

    `caseless` patterns get the same literals; the caller matches them caselessly.
    """
    if sre_parse is None or _PCRE_ONLY.search(regex):
        return None
    try:
        tree = sre_parse.parse(regex)
        if _may_cross_line(tree.data) or tree.state.flags & ~(sre_c.SRE_FLAG_UNICODE):
            return None
        exact, need = _seq(tree.data)
    except Exception:  # `_Unprovable`, or any parse surprise: scan this pattern fully
        return None
    best = _better(need, exact)
    if best is None or min(len(s) for s in best) < MIN_LITERAL:
        return None
    if caseless:
        best = frozenset(s.lower() for s in best)
    # a member containing another member adds no line the shorter one does not already flag
    kept = [s for s in best if not any(t != s and t in s for t in best)]
    return Literals(tuple(sorted(kept)))


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The more selective of two factor sets: the longer shortest member, then fewer members."""
    cands = [s for s in (a, b) if s and "" not in s]
    if not cands:
        return None
    return max(cands, key=lambda s: (min(len(x) for x in s), -len(s)))


def _product(a: frozenset[str], b: frozenset[str]) -> frozenset[str] | None:
    if len(a) * len(b) > MAX_SET:
        return None
    return frozenset(x + y for x in a for y in b)


def _seq(items: Any) -> _Facts:
    """A concatenation: runs of exact parts multiply out; the best run or inner factor is needed."""
    run: frozenset[str] | None = frozenset({""})
    need: frozenset[str] | None = None
    whole = True  # every part exact so far: the sequence itself is exact
    for op, av in items:
        exact, inner = _node(op, av)
        need = _better(need, inner)
        prod = _product(run, exact) if run is not None and exact is not None else None
        if prod is not None:
            run = prod
            continue
        whole = False
        need = _better(need, run)
        run = exact if exact is not None and len(exact) <= MAX_SET else frozenset({""})
    need = _better(need, run)
    return (run if whole else None), need


def _node(op: Any, av: Any) -> _Facts:
    if op is sre_c.LITERAL:
        return frozenset({chr(av)}), None
    if op is sre_c.AT:
        return frozenset({""}), None  # zero width: the factors around it still occur in the match
    if op is sre_c.IN:
        return _charset(av), None
    if op is sre_c.SUBPATTERN:
        _group, add, delete, sub = av
        if add or delete:
            raise _Unprovable("inline flags")
        return _seq(sub)
    if op is sre_c.BRANCH:
        return _branch(av[1])
    if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
        return _repeat(*av)
    if op in (sre_c.ANY, sre_c.NOT_LITERAL, sre_c.CATEGORY):
        return None, None
    raise _Unprovable(str(op))  # back references, look-arounds, conditionals


def _charset(items: Any) -> frozenset[str] | None:
    chars: set[str] = set()
    for op, av in items:
        if op is sre_c.LITERAL:
            chars.add(chr(av))
        elif op is sre_c.RANGE and av[1] - av[0] < 8:
            chars.update(chr(c) for c in range(av[0], av[1] + 1))
        else:
            return None
    return frozenset(chars) if len(chars) <= 8 else None


def _branch(branches: Any) -> _Facts:
    exact: frozenset[str] | None = frozenset()
    need: frozenset[str] | None = frozenset()
    for b in branches:
        bx, bn = _seq(b)
        exact = exact | bx if exact is not None and bx is not None else None
        own = _better(bn, bx)
        need = need | own if need is not None and own is not None else None
    if exact is not None and len(exact) > MAX_SET:
        exact = None
    return exact, need or None


def _repeat(lo: int, hi: int, sub: Any) -> _Facts:
    exact, need = _seq(sub)
    if lo == 0:
        if hi == 1 and exact is not None:
            return exact | {""}, None
        return None, None
    if exact is not None and lo == hi and lo <= 4:
        out: frozenset[str] | None = frozenset({""})
        for _ in range(lo):
            out = _product(out, exact) if out is not None else None
        return out, _better(need, exact)
    return None, _better(need, exact)


def _may_cross_line(items: Any) -> bool:
    """True where some part of the pattern can match a line break (`[^ ]`, `\\s`, `\\n`, ...).

    Patterns are compiled multi-line without DOTALL, so `.` stops at the line break."""
    for op, av in items:
        if op is sre_c.LITERAL and av == 10:
            return True
        if op is sre_c.NOT_LITERAL and av != 10:
            return True
        if op is sre_c.CATEGORY and av in _CROSSING:
            return True
        if op is sre_c.IN and _class_crosses(av):
            return True
        if op is sre_c.SUBPATTERN and _may_cross_line(av[3]):
            return True
        if op is sre_c.BRANCH and any(_may_cross_line(b) for b in av[1]):
            return True
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT) and _may_cross_line(av[2]):
            return True
    return False


def _class_crosses(items: Any) -> bool:
    negate = any(op is sre_c.NEGATE for op, _ in items)
    hit = False
    for op, av in items:
        if (
            (op is sre_c.LITERAL and av == 10)
            or (op is sre_c.RANGE and av[0] <= 10 <= av[1])
            or (op is sre_c.CATEGORY and av in _CROSSING)
        ):
            hit = True
        elif op is sre_c.CATEGORY and negate:
            return True  # `[^\d]` and the like: judged conservatively
    return hit != negate


_CROSSING = (
    frozenset()
    if sre_c is None
    else frozenset(
        {
            sre_c.CATEGORY_SPACE,
            sre_c.CATEGORY_NOT_DIGIT,
            sre_c.CATEGORY_NOT_WORD,
            sre_c.CATEGORY_LINEBREAK,
            sre_c.CATEGORY_UNI_SPACE,
            sre_c.CATEGORY_UNI_NOT_DIGIT,
            sre_c.CATEGORY_UNI_NOT_WORD,
            sre_c.CATEGORY_UNI_LINEBREAK,
        }
    )
)
