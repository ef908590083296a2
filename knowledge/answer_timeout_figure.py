"""The timeout's figure as its line prints it, when the message asks it in a word beside something else:
"timeout was 10s?? thats tiny, confirm", "timeout is only 10 sec?? exact value pls", "the timeout is
10000ms — where would that be configured, and what value should I set?".

Why: the asker wants the exact figure to compare with their config, and the answer went to the verify
command or the verdict; the figure is this job's fact, printed by the watchdog (`Timeout(ms)=600000`)
or by gloo (`Timed out waiting 10000ms`), so it is quoted as printed, with the line and the ranks that
print it. Asked where it is set: a process group's timeout is set in the training script (the logs
never show where), and what value to set is whether raising it would help, which the timeout answer
says from this job's ranks.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_runfacts as tr
from knowledge import answer_asks, answer_join
from knowledge.answer_types import Ctx, Reply, duration, rank_list, ref, reply
from knowledge.evidence_numbers import watchdog

#: the timeout as a watchdog (`Timeout(ms)=600000`) or gloo (`Timed out waiting 10000ms`) line prints it
_TOKEN = re.compile(r"Timeout\(ms\)=\d+|Timed out waiting \d+ ?ms")
#: the timeout named as a thing (not "timed out")
_NAMED = re.compile(r"\b(?:time ?outs?|pg[_ ]timeout|ddp_timeout)\b", re.IGNORECASE)
#: asks its figure: exact, value, confirm, "only 10 sec??", "what is the … timeout", "in ms"
_FIGURE = re.compile(
    r"\b(?:exact(?:ly)?|value|figure|number|confirm\w*|in use|only|tiny|short|small|really|ms|millis\w*)\b"
    r"|\b\d+ ?(?:ms|s|sec|secs|seconds|mins?|minutes)\b|\?\?"
    r"|\bwhat(?:'s| is| was)? (?:the |our |its |that |this )?(?:[\w-]+ )?time ?out\b"
    r"|\btime ?out (?:was|is|set|value|in use|figure|length)\b"
    r"|\bhow (?:long|big) (?:was|is) (?:the |that |this )?(?:[\w-]+ )?time ?out\b"
    r"|\bhow many (?:min\w*|sec\w*|ms|millis\w*|hours?)\b",  # "timeout how many minute"
    re.IGNORECASE,
)
#: asks where it is set
_WHERE = re.compile(
    r"\bwhere\b[^?]{0,40}\b(?:set|configured|configure|come from|comes from|defined|specified)\b"
    r"|\bhow (?:do|can|would|should) (?:i|we) (?:set|change|raise|increase|configure)\b",
    re.IGNORECASE,
)
#: asks what value to set: whether raising it would help
_WHAT_VALUE = re.compile(
    r"\bwhat (?:value|number|timeout) (?:should|do|would|to)\b|\bwhat (?:should|do) (?:i|we) set\b"
    r"|\b(?:raise|increase|bump|lengthen)\b",
    re.IGNORECASE,
)
_HELP_ASK = "would raising the timeout help?"
#: answers that are about the timeout already: its figure goes after them, not before
_TIMEOUT_INTENTS = ("activity", "timeout_help", "hang", "when")


def timeout_line(c: Ctx) -> tuple[str, EvidenceLine] | None:
    """The first kept line (the ranks' first lines in rank order, then the evidence) that prints the
    timeout's figure, with the figure as printed."""
    ranks = sorted(c.view.ranks.values(), key=lambda r: r.rank)
    lines = [r.first_line for r in ranks if r.first_line is not None] + c.view.evidence
    for ln in lines:
        if (m := _TOKEN.search(ln.text)) is not None:
            return m.group(0), ln
    return None


def timeout_token(c: Ctx) -> str | None:
    found = timeout_line(c)
    return found[0] if found is not None else None


def figure(c: Ctx) -> tuple[str, list[EvidenceLine]]:
    """ "The timeout was 10 s: the line prints `Timed out waiting 10000ms` (console.log:28; ranks 0-2
    print it)."; ("", []) when no kept line prints it."""
    found = timeout_line(c)
    if found is None:
        return "", []
    raw, ln = found
    dog = watchdog(ln.text)
    if dog is None or dog.timeout_s is None:
        return "", []
    who = [r.rank for r in c.view.ranks.values() if r.first_line is not None and raw in r.first_line.text]
    many = f"ranks {rank_list(sorted(who))}" if len(who) > 1 else ""
    said = tr.TIMEOUT_FIGURE.format(
        dur=duration(dog.timeout_s),
        raw=raw,
        ref=ref(ln),
        who=tr.TIMEOUT_WHO.format(ranks=many) if many else "",
    )
    return said, [ln]


def asks_figure(text: str) -> bool:
    return bool(_NAMED.search(text)) and bool(_FIGURE.search(text) or _WHERE.search(text))


def with_figure(c: Ctx, text: str, got: Reply, asked: Callable[[str], Reply]) -> Reply:
    """`got` with the timeout's printed figure when the message asks it and the answer does not quote it,
    then where such a timeout is set and whether raising it would help, when asked."""
    if not asks_figure(text):
        return got
    said, shown = figure(c)
    told = answer_asks.said(got)
    if said and (raw := timeout_token(c)) is not None and raw.lower() not in told:
        if got.intent == "help":
            got = reply("activity", said, shown)
        elif got.intent in _TIMEOUT_INTENTS:
            got = answer_asks.with_lead(got, said, shown)
        else:
            got = answer_join.first(got, said, shown)
    if not _WHERE.search(text):
        return got
    backend = "gloo" if "waiting" in (timeout_token(c) or "") else "nccl"
    where = tr.TIMEOUT_WHERE.format(backend=backend)
    if where.lower()[:60] not in answer_asks.said(got):
        got = answer_asks.with_lead(got, where, [])
    if _WHAT_VALUE.search(text) and got.intent != "timeout_help":
        got = answer_asks.add(got, _HELP_ASK, asked(_HELP_ASK))
    return got


__all__ = ["asks_figure", "figure", "timeout_line", "timeout_token", "with_figure"]
