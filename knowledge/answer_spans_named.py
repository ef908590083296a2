"""More events a span question can name, each found from the job's own timed lines: a quoted log
phrase ('Starting training', 'saving checkpoint at step 50'), the launch, the start of training, the
first NaN, step 1, the cancellation, the others' watchdog timeouts.

Why: "how long after X did Y" names any two events of the story; each end of the gap must be a line
the job printed with its own time, so an event whose line was not kept is left out, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_spans as ts
from knowledge import answer_quote, answer_timeline
from knowledge.answer_types import Ctx
from knowledge.lines import parse_rank

_QUOTED = re.compile(r"(?:^|(?<=\s))['\"‘“`]([^'\"’”`?]{4,80})['\"’”`]")
_RANK_ERROR_Q = re.compile(r"\brank (\d+)(?:'?s)? (?:[\w-]+ )?(?:error|exception|traceback)\b")
_ERROR = re.compile(r"error|exception", re.IGNORECASE)
_KERNEL_SOURCE = re.compile(r"dmesg|kern|syslog|journal", re.IGNORECASE)


class Named(NamedTuple):
    kind: str
    name: str
    at: str
    line: EvidenceLine | None  # None: the job's first time, whose line the diagnosis did not keep


#: kind -> (the words that name it in a question, the lines that show it, its name in the answer)
_KINDS: dict[str, tuple[re.Pattern[str], re.Pattern[str], str]] = {
    "launch": (
        re.compile(r"\blaunch(?:ed|ing)?\b|\bbeen up\b|\bin total\b|\bjob start(?:ed)?\b"),
        re.compile(r"."),
        ts.EV_LAUNCH,
    ),
    "train_start": (
        re.compile(r"\btraining start\w*|\bstart(?:ed|ing)? (?:of )?training\b|\btraining began\b"),
        re.compile(r"\bstarting training\b|\btraining start", re.IGNORECASE),
        ts.EV_TRAIN_START,
    ),
    "nan": (
        re.compile(r"\bnan\b|\bnon-?finite\b"),
        re.compile(r"\bnan\b|non-finite", re.IGNORECASE),
        ts.EV_NAN,
    ),
    "step_one": (
        re.compile(r"\bstep (?:#)?1\b(?![\d.])"),
        re.compile(r"\bstep[\s:=#]*1(?![\d.,])", re.IGNORECASE),
        ts.EV_STEP_ONE,
    ),
    "cancel": (
        re.compile(r"\bcancel\w*|\bscancel\b|\btime ?limit\b"),
        re.compile(r"CANCELLED|DUE TO TIME LIMIT|death signal", re.IGNORECASE),
        ts.EV_CANCEL,
    ),
    "watchdog": (
        re.compile(r"\bwatchdog\w*|\btime ?outs?\b"),
        re.compile(r"Watchdog caught|collective operation timeout", re.IGNORECASE),
        ts.EV_WATCHDOG,
    ),
}


def lines(c: Ctx) -> list[EvidenceLine]:
    """Every line the diagnosis kept (evidence, tails, node logs, version and setting lines), once."""
    pools: Iterable[Iterable[EvidenceLine]] = (
        answer_quote.pool(c),
        c.view.evidence,
        *(t.lines for t in c.d.tails),
        *c.d.nodes.values(),
        c.d.facts.versions,
        c.d.facts.settings,
    )
    seen: dict[tuple[str, int], EvidenceLine] = {}
    for pool in pools:
        for ln in pool:
            seen.setdefault((ln.source, ln.line), ln)
    return list(seen.values())


def named(c: Ctx, text: str, year: str) -> list[Named]:
    """The extra events the question names, each at the earliest kept line that shows it."""
    timed = sorted(
        ((at, ln) for ln in lines(c) if (at := answer_timeline.iso_of(ln, year)) is not None),
        key=lambda x: x[0],
    )
    low = text.lower()
    out: list[Named] = []
    for phrase in _QUOTED.findall(text):
        hit = next(((at, ln) for at, ln in timed if phrase.lower() in ln.text.lower()), None)
        if hit is not None:
            out.append(Named("quoted", ts.EV_QUOTED.format(phrase=phrase), hit[0], hit[1]))
    for kind, (asked, shows, name) in _KINDS.items():
        if not asked.search(low):
            continue
        own = [(at, ln) for at, ln in timed if not _KERNEL_SOURCE.search(ln.source)]
        hit = next(((at, ln) for at, ln in own if shows.search(ln.text)), None)
        if hit is not None and all(hit[1] is not e.line for e in out):
            out.append(Named(kind, name, hit[0], hit[1]))
        elif hit is None and kind == "step_one" and c.view.start:
            # step 1's own line was not kept: the logs' first time, said as such
            out.append(Named("first_kept", ts.EV_FIRST_NOT_STEP, c.view.start, None))
    if (asked_rank := _RANK_ERROR_Q.search(low)) is not None:
        out.extend(_rank_error(timed, int(asked_rank.group(1))))
    return out


def _rank_error(timed: list[tuple[str, EvidenceLine]], rank: int) -> list[Named]:
    """ "Rank 5's CUDA error": the rank's own first error line with its own time (not the kernel's)."""
    own = re.compile(rf"\brank_?{rank}\b|/{rank}/")
    for at, ln in timed:
        mine = parse_rank(ln.text).rank == rank or bool(own.search(ln.source))
        if mine and not _KERNEL_SOURCE.search(ln.source) and _ERROR.search(ln.text):
            return [Named("rank_error", ts.EV_RANK_ERROR.format(rank=rank), at, ln)]
    return []


__all__ = ["Named", "lines", "named"]
