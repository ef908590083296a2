"""Facts from torchrun's failure summary and launcher lines: each rank's exit code and pid, the main
process of a rank whose DataLoader worker died, and what the collateral ranks ("victims?") were in,
how they ended and how long after the first failure.

On call, people copy `exitcode: -15` or `pid 32029` out of the log and ask what it was; the summary
says it per rank, so the answer quotes it per rank instead of the entry's general text.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_runfacts as tr
from knowledge import answer_code
from knowledge.answer_types import Ctx, duration, ref
from knowledge.answer_types import rank_list as rl
from knowledge.jobfacts_answers import LauncherExit, RankView, launcher_exits, seconds_between

#: a DataLoader worker's own pid in its death line (`DataLoader worker (pid 22194) is killed`)
_WORKER_PID = re.compile(r"DataLoader worker \(pid:? ?(\d+)\)")


def row(e: LauncherExit) -> str:
    signal = f" ({e.signal})" if e.signal else ""
    pid = f", pid {e.pid}" if e.pid is not None else ""
    return tj.SUMMARY_ROW.format(rank=e.rank, code=e.code, signal=signal, pid=pid)


def summary_rows(c: Ctx, ranks: set[int] | None = None) -> str:
    """ "The launcher's failure summary (console.log:112): rank 2: exitcode 1, pid 22028; …" — every
    rank (or the ones asked about), as the summary gives them; "" when no summary was kept."""
    exits = [e for e in launcher_exits(c.d) if ranks is None or e.rank in ranks]
    if not exits:
        return ""
    return tj.SUMMARY_ROWS.format(ref=ref(exits[0].line), rows="; ".join(row(e) for e in exits))


def exit_codes(c: Ctx) -> str:
    """Every rank's exit code and pid from the launcher's summary, then which exited with an error of
    their own and which the launcher stopped (a negative code is the signal)."""
    exits = launcher_exits(c.d)
    rows = summary_rows(c)
    own = [e.rank for e in exits if e.code >= 0 and e.signal is None]
    stopped = [e.rank for e in exits if e.code < 0]
    read = tj.EXIT_READ.format(own=rl(own), stopped=rl(stopped)) if own and stopped else ""
    if own and not stopped:  # "did the launcher have to kill anyone?": no, each exited on its own error
        read = tr.EXIT_ALL_OWN.format(ranks=rl(own))
    return " ".join(x for x in (rows, read) if x)


def main_pid(c: Ctx, r: RankView) -> str:
    """A rank whose DataLoader worker died: its main process's pid (the launcher's), not the worker's."""
    worker = next(
        (m.group(1) for ln in (r.first_line, *c.view.evidence) if ln and (m := _WORKER_PID.search(ln.text))),
        None,
    )
    own = next((e for e in launcher_exits(c.d) if e.rank == r.rank and e.pid is not None), None)
    if worker is None or own is None:
        return ""
    return tj.MAIN_PID.format(rank=r.rank, pid=own.pid, ref=ref(own.line), worker=worker)


def stopped_after(c: Ctx, ranks: list[RankView]) -> str:
    """How long after the first failure the named collateral ranks were stopped (their first failure)."""
    ini = c.view.initiating
    times = [r.first_time for r in ranks if r.first_time]
    if ini is None or not ini.first_time or not times:
        return ""
    gap = seconds_between(ini.first_time, min(times))
    if gap is None or gap <= 0:
        return ""
    return tj.STOPPED_AFTER.format(gap=_short(gap), rank=ini.rank)


def _short(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 10 else duration(seconds)


def victims(c: Ctx, named: list[int]) -> str:
    """ "Ranks 1-3 stuck in barrier, victims? exit codes": collateral or not, the call they were in,
    how the launcher ended them, how long after the first failure."""
    ini = c.view.initiating
    ranks = [c.view.ranks[x] for x in named if x in c.view.ranks] or c.view.with_role("collateral")
    coll = [r for r in ranks if r.role == "collateral"]
    if ini is None or not coll:
        return ""
    calls = sorted({got[0] for r in coll if (got := answer_code.collective_of(c, r.rank)) is not None})
    inside = f" in `{'`/`'.join(calls)}`" if calls else ""
    lead = tj.VICTIMS.format(ranks=rl(coll), inside=inside, rank=ini.rank)
    rows = summary_rows(c, {r.rank for r in coll})
    return " ".join(x for x in (lead, rows, stopped_after(c, coll)) if x)


def named_victims(c: Ctx, ranks: tuple[int, ...]) -> str:
    """Ranks the question names that were all collateral ("r1-3 errored too, were they writing as
    well?"): that they were victims, what they were in, how they ended; "" otherwise."""
    named = [c.view.ranks[x] for x in ranks if x in c.view.ranks]
    if not named or any(r.role != "collateral" for r in named):
        return ""
    return victims(c, [r.rank for r in named])


__all__ = ["exit_codes", "main_pid", "named_victims", "row", "stopped_after", "summary_rows", "victims"]
