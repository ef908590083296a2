"""Facts an answer adds when the question asks for them: the last step of a timeline, the versions the
logs print, each rank's memory from its progress lines, the pid a launcher reported, the meaning of a
collective's `#N`.

Each function returns a sentence (or "") for the answer that asked; none of them answers alone.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from knowledge import answer_launcher
from knowledge.answer_types import Ctx, rank_lines, ref
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, launcher_exits
from knowledge.lines import parse_step, parse_timestamp

# ---------------------------------------------------------------- timeline


def last_step(c: Ctx, r: RankView | None) -> str:
    """ "Its last logged step was 2000 (of 6000)." for a timeline; "" when no step was logged."""
    if r is None or r.last_step is None:
        return ""
    return tf.LAST_STEP.format(rank=r.rank, step=r.last_step, total=_of_total(r, c))


def went_quiet(c: Ctx, r: RankView) -> str:
    """When a rank named from the others' behaviour last wrote anything (its last line's time)."""
    lines = [ln for tl in c.d.tails if tl.rank == r.rank for ln in tl.lines]
    if r.last_step_line is not None:
        lines.append(r.last_step_line)
    for ln in reversed(lines):
        stamp = parse_timestamp(ln.text)
        if stamp is not None and not stamp.relative and (iso := stamp.iso()) is not None:
            return tf.WENT_QUIET.format(rank=r.rank, at=iso.replace("T", " ")[:19], ref=ref(ln), text=ln.text)
    return ""


_TOTAL = re.compile(r"\bstep[ =:]*[0-9]+ ?/ ?([0-9]+)\b|\b[0-9]+ ?/ ?([0-9]+) \[", re.IGNORECASE)


def _of_total(r: RankView, c: Ctx | None = None) -> str:
    lines = [r.last_step_line] if r.last_step_line is not None else []
    if c is not None:
        lines += [ln for src in rank_lines(c, r.rank).values() for ln in reversed(src)]
    for ln in lines:
        if (found := _TOTAL.search(ln.text)) is not None:
            return f" of {found.group(1) or found.group(2)}"
    return ""


def step_of_total(c: Ctx, r: RankView | None) -> str:
    """ "2001 of 6000": the planned total next to the step, when a progress line prints it."""
    return _of_total(r, c) if r is not None else ""


# ---------------------------------------------------------------- versions

_VERSIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("NCCL", re.compile(r"\bNCCL version ([0-9]+\.[0-9]+\.[0-9]+)|\"nccl_version\": ?\"([0-9.]+)", re.I)),
    (
        "the NVIDIA driver",
        re.compile(r"Kernel Module +([0-9]{3}\.[0-9]+(?:\.[0-9]+)?)|Driver Version: +([0-9]{3}\.[0-9.]+)"),
    ),
    (
        "CUDA",
        re.compile(r"\bCUDA Version: +([0-9]+\.[0-9]+)|\+cuda([0-9]+\.[0-9]+)\b|\bcuda ?([0-9]+\.[0-9]+)\b"),
    ),
    ("PyTorch", re.compile(r"\b(?:torch|pytorch)[ =_-]*(?:version)?[ :=]*v?([12]\.[0-9]+\.[0-9]+)", re.I)),
)
_ASKED = {
    "NCCL": re.compile(r"\bnccl\b"),
    "the NVIDIA driver": re.compile(r"\bdriver\b"),
    "CUDA": re.compile(r"\bcuda\b"),
    "PyTorch": re.compile(r"\b(?:torch|pytorch)\b"),
}


def _lines(c: Ctx) -> list[tuple[str | None, EvidenceLine]]:
    pools: list[tuple[str | None, EvidenceLine]] = [(n, ln) for n, ls in c.d.nodes.items() for ln in ls]
    pools += [(tl.node, ln) for tl in c.d.tails for ln in tl.lines]
    pools += [(None, ln) for ln in c.view.evidence]
    return pools


def versions(c: Ctx, m: Match) -> str:
    """The versions asked for ("what nccl version was this?"), each from the line that prints it; a
    version asked for and not in the logs is said to be missing."""
    asked = [name for name, rx in _ASKED.items() if rx.search(m.text)] or list(_ASKED)
    found: list[str] = []
    for name, rx in _VERSIONS:
        if name not in asked:
            continue
        hit = next(((n, ln, g) for n, ln in _lines(c) if (g := rx.search(ln.text))), None)
        if hit is None and name == "NCCL" and c.d.collectives.comm_lib_version:
            found.append(tf.VERSION_DUMPS.format(version=c.d.collectives.comm_lib_version))
            continue
        if hit is None:
            found.append(tf.VERSION_MISSING.format(what=name))
            continue
        node, ln, g = hit
        value = next(x for x in g.groups() if x)
        found.append(
            tf.VERSION_SEEN.format(what=name, version=value, where=f" on {node}" if node else "", ref=ref(ln))
        )
    return " ".join(found)


# ---------------------------------------------------------------- memory by rank

_MEM = re.compile(
    r"\b(?:mem(?:ory)?(?:_alloc(?:ated)?|_reserved|_used)?|max_memory_allocated|gpu_mem)[=: ]+"
    r"([0-9]+(?:\.[0-9]+)?) ?(GiB|GB|G)\b",
    re.IGNORECASE,
)


def memory_by_rank(c: Ctx) -> str:
    """Each rank's memory from its last progress line (`mem_alloc=69.4GiB`), the odd one named: "was
    rank 5 using more memory the whole run?"."""
    per: dict[int, float] = {}
    unit = "GiB"
    for r in c.view.ranks.values():
        lines = [ln for src in rank_lines(c, r.rank).values() for ln in src]
        lines += [r.last_step_line] if r.last_step_line is not None else []
        for ln in sorted(lines, key=lambda x: x.line, reverse=True):
            if parse_step(ln.text) is not None and (found := _MEM.search(ln.text)) is not None:
                per[r.rank], unit = float(found.group(1)), found.group(2)
                break
    if len(per) < 2:
        return ""
    ini = c.view.initiating
    top = ini.rank if ini is not None and ini.rank in per else max(per, key=per.__getitem__)
    rest = {r: v for r, v in per.items() if r != top}
    lo, hi = min(rest.values()), max(rest.values())
    span = f"{lo:.1f}" if lo == hi else f"{lo:.1f}–{hi:.1f}"
    return tf.MEMORY_BY_RANK.format(rank=top, value=f"{per[top]:.1f}", unit=unit, others=rl(rest), span=span)


# ---------------------------------------------------------------- pids, collective numbers

_LAUNCHER_PID = re.compile(r"local_rank: ?([0-9]+) \(pid: ?([0-9]+)\)|rank ?([0-9]+) \(pid ([0-9]+)\)")


def launcher_pid(c: Ctx, r: RankView | None) -> str:
    """The pid the launcher reported for the rank that failed (`local_rank: 1 (pid: 23264)`)."""
    if r is None:
        return ""
    for ex in launcher_exits(c.d):  # torchrun's summary: `exitcode : 1 (pid: 23264)` under the rank
        if ex.rank == r.rank and (found_pid := _PID.search(ex.line.text)) is not None:
            return tf.LAUNCHER_PID.format(rank=r.rank, pid=found_pid.group(1), ref=ref(ex.line))
    for _, ln in _lines(c):
        for found in _LAUNCHER_PID.finditer(ln.text):
            rank = int(found.group(1) or found.group(3))
            if rank == r.rank:
                return tf.LAUNCHER_PID.format(rank=r.rank, pid=found.group(2) or found.group(4), ref=ref(ln))
    return ""


_PID = re.compile(r"\(pid: ?([0-9]+)\)")


def launcher_ended(c: Ctx, r: RankView) -> str:
    """How the launcher's failure summary says a collateral rank ended (`exitcode : -15 (SIGTERM)`)."""
    ex = next((e for e in launcher_exits(c.d) if e.rank == r.rank), None)
    if ex is None or (ex.code >= 0 and ex.signal is None):
        return ""
    ini = c.view.initiating
    after = f" after rank {ini.rank} failed" if ini is not None and ini.rank != r.rank else ""
    signal = f" ({ex.signal})" if ex.signal else ""
    return tf.LAUNCHER_ENDED.format(rank=r.rank, code=ex.code, signal=signal, ref=ref(ex.line), after=after)


def exit_codes(c: Ctx) -> str:
    """The launcher's exit codes read together: every rank's code and pid, who failed by itself and
    who was stopped (`answer_launcher`), and the ranks the kept summary leaves out."""
    said = answer_launcher.exit_codes(c)
    return f"{said} {summary_gap(c)}".strip() if said else ""


def summary_gap(c: Ctx) -> str:
    """The collateral ranks the kept part of the launcher's summary does not name ("" when it names
    them all, or shows none): the summary's start may be cut, so "rank 3 got -15" is not "only rank 3"."""
    named = {e.rank for e in launcher_exits(c.d)}
    unseen = [r.rank for r in c.view.with_role("collateral") if r.rank not in named]
    return tf.EXIT_PARTIAL.format(ranks=rl(unseen)) if named and unseen else ""


_SEQ = re.compile(r"#([0-9]{1,9})\b")


def collective_number(m: Match) -> str:
    """ "#5 of what?": a collective's number in its process group."""
    found = _SEQ.search(m.text)
    return tf.COLLECTIVE_NUMBER.format(n=found.group(1)) if found else ""


__all__ = [
    "collective_number",
    "exit_codes",
    "last_step",
    "launcher_ended",
    "launcher_pid",
    "memory_by_rank",
    "step_of_total",
    "summary_gap",
    "versions",
    "went_quiet",
]
