"""Where a number or a time quoted from the thread comes from ("where does the 600 s come from?",
"where does 03:24:03 come from? the Xid was 03:14", "the 600 in USR1@600?").

Why: the reader has a figure from an answer or a line and wants its source and its meaning, not the
diagnosis again. The answer finds the kept line (or the suggested fix) that holds it and says which
field it is: a watchdog's `Timeout(ms)`, the time another rank logged its error (and how long after
the first failure that was), a Slurm option's seconds. A figure no line and no fix holds is left to
the other answers. The other ranks' own errors (`answer_others`) are asked for in the same early
place, so `origin` tries both.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import thread as t
from knowledge import answer_advice, answer_jobcmds, answer_others, answer_quote, answer_setting
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, duration, rank_list, ref, reply, when
from knowledge.answer_where import strip_prefix
from knowledge.glossary import find
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, seconds_between

#: "where does X come from", "where is X from", "where did they get X": the asked-about part
ASKS_ORIGIN = re.compile(
    r"\bwhere (?:does|did|do|is|was|are|were|'s) (?:the |that |this |those |these )?(?P<what>[^?]{1,48}?)"
    r" (?:come|coming|comes|came) from\b"
    r"|\bwhere (?:does|did|is|was|'s) (?:the |that |this )?(?P<from>[^?]{1,48}?) (?:from|get set|set)\b"
    r"|\bwhere (?:did|do) (?:you|we|they|it) get (?:the |that |this )?(?P<got>[^?]{1,48}?)(?: from)?\b"
)
_TIME = re.compile(r"\b(\d{1,2}:\d{2}(?::\d{2})?)\b")
_NUMBER = re.compile(r"(?<![\w.:])(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds|min|mins|minutes)?(?![\w.:])")
_SIGNAL_AT = re.compile(r"\b(\w+@(\d+))\b")
_TIMEOUT = re.compile(
    r"Timeout\(ms\)=(\d+)\)?(?:.*?\bran for (\d+) milliseconds)?|Timed out waiting (\d+) ?ms\b()"
)
#: a collective's `#N` asked about as a step ("#5 — the 5th step?")
_NUMBER_STEP = re.compile(r"#\d+\b.{0,80}\b(?:steps?|iterations?)\b|\b(?:steps?|iterations?)\b.{0,40}#\d+\b")
_RANK_NUMBER = re.compile(r"\b(?:ranks?|r|gpu|node|pid)\s?\d")
_SLURM_SIGNAL = re.compile(r"--signal=(?:B:)?(\w+)@(\d+)")


def origin(c: Ctx, m: Match) -> Reply | None:
    """A quoted figure's source and meaning (a collective's `#N` taken for a step, a setting's value
    here); else the other ranks' own errors, when those are asked. A job-fitted command or fact asked
    in words of its own ("which dir do i df", "pid of the proc that died") is answered first."""
    if (fitted := answer_jobcmds.fitted(c, m)) is not None:
        return fitted
    if (asked := ASKS_ORIGIN.search(m.text)) is not None:
        what = asked.group("what") or asked.group("from") or asked.group("got") or ""
        found = _time_origin(c, what) or _number_origin(c, what)
        if found is not None:
            return found
    if _NUMBER_STEP.search(m.text) and (quoted := answer_quote.quote(c, m)) is not None:
        return quoted  # "the #4 in 'its last collective there was #4', is that step 4?"
    if answer_setting.ASKS_VALUE.search(m.text) and find(m.text, c.glossary) is not None:
        return answer_advice.explain(c, m)  # "was stage3_gather_16bit_weights_on_model_save even on?"
    return answer_others.others(c, m)


def _time_origin(c: Ctx, what: str) -> Reply | None:
    """A time of day: the ranks whose failure line carries it, and its distance from the first failure."""
    if (tm := _TIME.search(what)) is None:
        return None
    value = tm.group(1)
    ranks = [r for r in c.view.ranks.values() if r.first_line is not None and value in r.first_line.text]
    if not ranks:
        return None
    first = ranks[0]
    line = first.first_line
    assert line is not None
    lead = tff.ORIGIN_TIME.format(
        value=value,
        ranks=rank_list(ranks),
        what=t.category_words(first.category),
        ref=ref(line),
        text=strip_prefix(line.text)[:160],
    )
    return reply("when", f"{lead} {_after(c, first)}".strip(), [line, *_initiating_line(c, first)])


def _after(c: Ctx, r: RankView) -> str:
    """How long after the first failure the rank's line came, and the watchdog timeout when that is it."""
    ini = c.view.initiating
    if ini is None or ini.rank == r.rank or r.first_line is None:
        return ""
    gap = seconds_between(ini.first_time, r.first_time)
    if gap is None or gap <= 0:
        return ""
    said = tff.ORIGIN_AFTER.format(
        gap=duration(gap), rank=ini.rank, then=when(ini.first_time), what=t.category_words(ini.category)
    )
    timeout = _TIMEOUT.search(r.first_line.text)
    ms = int(timeout.group(1) or timeout.group(3)) if timeout is not None else 0
    if timeout is not None and abs(ms / 1000 - gap) <= 60:
        return said + tff.ORIGIN_WAITED.format(ms=ms, span=span(ms / 1000), rank=ini.rank)
    return said + "."


def span(seconds: float) -> str:
    """`600 s = 10 min`: seconds, and minutes when they are whole ones."""
    mins = seconds / 60
    return f"{seconds:g} s = {mins:g} min" if seconds >= 60 and mins == int(mins) else f"{seconds:g} s"


def _initiating_line(c: Ctx, r: RankView) -> list[EvidenceLine]:
    ini = c.view.initiating
    if ini is None or ini.rank == r.rank or ini.first_line is None:
        return []
    return [ini.first_line]


def _number_origin(c: Ctx, what: str) -> Reply | None:
    """A number: a watchdog's timeout, else the first kept line that holds it, else the suggested fix."""
    at = _SIGNAL_AT.search(what)
    num = _NUMBER.search(what)
    if num is None or _RANK_NUMBER.search(what):  # "where does rank 5 come from": the verdict, not a figure
        return None
    value = num.group(1)
    if (timed := _watchdog_origin(c, value, num.group(2) or "")) is not None:
        return timed
    token = at.group(1) if at is not None else value
    for ln in pool(c):
        if re.search(r"(?<![\w.])" + re.escape(token) + r"(?![\w.])", ln.text, re.IGNORECASE):
            text = strip_prefix(ln.text)[:200]
            return reply("quote", tff.ORIGIN_LINE.format(value=value, ref=ref(ln), text=text), [ln])
    return _fix_origin(c, token)


def _watchdog_origin(c: Ctx, value: str, unit: str) -> Reply | None:
    """`600`, `600 s`, `10 min` or `600000` ms: the `Timeout(ms)` of the watchdog lines."""
    seconds = float(value) * (60 if unit.startswith("min") else 0.001 if unit == "ms" else 1)
    hits: list[tuple[RankView, re.Match[str]]] = []
    for r in c.view.ranks.values():
        got = _TIMEOUT.search(r.first_line.text) if r.first_line is not None else None
        ms = int(got.group(1) or got.group(3)) if got is not None else 0
        if got is not None and (ms / 1000 == seconds or ms == float(value) or got.group(2) == value):
            hits.append((r, got))
    if not hits:
        return None
    r, got = hits[0]
    ms = int(got.group(1) or got.group(3))
    line = r.first_line
    assert line is not None
    text = tff.ORIGIN_TIMEOUT if got.group(1) else tff.ORIGIN_GLOO_TIMEOUT
    if got.group(2) == value:  # "600012": how long it had waited, not the timeout itself
        text = tff.ORIGIN_RAN
    lead = text.format(
        value=f"{value} {unit}".strip(),
        ms=ms,
        span=span(ms / 1000),
        ranks=rank_list(h[0] for h in hits),
        ref=ref(line),
        ran=got.group(2) or "?",
    )
    return reply("timeout_help", lead, [line])


def _fix_origin(c: Ctx, token: str) -> Reply | None:
    """A figure from the suggested fix (`USR1@600`): that line of the fix, and what the option does."""
    fix = c.entry.fix if c.entry is not None else None
    if fix is None:
        return None
    for text in [*fix.snippet.splitlines(), *c.steps]:
        if re.search(r"(?<![\w.])" + re.escape(token) + r"(?![\w.])", text, re.IGNORECASE):
            lead = tff.ORIGIN_FIX.format(text=re.split(r"\s#\s", text)[0].strip())
            if (sig := _SLURM_SIGNAL.search(text)) is not None:
                secs = int(sig.group(2))
                lead += tff.ORIGIN_SIGNAL.format(sig=sig.group(1), secs=secs, span=span(secs))
            return reply("fix", lead)
    return None


__all__ = ["ASKS_ORIGIN", "origin"]
