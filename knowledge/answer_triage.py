"""Triage asks about the others' collective timeouts: are they the usual noise, and is the timeout ours.

"7 ranks show watchdog timeouts — the usual NCCL thing or not?", "usual nccl noise, safe to ignore?",
"`Timed out waiting 10000ms` — is that the default? can we just bump it to an hour?". Why: an on-call
engineer has seen many watchdog timeouts and wants to know whether this one is different; the honest
answer is that the timeouts only say who waited — the rank they waited for (and when it failed, or
what the collective traces say it never joined) is the finding. A timeout figure asked "default or
ours?" is answered from the line that prints it and the backend, then whether raising it would help.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_triage as tt
from denpex.core.texts import thread as t
from knowledge import answer_checks, answer_code, answer_silent
from knowledge.answer_types import Ctx, Reply, at_rank, duration, rank_list, ref, reply
from knowledge.evidence_numbers import watchdog
from knowledge.intents import Match
from knowledge.wording import phase_words

#: "the usual", "noise", "safe to ignore", "something new here": is this the timeout we always see
_USUAL = re.compile(
    r"\b(?:usual|normal|noise|noisy|benign|harmless|routine|ignorable|something new|anything new|new here)\b"
    r"|\bsafe to ignore\b|\b(?:can|could|should) (?:i|we) (?:just |safely )?ignore\b"
    r"|\bsame (?:as|old) (?:the |our |a )?(?:usual|regular|normal|typical|always)\b"
)
#: the others' collective timeouts named ("watchdog", "nccl timeout", "ALLGATHER timeouts")
_TIMEOUTS = re.compile(
    r"\b(?:nccl|gloo|watchdog|time ?outs?|timed out|collectives?|all_?gather\w*|_?reduce_scatter\w*"
    r"|all_?reduce|broadcast)\b"
)
#: a timeout's figure or the timeout itself ("10000ms", "the 600 s", "the pg timeout")
_FIGURE = re.compile(r"\b\d+ ?(?:ms|s|sec|secs|seconds|min|mins|minutes)\b|\btime ?out\b|\btimed out\b")
#: asked whether it is the default or set by the job ("is 10000ms the default?", "from our config?")
_DEFAULT_Q = re.compile(
    r"\bdefault\b|(?<!function )(?<!call )(?<!line )(?<!method )"  # "which function in my script": a place
    r"\b(?:from|in) (?:our|the|my) (?:config|code|script|launcher|yaml|settings?)\b"
    r"|\bdid (?:we|i|our \w+) set\b|\bwho set\b|\bconfigured\b"
)
#: asked whether to raise it ("should i just raise it", "bump it to an hour")
_RAISE_Q = re.compile(
    r"\b(?:rais|increas|bump|extend|lengthen|doubl|up)\w* (?:it|that|the \w+|this)\b"
    r"|\b(?:longer|bigger|higher|larger) (?:timeout|one|value)\b"
)


def usual_noise(c: Ctx, m: Match) -> Reply | None:
    """ "Usual NCCL timeout noise, safe to ignore?": the others' timeouts are collateral, then the rank
    they waited for — its own failure and time, or what the collective traces say it never joined."""
    if not _USUAL.search(m.text) or not _TIMEOUTS.search(m.text):
        return None
    ini = c.view.initiating
    waited = c.view.with_role("collateral")
    if ini is None or not waited:
        return None
    timeout = timeout_seconds(c)
    found = answer_checks.backend_of(c)
    gloo = found is not None and found[0].lower() == "gloo"  # gloo has no watchdog: its waits time out
    kind = tt.KIND_ERRORS if timeout is None else tt.KIND_TIMEOUTS if gloo else tt.KIND_WATCHDOG
    facts = dict(kind=kind, ranks=rank_list(waited), rank=ini.rank)
    wait = duration(timeout) if timeout is not None else "out their timeout"
    if note := answer_code.desync_note(c):  # the ranks called different collectives: not a slow peer
        lead = tt.NOISE_DESYNC.format(kind=kind, ranks=rank_list([*waited, ini]), note=note)
        return reply("alternatives", lead, c.view.key_line())
    if answer_silent.silent(ini):
        suspect = f" {ini.suspect.rstrip('.')}" if ini.suspect else ""
        lead = tt.NOISE_SILENT.format(timeout=wait, suspect=suspect, **facts)
        lead += f" {answer_silent.quiet(c, ini)}"  # no error of its own: when it went quiet
        return reply("alternatives", lead, c.view.key_line())
    what = t.category_words(ini.category or c.view.category)
    what = f"failed first, with {what}" + (f" while {phase_words(ini.phase)}" if ini.phase else "")
    lead = tt.NOISE_COLLATERAL.format(
        timeout=wait, what=what, at=at_rank(ini), ref=ref(ini.first_line), **facts
    )
    return reply("alternatives", lead, c.view.key_line())


def timeout_value(c: Ctx, m: Match) -> Reply | None:
    """ "Is 10000ms the default? is it from our config? should I just raise it?": what sets it, whether
    it is PyTorch's default for this backend, then whether a longer one would help."""
    if not _FIGURE.search(m.text) or not _DEFAULT_Q.search(m.text):
        return None
    timeout = timeout_seconds(c)
    found = answer_checks.backend_of(c)
    if timeout is None or found is None:
        return None
    backend = found[0].lower()
    lead = tt.TIMEOUT_SET.format(figure=_figure(timeout), backend=backend, seconds=round(timeout))
    default = tt.DEFAULTS.get(backend)
    if default is not None and abs(default - timeout) < 1:
        lead += " " + tt.TIMEOUT_IS_DEFAULT.format(backend=backend, default=_minutes(default))
    elif default is not None:
        lead += " " + tt.TIMEOUT_NOT_DEFAULT.format(backend=backend, default=_minutes(default))
    helped = answer_checks.timeout_help(c, m, figure=False) if _RAISE_Q.search(m.text) else None
    if helped is not None:
        lead += " " + helped.lead
    return reply("timeout_help", lead, [found[1], *(x for x in c.view.key_line() if x != found[1])])


def timeout_seconds(c: Ctx) -> float | None:
    """The collective timeout the job's lines print (a watchdog's `Timeout(ms)`, gloo's `waiting Nms`)."""
    found = [c.view.numbers.watchdog[0]] if c.view.numbers.watchdog is not None else []
    found += [w for r in c.view.ranks.values() if r.first_line and (w := watchdog(r.first_line.text))]
    return next((w.timeout_s for w in found if w.timeout_s is not None), None)


def _figure(seconds: float) -> str:
    """`10000 ms (10 s)`: the figure as the line prints it, and in plain time."""
    return f"{round(seconds * 1000)} ms ({_minutes(seconds)})"


def _minutes(seconds: float) -> str:
    """`10 s`, `10 min`: a timeout in the unit people set it in."""
    return f"{seconds / 60:g} min" if seconds >= 120 and seconds % 60 == 0 else f"{seconds:g} s"


__all__ = ["timeout_seconds", "timeout_value", "usual_noise"]
