"""Every line the diagnosis kept, a rank's own among them in file order, and the environment settings
they print ("dump every env var this job had in the logs", "what env vars does the log show?").

Why: the verdict's evidence and the ranks' tails leave out the lines the diagnosis kept as facts (the
launch line with `MASTER_ADDR=…`, the process-group line with `NCCL_ASYNC_ERROR_HANDLING=1`, a batch
line kept as a setting); an answer that quotes a rank's window or the environment reads them all.
Kept lines are masked already: a secret's value is never quoted.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_memjobs as tm
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, ref
from knowledge.lines import parse_rank

#: an environment setting printed as `NAME=value` (upper case, with an underscore: not `rank=5`)
_ENV = re.compile(r"(?<![\w.])([A-Z][A-Z0-9]*_[A-Z0-9_]+)=([^\s,;]+)")
_MASKED = re.compile(r"\[MASKED:[\w-]+\]")


def kept(c: Ctx) -> list[EvidenceLine]:
    """Every kept line once: the verdict's and tails' (`pool`), the job facts' setup, settings and
    versions lines, each rank's last step line."""
    f = c.d.facts
    extra = [*f.setup, *f.settings, *f.versions]
    extra += [r.last_step_line for r in c.view.ranks.values() if r.last_step_line is not None]
    seen: set[tuple[str, int]] = set()
    out: list[EvidenceLine] = []
    for ln in [*pool(c), *extra]:
        if (ln.source, ln.line) not in seen:
            seen.add((ln.source, ln.line))
            out.append(ln)
    return out


def own_lines(c: Ctx, rank: int) -> list[EvidenceLine]:
    """The rank's kept lines in file order: those with its prefix, and every line of a file no other
    rank's prefix shows in where the rank's own lines are (its own log)."""
    every = kept(c)
    others: set[str] = set()
    mine: set[str] = set()
    for ln in every:
        info = parse_rank(ln.text)
        if info.rank is not None:
            (mine if info.rank == rank else others).add(ln.source)
    own_files = mine - others
    out = [
        ln
        for ln in every
        if parse_rank(ln.text).rank == rank or (ln.source in own_files and parse_rank(ln.text).rank is None)
    ]
    return sorted(out, key=lambda ln: (ln.source, ln.line))


def env_settings(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """ "The logs print these environment settings: `MASTER_ADDR=gpu-01` (rank0.log:1); …" ("" when no
    kept line prints one). Each name once, from the first line that prints it."""
    named: dict[str, tuple[str, EvidenceLine]] = {}
    for ln in sorted(kept(c), key=lambda x: (x.source, x.line)):
        for name, value in _ENV.findall(ln.text):
            named.setdefault(name, (value, ln))
    if not named:
        return "", []
    by_line: dict[tuple[str, int], list[str]] = {}
    lines: dict[tuple[str, int], EvidenceLine] = {}
    for name, (value, ln) in named.items():
        by_line.setdefault((ln.source, ln.line), []).append(f"`{name}={value}`")
        lines[(ln.source, ln.line)] = ln
    listed = "; ".join(f"{', '.join(v)} ({ref(lines[k])})" for k, v in by_line.items())
    said = tm.ENV_LOGGED.format(listed=listed)
    if any(_MASKED.search(v) for v, _ in named.values()):
        said += tm.ENV_MASKED
    return said, list(lines.values())[:4]


__all__ = ["env_settings", "kept", "own_lines"]
