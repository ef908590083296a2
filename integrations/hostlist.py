"""Slurm hostlist expressions (`gpu-[01-04,07],login1`, `r[1-2]n[01-02]`) to plain node names.

The controller hook sends `SLURM_JOB_NODELIST` as Slurm writes it; everything downstream (kernel-log
attachment, missing-evidence lines) needs one name per node. Pure and dependency-free so the server,
the Slurm collector and tests share it.
"""

from __future__ import annotations

import itertools
import re

#: refuse to expand absurd expressions (`n[0-99999999]`) that would exhaust memory
MAX_HOSTS = 65536

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


class HostlistError(ValueError):
    """The expression is not a valid Slurm hostlist."""


def _split_top(expr: str) -> list[str]:
    """Split on commas that are not inside brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in expr:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise HostlistError(f"unbalanced ']' in {expr!r}")
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if depth != 0:
        raise HostlistError(f"unbalanced '[' in {expr!r}")
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _expand_range(body: str) -> list[str]:
    values: list[str] = []
    for item in body.split(","):
        m = _RANGE.match(item.strip())
        if not m:
            raise HostlistError(f"bad range {item!r}")
        lo, hi = m.group(1), m.group(2) or m.group(1)
        width = len(lo) if lo.startswith("0") and len(lo) > 1 else 0
        if int(hi) < int(lo) or int(hi) - int(lo) >= MAX_HOSTS:
            raise HostlistError(f"bad range {item!r}")
        if len(values) + int(hi) - int(lo) >= MAX_HOSTS:  # `[0-65000,0-65000,...]`: bound the sum too
            raise HostlistError("hostlist expands to too many hosts")
        values.extend(str(n).zfill(width) for n in range(int(lo), int(hi) + 1))
    return values


def _expand_one(item: str) -> list[str]:
    pieces: list[list[str]] = []
    pos = 0
    for m in re.finditer(r"\[([^\[\]]*)\]", item):
        pieces.append([item[pos : m.start()]])
        pieces.append(_expand_range(m.group(1)))
        pos = m.end()
    pieces.append([item[pos:]])
    if any("[" in p or "]" in p for group in pieces for p in group if len(group) == 1):
        raise HostlistError(f"nested or unbalanced brackets in {item!r}")
    total = 1
    for group in pieces:
        total *= len(group)
        if total > MAX_HOSTS:
            raise HostlistError("hostlist expands to too many hosts")
    return ["".join(combo) for combo in itertools.product(*pieces)]


def expand(expr: str) -> list[str]:
    """Expand a Slurm hostlist into node names, in order, without duplicates."""
    names: list[str] = []
    seen: set[str] = set()
    produced = 0  # duplicates count too: `a[0-65000],a[0-65000],...` must not spin for minutes
    for item in _split_top(expr.strip()):
        expanded = _expand_one(item)
        produced += len(expanded)
        if produced > 4 * MAX_HOSTS:
            raise HostlistError("hostlist expands to too many hosts")
        for name in expanded:
            if name not in seen:
                seen.add(name)
                names.append(name)
            if len(names) > MAX_HOSTS:
                raise HostlistError("hostlist expands to too many hosts")
    return names
