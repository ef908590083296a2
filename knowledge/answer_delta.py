"""Two named events, both times and the delta between them: "ts of rank 0's 'Saving checkpoint' line
vs when torchrun logged rank 1 as failed, delta?", "oom-killer invoked when vs torchrun noticed when",
"last logged step vs the launcher's SIGTERM", "startup between 'Initializing distributed' and 'Starting
training'".

Why: a postmortem puts two lines side by side; the answer must give each one's own time with its
file:line and the seconds between them, not a cause or a whole timeline that leaves the delta out.
Each event is read from a line the job printed; an event whose line was not kept is left out.
"""

from __future__ import annotations

import itertools
import re
from typing import NamedTuple

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_delta as td
from knowledge import answer_asks, answer_quote, answer_spans_named, answer_story, answer_timeline
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.intents import Match, normalise
from knowledge.jobfacts_answers import launcher_exits, seconds_between
from knowledge.lines import parse_rank, parse_step

#: the message asks for two times side by side, or the time between two lines
_DELTA = re.compile(
    r"\bdelta\b|\b(?:vs\.?|versus)\b|\bbetween\b.{3,90}\band\b|\bhow (?:quickly|soon|long) after\b"
    r"|\btime of\b.{3,90}\band (?:the )?time\b|\bimmediately after\b|\bafter (?:some|a) delay\b"
    # "the save was ~5s in": a span stated in seconds after the first event
    r"|~?\b\d+(?:\.\d+)? ?(?:s|secs?|seconds?|ms|min|minutes?) (?:in|into|later|apart)\b"
)
_TIME_WORD = re.compile(
    r"\b(?:time|times|ts|timestamps?|when|delta|how long|how quickly|how soon|secs?|seconds)\b"
)
#: kind -> the words that name it in a question
_ASKED: dict[str, re.Pattern[str]] = {
    "kill": re.compile(r"\bkernel (?:actually )?kill\w*\b|\bkilled process\b|\bkill line\b"),
    "kernel": re.compile(r"\boom[- ]?killer\b|\bdmesg\b|\bkernel\b"),
    "teardown": re.compile(
        r"\bsigterm\w*|\bclosing signal\b|\btear\w* (?:it |everything )?down\b|\bteardown\b"
    ),
    "report": re.compile(
        r"\b(?:torchrun|launcher|agent)\b[^.?]{0,40}?\b(?:notic\w*|record\w*|logg\w*|report\w*|mark\w*|flag\w*)"
        r"|\bfailure record\b|\bfailed \(?exitcode\b|\blauncher'?s? (?:failure|failed)\b"
    ),
    "step": re.compile(r"\blast (?:good |completed |logged |training |successful )?step\b|\bstep (\d+)\b"),
    "save": re.compile(r"\bsav(?:e|ing)\b|\bcheckpoint\b"),
}
_RANK_NEAR = re.compile(r"\brank ?(\d+)\W*(?:\w+\W+){0,2}$")
_MSG = re.compile(r"(?:INFO|WARNING|ERROR|DEBUG)\]?\s+(?:[\w.]+:\s+)?(.*)$|\]\s+(.*)$")
_WORD = re.compile(r"[a-z][a-z_-]{3,}")


class Ev(NamedTuple):
    pos: int  # where the question names it
    name: str
    at: str  # ISO time; "" when the line has no time of its own
    line: EvidenceLine
    coarse: bool
    size: int = 0  # how many characters of the question name it (a repeated log phrase)


def delta(c: Ctx, m: Match) -> Reply | None:
    """Both named events' times, each with its line, and the delta; None unless two can be timed."""
    text = m.text
    if not _DELTA.search(text) or not _TIME_WORD.search(text):
        return None
    events = named(c, text)
    if len(events) < 2:
        return None
    return reply("when", said(c, events), [e.line for e in events][:4])


def with_delta(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the delta the whole message asks ("did the save start right after step 6?") when
    the answer does not give the times of the two events yet."""
    low = normalise(text)
    if not _DELTA.search(low) or not _TIME_WORD.search(low):
        return got
    told = answer_asks.said(got)
    if td.LEAD.split(":")[0].lower() in told:
        return got  # the delta is answered already
    events = [e for e in named(c, low) if e.at and _clock(e).lower() not in told]
    if len(events) < 2:
        return got
    return answer_asks.with_lead(got, said(c, events), [])


def said(c: Ctx, events: list[Ev]) -> str:
    """Each event with its time and line, then the delta between each two in time order."""
    ordered = sorted(events, key=lambda e: (e.at or "9", e.pos))
    parts = [
        td.EVENT.format(name=e.name, clock=_clock(e), ref=ref(e.line))
        if e.at
        else td.NO_TIME.format(name=e.name, ref=ref(e.line))
        for e in ordered
    ]
    out = [td.LEAD.format(events="; ".join(parts))]
    timed = [e for e in ordered if e.at]
    for a, b in itertools.pairwise(timed):
        if (gap := seconds_between(a.at, b.at)) is not None:
            out.append(td.GAP.format(first=a.name, second=b.name, gap=_gap(gap, a.coarse, b.coarse)))
    if any(e.name in (td.EV_KERNEL, td.EV_KERNEL_KILL) for e in events):
        out.append(_kernel_both(c))
    return " ".join(x for x in out if x)


def named(c: Ctx, text: str) -> list[Ev]:
    """The events the text names, in the order it names them, each line once."""
    year = _year(c)
    if not year:
        return []
    phrases = _phrases(c, text, year)
    spans = [(e.pos, e.pos + e.size) for e in phrases]
    kinds = [e for e in _kinds(c, text, year) if not any(a <= e.pos < b for a, b in spans)]
    found = phrases + kinds
    out: list[Ev] = []
    for e in sorted(found, key=lambda e: e.pos):
        new = all((e.line.source, e.line.line) != (o.line.source, o.line.line) for o in out)
        if new and not any(o.at and o.at == e.at and o.name == e.name for o in out):
            out.append(e)
    return out


def _year(c: Ctx) -> str:
    ini = c.view.initiating
    return ((ini.first_time if ini is not None and ini.first_time else "") or c.view.start or "")[:4]


def _timed(c: Ctx, year: str) -> list[tuple[str, EvidenceLine]]:
    got = ((answer_timeline.iso_of(ln, year), ln) for ln in answer_spans_named.lines(c))
    return sorted(((at, ln) for at, ln in got if at), key=lambda x: x[0])


def _line_rank(ln: EvidenceLine) -> int | None:
    own = re.search(r"/(\d+)/(?:stdout|stderr)", ln.source)
    return int(own.group(1)) if own else parse_rank(ln.text).rank


def _asked_rank(text: str, pos: int) -> int | None:
    near = _RANK_NEAR.search(text[max(0, pos - 40) : pos])
    return int(near.group(1)) if near else None


def _phrases(c: Ctx, text: str, year: str) -> list[Ev]:
    """A log line's own opening words the question repeats ('Initializing distributed', 'saving
    checkpoint at step 50'): that line, the asked rank's own when the question names one."""
    out: list[Ev] = []
    seen: set[str] = set()
    for at, ln in _timed(c, year):
        msg = _message(ln.text)
        words = msg.split()
        for n in range(min(len(words), 8), 1, -1):
            phrase = " ".join(words[:n])
            if len(phrase) < 10 or not _WORD.search(phrase) or re.match(r"step\b", phrase):
                continue
            hit = re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text)
            if hit is None:
                continue
            rank = _asked_rank(text, hit.start())
            if phrase in seen or (rank is not None and _line_rank(ln) not in (rank, None)):
                break
            seen.add(phrase)
            whose = f" (rank {rank})" if rank is not None else ""
            name = td.EV_PHRASE.format(
                phrase=" ".join(_message(ln.text, lower=False).split()[:n]), whose=whose
            )
            out.append(Ev(hit.start(), name, at, ln, _coarse(ln), len(phrase)))
            break
    return out


def _message(text: str, lower: bool = True) -> str:
    got = _MSG.search(text)
    msg = next((g for g in got.groups() if g), text) if got else text
    msg = re.sub(r"[^\w\s/.-]", " ", msg)
    return re.sub(r"\s+", " ", msg.lower() if lower else msg).strip()


def _kinds(c: Ctx, text: str, year: str) -> list[Ev]:
    out: list[Ev] = []
    for kind, rx in _ASKED.items():
        if (hit := rx.search(text)) is None:
            continue
        if kind == "kernel" and _ASKED["kill"].search(text):
            continue
        ev = _resolve(c, kind, hit, year)
        if ev is not None:
            out.append(ev._replace(pos=hit.start()))
    return out


def _resolve(c: Ctx, kind: str, hit: re.Match[str], year: str) -> Ev | None:
    if kind in ("kill", "kernel"):
        return _kernel(c, year, kill=kind == "kill")
    if kind == "teardown" and (down := answer_timeline.teardown(c, year)) is not None:
        return Ev(0, td.EV_TEARDOWN, down.at, down.line, down.coarse)
    if kind == "report":
        return _report(c, year)
    if kind == "step":
        return _step(c, year, int(hit.group(1)) if hit.group(1) else None)
    if kind == "save" and (saving := answer_quote.saving_line(c)) is not None:
        at = answer_timeline.iso_of(saving[1], year)
        return Ev(0, td.EV_SAVE, at, saving[1], _coarse(saving[1])) if at else None
    return None


def _kernel_lines(c: Ctx) -> tuple[EvidenceLine | None, EvidenceLine | None]:
    pool = answer_spans_named.lines(c)
    invoked = next((ln for ln in pool if "invoked oom-killer" in ln.text), None)
    killed = next((ln for ln in pool if "Killed process" in ln.text), None)
    return invoked, killed


def _kernel(c: Ctx, year: str, kill: bool) -> Ev | None:
    invoked, killed = _kernel_lines(c)
    ln = (killed or invoked) if kill else (invoked or killed)
    at = answer_timeline.iso_of(ln, year) if ln is not None else None
    if ln is None or at is None:
        return None
    return Ev(0, td.EV_KERNEL_KILL if ln is killed else td.EV_KERNEL, at, ln, _coarse(ln))


def _kernel_both(c: Ctx) -> str:
    invoked, killed = _kernel_lines(c)
    year = _year(c)
    if invoked is None or killed is None:
        return ""
    a, b = answer_timeline.iso_of(invoked, year), answer_timeline.iso_of(killed, year)
    if a is None or b is None:
        return ""
    return td.KERNEL_BOTH.format(a=a[11:19], ref_a=ref(invoked), b=b[11:19], ref_b=ref(killed))


def _report(c: Ctx, year: str) -> Ev | None:
    """The launcher's own `failed (exitcode: …)` line, else its summary's root-cause entry (whole s)."""
    line = next((ln for ln in answer_quote.pool(c) if answer_story.REPORT.search(ln.text)), None)
    if line is not None and (at := answer_timeline.iso_of(line, year)) is not None:
        return Ev(0, td.EV_REPORT, at, line, _coarse(line))
    ini = c.view.initiating
    exits = [e for e in launcher_exits(c.d) if e.time and e.code != -15]
    first = next((e for e in exits if ini is not None and e.rank == ini.rank), exits[0] if exits else None)
    if first is None or first.time is None:
        return None
    return Ev(0, td.EV_REPORT, first.time.replace("_", "T") + ".000Z", first.line, True)


def _step(c: Ctx, year: str, number: int | None) -> Ev | None:
    if number is None:
        last = answer_story.last_step(c, year)
        return (
            None
            if last is None
            else Ev(0, td.EV_STEP.format(step=last[1]), last[0], last[2], _coarse(last[2]))
        )
    for at, ln in _timed(c, year):
        if parse_step(ln.text) == number and not re.search(r"sav(?:e|ing)|checkpoint", ln.text, re.I):
            return Ev(0, td.EV_STEP_N.format(step=number), at, ln, _coarse(ln))
    return None


def _coarse(ln: EvidenceLine) -> bool:
    return not re.search(r"\d{2}:\d{2}:\d{2}[.,]\d", ln.text[:120])


def _clock(e: Ev) -> str:
    return e.at[11:19] if e.coarse else e.at[11:23]


def _gap(seconds: float, early: bool, late: bool) -> str:
    exact = duration(seconds) if abs(seconds) < 1 else f"{abs(seconds):.1f} s"  # "0.1 s (79 ms)"
    if abs(seconds) < 0.001:
        return td.SAME
    if early == late:
        return td.SUB_SECOND.format(exact=exact) if abs(seconds) < 1 and not early else exact
    about = round(abs(seconds))
    return td.ABOUT.format(about=f"{about:.0f} s", exact=exact)


__all__ = ["delta", "named", "said", "with_delta"]
