"""The values a step line printed just before an event the reader names: "what were the lr and
grad_norm just before the save? I want to be sure training itself was stable", "loss and grad norm
right before the checkpoint?", "mem_alloc just before the OOM?".

Why: the answers name the save or the failure, and a figures answer quotes one value (the learning
rate) from wherever it finds it; the reader wants every value asked, from the last step line before
that event, and whether the step lines before it were steady (a training problem would show there).
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_memjobs as tm
from knowledge import answer_more
from knowledge.answer_asks import said
from knowledge.answer_logged import kept
from knowledge.answer_quote import saving_line
from knowledge.answer_types import Ctx, Reply, reply, when
from knowledge.lines import parse_timestamp

#: each value a step line prints: the words that ask it, the name as logged
_VALUES: dict[str, tuple[re.Pattern[str], str]] = {
    "lr": (re.compile(r"\blr\b|\blearning[ _]rate\b"), r"lr|learning_rate"),
    "grad_norm": (re.compile(r"\bgrad(?:ient)?[ _]?norms?\b"), r"grad_norm"),
    "loss": (re.compile(r"\bloss(?:es)?\b"), r"loss"),
    "mem_alloc": (re.compile(r"\bmem(?:ory)?[ _]alloc\w*"), r"mem_alloc"),
    "tokens/s": (re.compile(r"\btokens?(?:/s| per sec\w*)\b|\bthroughput\b"), r"tokens/s"),
}
#: the event the values are asked before: the save, else the failure
_BEFORE = re.compile(
    r"\b(?:just |right |immediately |directly )?(?:before|prior to|leading up to|going into|ahead of)"
    r" (?:the |its |it |that )?(?P<event>sav\w+|checkpoint\w*|ckpt|oom|crash\w*|fail\w*|error|died|die"
    r"|kill\w*|blew up|fell over|exploded)"
)
_NUMBER = r"([-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?:GiB|MiB)?)"
_STEP = re.compile(r"\bstep[ =:]*\d+", re.IGNORECASE)
#: how many step lines before the event are read for steadiness
STEADY_LINES = 10


def _value(text: str, logged: str) -> str | None:
    found = re.search(rf"\b(?:{logged})\s*[=:]?\s*{_NUMBER}", text, re.IGNORECASE)
    return found.group(1) if found else None


def values_before(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """ "Just before the save, the last step line (ref, time) printed lr 3.0e-04, grad_norm 0.91: `…`.
    Over the 10 step lines before it, lr stayed at 3.0e-04, …" ("" when no such line prints them)."""
    found = _BEFORE.search(text)
    asked = [(name, logged) for name, (rx, logged) in _VALUES.items() if rx.search(text)]
    if found is None or not asked:
        return "", []
    saving = found.group("event")[:3] in ("sav", "che", "ckp")
    event = _event(c, saving)
    if event is None:
        return "", []
    steps = _steps_before(c, event, [logged for _, logged in asked])
    if not steps:
        return "", []
    last = steps[-1]
    values = ", ".join(f"{name} {v}" for name, logged in asked if (v := _value(last.text, logged)))
    stamp = parse_timestamp(re.sub(r"^(?:\[[^\]]*\]:)*", "", last.text))
    at = when(stamp.iso()) if stamp is not None else ""
    body = re.sub(r"^(?:\[[^\]]*\]:)*\s*", "", last.text).strip()[:200]
    event_name = "the save" if saving else "the failure"
    out = tm.VALUES_BEFORE.format(event=event_name, ref=last.ref, at=at, values=values, text=body)
    steady = [_steady(name, logged, steps[-STEADY_LINES:]) for name, logged in asked]
    steady = [s for s in steady if s]
    if len(steps) > 1 and steady:
        out += tm.VALUES_STEADY.format(n=min(len(steps), STEADY_LINES), steady=", ".join(steady))
    return out, [last]


def _event(c: Ctx, saving: bool) -> EvidenceLine | None:
    ini = c.view.initiating
    if saving:
        found = saving_line(c)
        if found is not None:
            return found[1]
        return answer_more.doing_line(c, ini) if ini is not None and ini.phase == "checkpoint_save" else None
    return ini.first_line if ini is not None else None


def _steps_before(c: Ctx, event: EvidenceLine, logged: list[str]) -> list[EvidenceLine]:
    """The step lines printing an asked value, before the event: earlier in its file, else earlier in
    time (a step line of another file)."""
    stamp = parse_timestamp(re.sub(r"^(?:\[[^\]]*\]:)*", "", event.text))
    at = stamp.iso() if stamp is not None else None
    out = []
    for ln in sorted(kept(c), key=lambda x: (x.source, x.line)):
        if not _STEP.search(ln.text) or not any(_value(ln.text, name) for name in logged):
            continue
        if ln.source == event.source:
            if ln.line < event.line:
                out.append(ln)
            continue
        mine = parse_timestamp(re.sub(r"^(?:\[[^\]]*\]:)*", "", ln.text))
        if at and mine is not None and (mine.iso() or "") < at:
            out.append(ln)
    same = [ln for ln in out if ln.source == event.source]
    return same or out


def _steady(name: str, logged: str, lines: list[EvidenceLine]) -> str:
    seen = [v for ln in lines if (v := _value(ln.text, logged))]
    if not seen:
        return ""
    if len(set(seen)) == 1:
        return tm.STEADY_SAME.format(name=name, value=seen[0])

    def number(v: str) -> float:
        return float(re.sub(r"[A-Za-z]+$", "", v))

    low, high = min(seen, key=number), max(seen, key=number)
    return tm.STEADY_RANGE.format(name=name, low=low, high=high)


def with_values(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the values asked from the last step line before the save (or the failure)."""
    sentence, lines = values_before(c, text.lower())
    if not sentence or (lines and lines[0].ref in got.lead and "just before" in said(got)):
        return got
    if got.intent == "help":
        return reply("loss", sentence, lines)
    shown = got.lines + [ln for ln in lines if ln not in got.lines]
    lead = f"{sentence} {got.lead}".strip()
    return replace(got, lead=lead, lines=shown, material=[sentence, *got.material])


__all__ = ["values_before", "with_values"]
