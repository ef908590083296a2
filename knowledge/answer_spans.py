"""The times a question lists and the spans between them: "first log line, last step line, when
torchrun started killing things", "how long was rank 0 in torch.save before it threw", "gap between
step 100 and the save line", "how long did ranks 1-7 wait after that".

Why: people account for a failure's time to the millisecond, and each answer must come from the
event's own line. A failure line that carries no time of its own (a Python traceback under a timed
line) is never given a time: a span ending at it is bounded by the next timed event instead ("at
most 4.7 s"), and a time the launcher's summary gives to the whole second is said as "about".
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_spans as ts
from knowledge import (
    answer_facts,
    answer_more,
    answer_pace,
    answer_quote,
    answer_spans_named,
    answer_story,
    answer_timeline,
    answer_where,
)
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import seconds_between

#: asks for times or a span, not a cause ("how long", "gap", "timing", "down to ms")
_ASKS = re.compile(
    r"\bhow (?:long|much time|many (?:seconds|secs|ms|minutes|mins))\b|\bgap\b|\btiming\b"
    r"|\b(?:time|seconds|secs|ms) (?:from|between)\b|\belapsed\b"
    r"|\bdown to (?:the )?ms\b|\bmillisec\w*|\bwithin (?:a|one) second\b|\bwhat was it doing for that long\b"
    # "when did the save start vs when the kernel killed it", "gimme both timestamps": two times asked
    r"|\b(?:both|the two|two) (?:timestamps|times)\b|\bwhen\b[^?]{0,50}\b(?:vs\.?|versus) when\b"
    r"|\bexact (?:time|times|timestamps?)\b"
    # "at what times did the launcher send SIGTERM and record rank 3's failure": two times asked
    r"|\b(?:at )?what times\b"
)
#: each event a question can name, by the words that name it
_NAMED: dict[str, re.Pattern[str]] = {
    "first": re.compile(r"\bfirst (?:log )?line\b|\b(?:job|run|logs?) start(?:ed)?\b"),
    "step": re.compile(
        r"\blast (?:(?:good|completed|successful|clean|logged|finished|training|train|healthy|normal) )"
        r"{0,2}step\b"
        r"|\bstep (?:line|\d+)\b|\bstep line\b|\bstep\b[^?]{0,20}\bat (?:the )?last log\b"
    ),
    "save": re.compile(r"\bsav(?:e|ing)\b|\bcheckpoint\w*|\bckpt\b|\btorch\.save\b|state_dict\b"),
    "failure": re.compile(
        r"\b(?:died|dying|die|threw|throw|thrown|crash\w*|errored|went down|failed|failing)\b"
        r"|\b(?:rank \d+'?s?|its) (?:\w+ )?(?:error|oom)\b"
        # "the failure" (a timeout is its own event), not the launcher "reporting the failure"
        r"|(?<!reporting )(?<!reported )(?<!reports )(?<!report )"
        r"\bthe (?:failure|crash)\b(?! (?:logged|reported|report|line))"
    ),
    "kernel": re.compile(
        r"\boom[- ]?kill\w*|\bxid\b|\bdmesg\b|\b(?:fell|fallen) off\b"
        # "when the kernel killed it", "a generic host OOM": the kernel's own OOM line
        r"|\bkernel (?:killed|stepped in|kill\w*|step\w* in|fired|shot)\b|\b(?:host|system|cpu|ram) oom\b"
        # "the moment the process was killed": the kernel's kill, when its line is the first failure
        r"|\b(?:the )?(?:process|it|rank \d+|worker) (?:was|got) killed\b"
    ),
    "teardown": re.compile(
        r"\bsigterm\w*|\bkill(?:ing|ed)? (?:things|the others|everything|them|off|the rest)\b"
        r"|\bgot killed\b|\btear\w* (?:it |everything )?down\b|\bteardown\b"
    ),
    "report": re.compile(
        r"\b(?:torchrun|launcher|agent) (?:notic\w*|fail\w*|gave up|giv\w* up"
        r"|catch\w*|caught|detect\w*|spott\w*|declar\w*)"
        r"|\bnotic\w* it\b"
        r"|\bfailed \(?exitcode\b|\bexitcode: ?-?\d+|\blauncher'?s? (?:\w+ )?(?:failed|failure) line\b"
        r"|\brecord\w* (?:rank \d+'?s?|the|its) (?:failure|exit\w*|crash)"
    ),
    "end": re.compile(
        r"\btorchrun (?:report\w*|logg\w*)|\breport\w* the failure\b|\bfailure (?:logged|reported|report)\b"
        r"|\blast (?:log )?line\b"
    ),
}
#: asks how long the other ranks waited ("how long did ranks 1-7 wait", "how long were 1-3 parked")
_WAITED = re.compile(
    r"\bhow long (?:were|was|did|had) (?:ranks? )?"
    r"(?:\d+(?:\s?(?:-|,|and|&)\s?\d+)*|the (?:others|rest|ranks|other ranks)|they)"
    r" (?:\w+ ){0,2}?(?:wait|sit|sat|park|hang|hung|stuck|block)\w*"
    r"|\bhow long after\b[^?]{0,50}\b(?:wait|sit|sat|park|stuck|block)\w*"
)
#: "how long did each step take" beside a span: the step rate leads
_PER_STEP = re.compile(r"\b(?:each|every|a|one) step\b.{0,20}\btak\w*|\bper step\b")
_FRACTION = re.compile(r"\d{2}:\d{2}:\d{2}[.,]\d")
_KERNEL_LINE = re.compile(r"invoked oom-killer|Out of memory: Killed process|NVRM: Xid|segfault at")


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    name: str
    at: str  # ISO time, to the millisecond when the line gives it
    line: EvidenceLine | None
    coarse: bool = False  # the line gives whole seconds only
    borrowed: bool = False  # the line has no time of its own: `at` is an earlier line's


def spans(c: Ctx, m: Match) -> Reply | None:
    """The named events in time order, each with its own line's time, and the span between each two;
    how long the other ranks waited when asked. None unless two events (or a wait) can be timed."""
    ini = c.view.initiating
    year = (ini.first_time if ini is not None and ini.first_time else c.view.start or "")[:4]
    if not _ASKS.search(m.text) or not year:
        return None
    events = _events(c, year) if ini is not None and ini.first_time else []  # a kill: no failure line
    chosen = sorted(_dedup(_named(events, m.text) + _extra(c, m.text, year)), key=_when)
    waited = _waited(c, events) if _WAITED.search(m.text) else ""
    if len(chosen) < 2 and not (waited and chosen):  # a wait alone: the timeout's answer says it
        return None
    plain = len(chosen) == 2 and not waited and not any(e.borrowed for e in chosen)
    if plain and (two := answer_timeline.between(c, m)) is not None:
        return two  # two events it names and times itself (a save, the teardown)
    said = [_listed(chosen, events)] if len(chosen) >= 2 else []
    said.append(waited)
    if (answer_pace.RATE_Q.search(m.text) or _PER_STEP.search(m.text)) and (
        rate := answer_pace.pace(c, m)
    ) is not None:
        said.insert(0, rate.lead)
    shown = [e.line for e in chosen if e.line is not None]
    return reply("when", " ".join(x for x in said if x), shown[:4])


def _named(events: list[Event], text: str) -> list[Event]:
    """The events the text names; "the launcher's 'failed (exitcode: -11)' line" names the launcher's
    report, not the rank's failure its word "failed" would name alone."""
    report = _NAMED["report"].search(text)
    out = []
    for e in events:
        found = _NAMED[e.kind].search(text) if e.kind in _NAMED else None
        if found is None and e.kind == "failure" and e.line is not None and _KERNEL_LINE.search(e.line.text):
            found = _NAMED["kernel"].search(text)  # the kernel's line is the first failure itself
        if found is None:
            continue
        inside = report is not None and e.kind == "failure" and report.start() <= found.start() < report.end()
        if not inside:
            out.append(e)
    kinds = {e.kind for e in events}
    if report is not None and "report" not in kinds and "end" not in {e.kind for e in out}:
        out += [e for e in events if e.kind == "end"]  # the launcher's report is the logs' last line
    return out


def _extra(c: Ctx, text: str, year: str) -> list[Event]:
    """The events only a quote or a word of the question names (a log phrase, the launch, a NaN)."""
    out = []
    for e in answer_spans_named.named(c, text, year):
        coarse = _coarse(e.line) if e.line is not None else not re.search(r"\.\d*[1-9]", e.at)
        out.append(Event(e.kind, e.name, e.at, e.line, coarse))
    return out


def _dedup(events: list[Event]) -> list[Event]:
    """Each line once: a quoted phrase may name the very line a word names too."""
    out: list[Event] = []
    for e in events:
        if e.line is None or all(e.line is not o.line for o in out):
            out.append(e)
    return out


def _events(c: Ctx, year: str) -> list[Event]:
    """Every event the job's lines time: the first line, the last step, the save, the first failure,
    the kernel's line, the launcher's teardown, the last line."""
    ini = c.view.initiating
    assert ini is not None and ini.first_time
    out: list[Event] = []
    if c.view.start:
        out.append(Event("first", ts.EV_FIRST, c.view.start, None))
    if (step := answer_story.last_step(c, year)) is not None:
        out.append(Event("step", ts.EV_STEP.format(step=step[1]), step[0], step[2], _coarse(step[2])))
    saving = answer_quote.saving_line(c)
    saving_phase = ini.phase == "checkpoint_save"
    save = saving[1] if saving else (answer_more.doing_line(c, ini) if saving_phase else None)
    if save is not None and (at := answer_timeline.iso_of(save, year)) is not None:
        out.append(Event("save", ts.EV_SAVE, at, save, _coarse(save)))
    kernel = next((ln for ln in c.view.evidence if _KERNEL_LINE.search(ln.text)), None)
    if ini.first_line is not None:
        own = answer_timeline.iso_of(ini.first_line, year) is not None and not ini.borrowed
        name = ts.EV_FAILURE.format(rank=ini.rank)
        out.append(Event("failure", name, ini.first_time, ini.first_line, _coarse(ini.first_line), not own))
    if kernel not in (None, ini.first_line) and (at := answer_timeline.iso_of(kernel, year)) is not None:
        out.append(Event("kernel", ts.EV_KERNEL, at, kernel, _coarse(kernel)))
    out += _around_failure(c, year, save)
    if (down := answer_timeline.teardown(c, year)) is not None:
        out.append(Event("teardown", ts.EV_TEARDOWN, down.at, down.line, down.coarse))
    report = next((ln for ln in answer_quote.pool(c) if answer_story.REPORT.search(ln.text)), None)
    if report is not None and (at := answer_timeline.iso_of(report, year)) is not None:
        out.append(Event("report", ts.EV_REPORT, at, report, _coarse(report)))
    if c.view.end:
        out.append(Event("end", ts.EV_END, c.view.end, None, not re.search(r"\.\d*[1-9]", c.view.end)))
    return out


def _around_failure(c: Ctx, year: str, save: EvidenceLine | None) -> list[Event]:
    """A failure line with no time of its own (a traceback): the rank's own timed lines around it (its
    last line before, its exit line), so its window is bounded by them, not by the logs' last line."""
    ini = c.view.initiating
    if ini is None or ini.first_line is None or answer_timeline.iso_of(ini.first_line, year) is not None:
        return []
    prior = answer_more.doing_line(c, ini)
    out = []
    for kind, name, ln in (
        ("prior", ts.EV_PRIOR.format(rank=ini.rank, ref=ref(prior)), prior),
        ("exit", ts.EV_EXIT.format(rank=ini.rank), ini.exit_line),
    ):
        if ln is not None and ln is not save and (at := answer_timeline.iso_of(ln, year)) is not None:
            out.append(Event(kind, name, at, ln, _coarse(ln)))
    return out


def _coarse(ln: EvidenceLine) -> bool:
    """The line's own stamp gives whole seconds only (`[Fri Nov 20 03:05:38 2026]`, a summary)."""
    return not _FRACTION.search(ln.text[:120])


def _when(e: Event) -> tuple[str, str]:
    """Time order; a whole-second time sorts mid-second (`21:39:04` is any time in that second)."""
    return (e.at[:19], "5" if e.coarse else e.at[20:23])


def _clock(e: Event) -> str:
    return e.at[11:19] if e.coarse else e.at[11:23]


def _listed(chosen: list[Event], every: list[Event]) -> str:
    """`21:38:30.286 the save started (ref); …`, then the span between each two in turn; a borrowed
    time is bounded by the next timed event of the job, never stated as its own."""
    parts, gaps = [], []
    timed = [e for e in chosen if not e.borrowed]
    for e in chosen:
        where = f" ({ref(e.line)})" if e.line is not None else ""
        if e.borrowed:
            parts.append(ts.EV_NO_TIME.format(name=e.name, where=where))
            continue
        parts.append(f"{_clock(e)} {e.name}{where}")
    for a, b in itertools.pairwise(timed):
        if (gap := seconds_between(a.at, b.at)) is not None:
            gaps.append(ts.SPAN.format(first=a.name, second=b.name, gap=_gap(gap, a.coarse, b.coarse)))
    span = seconds_between(timed[0].at, timed[-1].at) if len(timed) > 1 else None
    one = ts.ONE_SECOND if span is not None and timed[0].at[:19] == timed[-1].at[:19] else ""
    said = [ts.LISTED.format(events="; ".join(parts)), *gaps, one, _bound(chosen, every)]
    return " ".join(x for x in said if x)


def _bound(chosen: list[Event], every: list[Event]) -> str:
    """For a failure line with no time of its own: the window it falls in, from the last timed event
    before it (its borrowed time) to the next timed event after."""
    fail = next((e for e in chosen if e.borrowed), None)
    if fail is None:
        return ""
    order = list(_NAMED)  # at one time, the later event of the story (the save after its step line)
    before = max(
        (e for e in every if not e.borrowed and e.at <= fail.at),
        key=lambda e: (e.at, order.index(e.kind) if e.kind in order else 0),
        default=None,
    )
    after = min(
        (e for e in every if not e.borrowed and e.at > fail.at and e.kind != "first"),
        key=lambda e: e.at,
        default=None,
    )
    if before is None or after is None or (gap := seconds_between(before.at, after.at)) is None:
        return ""
    said = ts.BOUND.format(
        name=fail.name,
        first=before.name,
        at_a=_clock(before),
        second=after.name,
        at_b=_clock(after),
        gap=_gap(gap, before.coarse, after.coarse),
    )
    return " ".join(x for x in (said, _bound_from(chosen, fail, before, after)) if x)


def _bound_from(chosen: list[Event], fail: Event, before: Event, after: Event) -> str:
    """The window again, counted from the earlier event the message named (its start of training)."""
    named = next((e for e in chosen if not e.borrowed and e.at < before.at and e is not fail), None)
    if named is None:
        return ""
    low, high = seconds_between(named.at, before.at), seconds_between(named.at, after.at)
    if low is None or high is None:
        return ""
    return ts.BOUND_FROM.format(
        first=named.name,
        at=_clock(named),
        low=_gap(low, named.coarse, before.coarse),
        high=_gap(high, named.coarse, after.coarse),
    )


def _waited(c: Ctx, every: list[Event]) -> str:
    """How long the collateral ranks waited: from the first rank's failure (its save's start when the
    failure has no time of its own) to their own first failure line, and where they waited."""
    coll = c.view.with_role("collateral")
    first = c.view.first_collateral_time()
    by = {e.kind: e for e in every}
    start = by.get("failure")
    if start is not None and start.borrowed:
        start = by.get("save") or by.get("step")
    firsts = [x for x in coll if x.first_time == first and x.first_line is not None]
    end = by.get("teardown") or by.get("end")
    year = first[:4] if first else ""
    line = firsts[0].first_line if firsts else None
    if first and line is not None and not firsts[0].borrowed and answer_timeline.iso_of(line, year):
        end = Event("coll", ts.EV_COLLATERAL, first, line, _coarse(line))
    if not coll or start is None or end is None or (gap := seconds_between(start.at, end.at)) is None:
        return ""
    exact = start.kind == "failure" and end.kind == "coll"  # both ends the ranks' own times
    said = (ts.WAITED if exact else ts.WAITED_AT_MOST).format(
        ranks=rl(coll),
        first=start.name,
        at_a=_clock(start),
        second=end.name,
        at_b=_clock(end),
        gap=_gap(gap, start.coarse, end.coarse),
    )
    own = answer_facts.wait_text(c.view, coll[0]).replace(
        " It ", f" By their own lines, rank(s) {rl(coll)} ", 1
    )
    return f"{said}{own} {answer_where.places(c)}".strip()  # "until the 15 s timeout": their own figure


def _gap(seconds: float, early: bool, late: bool) -> str:
    """`4.8 s`; a whole-second end (the true time is up to a second later) makes it "about 5 s"."""
    exact = duration(seconds) if abs(seconds) < 1 or seconds >= 60 else f"{seconds:.1f} s"
    if (early or late) and abs(seconds) < 1:
        return ts.SAME_SECOND
    if early == late:
        return exact
    about = round(seconds + (0.5 if late else -0.5))
    return ts.ABOUT.format(about=f"{about:.0f} s", exact=exact)


__all__ = ["spans"]
