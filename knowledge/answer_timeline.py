"""The time between two events a question names: "how long between the save starting and torchrun
tearing everything down", "from the first error to the teardown".

The engine times each rank's failure; people also ask about the events around it, which only the
lines show: a save that started, the launcher's SIGTERM to the survivors. Each event is read from its
own line (wall-clock stamp, torchrun's glog `W1201 21:38:35.082000` included) and the gap is said
with both lines, so the reader can check it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tff
from knowledge import answer_facts, answer_guesses, answer_quote
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.intents import Match
from knowledge.jobfacts_answers import launcher_exits, seconds_between
from knowledge.lines import parse_timestamp

#: torchrun's glog prefix: level, month, day, time (no year: the job's other stamps give it)
_GLOG = re.compile(r"^[IWEF](\d{2})(\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\b")
_TEARDOWN_LINE = re.compile(r"closing signal SIG(?:TERM|KILL)|Sending process \d+ closing signal")
_ASKS_GAP = re.compile(r"\bhow (?:long|much time|many (?:seconds|secs|minutes|mins))\b|\bgap\b|\bdelay\b")


@dataclass(frozen=True, slots=True)
class Event:
    name: str
    at: str  # ISO time
    line: EvidenceLine
    coarse: bool = False  # a whole-second time (the launcher's failure summary)


#: the launcher's and torch's per-rank prefixes before a glog stamp
_RANK_PREFIX = re.compile(r"^(?:\[default\d+\]:)?(?:\[rank\d+\]:)?\[?")


def iso_of(ln: EvidenceLine, year: str) -> str | None:
    stamp = parse_timestamp(ln.text)
    if stamp is not None and not stamp.relative and (iso := stamp.iso()) is not None:
        return iso
    g = _GLOG.match(_RANK_PREFIX.sub("", ln.text.strip()))  # `[rank1]:[E1120 03:18:20.000001 …`
    if g is None or not year:
        return None
    return f"{year}-{g.group(1)}-{g.group(2)}T{g.group(3)}.{(g.group(4) or '0')[:3]:0<3}Z"


def _events(c: Ctx, text: str) -> list[Event]:
    """The events the question names, in the order it names them (a save, the first failure, the
    launcher's teardown), each with its line's time."""
    ini = c.view.initiating
    year = (ini.first_time or "")[:4] if ini is not None else ""
    found: list[tuple[int, Event]] = []
    saving = answer_quote.saving_line(c)
    named = re.search(r"\b(?:save|saving|checkpoint\w*)\b", text)
    if saving is not None and named and (at := iso_of(saving[1], year)) is not None:
        found.append((named.start(), Event(tf.EVENT_SAVE, at, saving[1])))
    down = teardown(c, year)
    asked = re.search(
        r"\b(?:torchrun|launcher|tear\w*|sigterm\w*|kill\w* (?:every|the (?:rest|others|workers)))", text
    )
    if down is not None and asked:
        found.append((asked.start(), down))
    err = re.search(r"\b(?:first (?:error|failure)|oom\w*|crash\w*|error)\b", text)
    if err and ini is not None and ini.first_time and ini.first_line is not None:
        name = tf.EVENT_FAILURE.format(rank=ini.rank) + (tff.EV_BORROWED if ini.borrowed else "")
        found.append((err.start(), Event(name, ini.first_time, ini.first_line)))
    return [e for _, e in sorted(found, key=lambda x: x[0])]


_STOPPED = re.compile(r"SIGTERM|Signal 15|exitcode ?: ?-15")


def teardown(c: Ctx, year: str) -> Event | None:
    """When the launcher stopped the others: its own `closing signal SIGTERM` line, else (that line not
    kept) the first rank its summary says was stopped, to the whole second the summary gives."""
    down = next((ln for ln in answer_quote.pool(c) if _TEARDOWN_LINE.search(ln.text)), None)
    if down is not None and (at := iso_of(down, year)) is not None:
        return Event(tf.EVENT_TEARDOWN, at, down)
    stopped = sorted(
        (r.first_time, r.first_line)
        for r in c.view.with_role("collateral")
        if r.first_time and r.first_line is not None and _STOPPED.search(r.first_line.text)
    )
    if not stopped:
        return _summary_stop(c)
    at, line = stopped[0]
    return Event(tf.EVENT_TEARDOWN, at, line, coarse=not re.search(r"\.\d*[1-9]", at))


def _summary_stop(c: Ctx) -> Event | None:
    """The launcher's failure summary's time for the first rank it stopped with SIGTERM (`time :
    2026-12-01_21:36:54`, whole seconds), when neither its teardown line nor a stopped rank's line
    was kept."""
    stopped = [e for e in launcher_exits(c.d) if e.code == -15 and e.time]
    if not stopped:
        return None
    e = min(stopped, key=lambda x: x.time or "")
    assert e.time is not None
    return Event(tf.EVENT_TEARDOWN, e.time.replace("_", "T") + ".000Z", e.line, coarse=True)


def between(c: Ctx, m: Match) -> Reply | None:
    """Two named events and the time between them; None unless the question names two it can time."""
    if not _ASKS_GAP.search(m.text):
        return None
    events = _events(c, m.text)
    if len(events) < 2:
        return None
    a, b = sorted(events[:2], key=lambda e: e.at)
    gap = seconds_between(a.at, b.at)
    if gap is None:
        return None
    lead = tf.EVENT_GAP.format(
        first=a.name,
        at_a=a.at[11:19] if a.coarse else a.at[11:23],
        ref_a=ref(a.line),
        second=b.name,
        at_b=b.at[11:19] if b.coarse else b.at[11:23],
        ref_b=ref(b.line),
        gap=_gap(gap, a.coarse or b.coarse),
    )
    return reply("when", lead, [a.line, b.line])


def _gap(seconds: float, coarse: bool) -> str:
    """`4.8 s`; a whole-second end point makes it "about 5 s (4.7 s to the second …)"."""
    exact = f"{seconds:.1f} s" if seconds < 10 else duration(seconds)
    if not coarse:
        return exact
    return tf.EVENT_ABOUT.format(about=f"{round(seconds + 0.5):.0f} s", exact=exact)


def when(c: Ctx, m: Match) -> Reply | None:
    """How long it had been running when asked; the gap between two named events when the question
    names them; else the job's timeline."""
    return answer_guesses.running(c, m) or between(c, m) or answer_facts.when(c, m)


__all__ = ["between", "iso_of", "teardown", "when"]
