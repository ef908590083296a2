"""How long the other ranks sat waiting after the first one failed, when the message asks it ("how long
did the other 7 gpus sit there waiting after rank 5 died", "how long were the gpus idle before the
watchdog killed things?", "how long did everyone wait before it all came down").

Why: the collateral answer says the wait as a span ("600 s after rank 5") but not the two clock times a
manager writes into the incident: when the first rank failed and when the waiting ranks came down.
Both come from the ranks' own first failure lines; the watchdog's timeout and the collective's run
time come from the waiting ranks' watchdog line. With no time for the rank that started it (a rank
named only by the Flight Recorder), the wait is the collective's run time before the watchdog ended it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta

from denpex.core.texts import followups_waited as tw
from knowledge.answer_join import first
from knowledge.answer_types import Ctx, Reply, duration, rank_list, reply, when
from knowledge.jobfacts_answers import RankView

#: "how long … wait/idle/sit/stuck", "how long before it all came down / the watchdog killed things"
_ASK = re.compile(
    r"\bhow long\b.{0,80}\b(?:wait\w*|idle|idling|sit|sat|sitting|stuck|hung|hang\w*|blocked|twiddl\w*)\b"
    r"|\bhow long\b.{0,80}\bbefore (?:it all|everything|the (?:job|run|rest)|things|they all)"
    r" (?:came|went|fell|got) (?:down|killed|torn down|over)\b"
    r"|\bhow long\b.{0,80}\bbefore the (?:watchdog|nccl|timeout)\b",
    re.IGNORECASE,
)
_TIMEOUT = re.compile(r"Timeout\(ms\)=(\d+)")
_RAN = re.compile(r"ran for (\d+) milliseconds")
#: gloo's own timeout ("Timed out waiting 10000ms for recv operation to complete")
_GLOO = re.compile(r"Timed out waiting (\d+)\s?ms")
_CLOCK = re.compile(r"\d\d:\d\d:\d\d")


def _parse(iso: str) -> datetime | None:
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None


def _watchdog(waiting: list[RankView]) -> tuple[int | None, int | None]:
    """The watchdog's timeout and the collective's run time in ms, from a waiting rank's watchdog line
    (None: not printed)."""
    for r in waiting:
        text = r.first_line.text if r.first_line is not None else ""
        limit, ran = _TIMEOUT.search(text), _RAN.search(text)
        if limit is not None:
            return int(limit.group(1)), int(ran.group(1)) if ran else None
    return None, None


def sentence(c: Ctx) -> tuple[str, list[RankView]]:
    """The wait window's sentence and the ranks whose lines show it; empty when no rank waited."""
    waiting = sorted((r for r in c.view.with_role("collateral") if r.first_time), key=lambda r: r.rank)
    if not waiting:
        return "", []
    end_iso = min(r.first_time or "" for r in waiting)
    limit_ms, ran_ms = _watchdog(waiting)
    ini = c.view.initiating
    start, end = _parse(ini.first_time) if ini and ini.first_time else None, _parse(end_iso)
    if ini is not None and start is not None and end is not None and not ini.borrowed and start > end:
        return _stopped_later(c, waiting, (start, end), (limit_ms, ran_ms)), [*waiting, ini]
    if ini is not None and start is not None and end is not None and not ini.borrowed:
        span = duration((end - start).total_seconds())
        who, why = f"rank {ini.rank}", tw.timeout(limit_ms, ran_ms) if limit_ms else ""
        return tw.window(who, when(ini.first_time), rank_list(waiting), when(end_iso), span, why), [
            ini,
            *waiting,
        ]
    if ran_ms is None or end is None:
        return "", []
    since = (end - timedelta(milliseconds=ran_ms)).isoformat().replace("+00:00", "Z")
    ran = f"{ran_ms} ms ({duration(ran_ms / 1000)})"
    why = tw.timeout(limit_ms, None) if limit_ms else ""
    return tw.ran_for(rank_list(waiting), when(end_iso), ran, when(since), why), waiting


def _stopped_later(
    c: Ctx, waiting: list[RankView], times: tuple[datetime, datetime], watchdog: tuple[int | None, int | None]
) -> str:
    """The initiator's first line comes after the others failed (hung ranks, stopped by the launcher): the
    others' wait is their timeout, counted back from their failure."""
    (start, end), (limit_ms, ran_ms) = times, watchdog
    ini = c.view.initiating
    assert ini is not None and ini.first_time is not None
    gloo = next(
        (int(m.group(1)) for r in waiting if r.first_line and (m := _GLOO.search(r.first_line.text))), None
    )
    wait_ms = ran_ms or limit_ms or gloo
    since = (end - timedelta(milliseconds=wait_ms)).isoformat().replace("+00:00", "Z") if wait_ms else ""
    why = tw.timeout(limit_ms, ran_ms) if limit_ms else tw.gloo_timeout(gloo) if gloo else ""
    span = duration((start - end).total_seconds())
    end_iso = end.isoformat().replace("+00:00", "Z")
    return tw.stopped_later(
        f"Rank {ini.rank}",
        rank_list(waiting),
        when(end_iso),
        when(since) if since else "",
        when(ini.first_time),
        span,
        why,
    )


def with_wait(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the wait window's start and end times, when the message asks how long they waited and
    the answer does not give both clock times yet."""
    if not _ASK.search(text):
        return got
    said, ranks = sentence(c)
    if not said or all(t in got.lead for t in _CLOCK.findall(said)[:2]):
        return got
    shown = [r.first_line for r in ranks[:2] if r.first_line is not None]
    if got.intent == "help":
        return reply("hang", said, shown)
    if got.intent == "explain":  # a term's meaning came first ("… before the watchdog fired"): the wait leads
        return first(got, said, shown)
    lines = got.lines + [ln for ln in shown if all(ln.ref != x.ref for x in got.lines)]
    return replace(got, lead=f"{got.lead} {said}".strip(), lines=lines, material=[*got.material, said])
