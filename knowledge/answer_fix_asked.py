"""A fix's own setting, resume point or rerun length, asked in a few words: "flag for ckpt rotation",
"grad clip flag", "ds config key to flip", "what timeout to set in init_process_group", "any ckpt to
resume?", "how many steps to run to get past the failure", "how fast does it repro - step?".

Why: these asks name no rank or fact, so they fell to the help reply or to an intent one word pulled
in (a "rotation" read as rotating secrets, "timeout" as the activity answer). The answer is in this
job's fitted fix: the step or snippet line that holds the words asked, the step that says what
checkpoint there is, the last logged step and the verify command's `--max_steps`.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_fixasked as tx
from knowledge import answer_asks, answer_grounds
from knowledge.answer_types import Ctx, Reply

_SETTING_Q = re.compile(
    r"\b(?:flag|key|setting|option|knob|param(?:eter)?|arg(?:ument)?)s?\b"
    r"|\b(?:what|which) \w+ (?:to|should i|do i) set\b",
    re.I,
)
_RESUME_Q = re.compile(r"\b(?:ckpts?|checkpoints?)\b.{0,30}\bresume\b|\bresume (?:from|at)\b", re.I)
_REPRO_Q = re.compile(
    r"\bhow many steps\b.{0,40}\b(?:run|past|repro\w*|get)\b|\bhow (?:fast|quick\w*|soon)\b.{0,30}\brepro\w*"
    r"|\brepro\w*\b.{0,30}\b(?:which|what) step\b",
    re.I,
)
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an the for to in of on do i we what which is it there any set use my our this that how "
        "flag key setting option knob param parameter arg argument flags keys settings options",
    )
)
_SYN = {"ckpt": "checkpoint", "ckpts": "checkpoint", "ds": "deepspeed", "grad": "grad", "diag": "diagnos"}
_TOKEN = re.compile(r"`[^`]+`|--[\w-]+|\b[a-z0-9]+_[a-z0-9_]+\b|\w+=")
#: words that name only where a setting lives, not which one
_GENERIC = frozenset({"deepspeed", "deepsp", "config", "json", "yaml", "ds"})  # whole words and stems
_BOOL = re.compile(r"\b(?:false|true)\b", re.I)
_MAX_STEPS = re.compile(r"--max_steps[ =](\d+)")


def _topics(text: str) -> list[str]:
    """The message's content words (abbreviations spelt out), each a stem a fix line may hold."""
    words = re.findall(r"[a-z0-9_]+", text.lower())
    return [_SYN.get(w, w[:6]) for w in words if w not in _STOP and len(w) > 1]


def _best(cands: list[str], topics: list[str]) -> list[str]:
    """The candidates holding the most of the topics and a setting; none when no topic is held. A
    "key to flip", or a config asked for by its file alone ("ds config setting?"), counts a value of
    true or false as one more: the fix's own switch, not its `"stage": 3` context."""
    flip = "flip" in topics or "toggle" in topics or set(topics) <= _GENERIC
    scored = [
        (sum(t in c.lower() for t in topics) + (flip and bool(_BOOL.search(c))), c)
        for c in cands
        if _TOKEN.search(c)
    ]
    top = max((n for n, _ in scored), default=0)
    return [c for n, c in scored if n and n == top]


def _snippet(c: Ctx) -> list[str]:
    """The fix snippet's lines, each with the comment above it, so "keep the last 3" finds its flag."""
    out, note = [], ""
    for raw in c.d.fix_snippet.splitlines():
        line = raw.strip()
        if line.startswith(("#", "//")):
            note = line.lstrip("#/ ")
        elif line and line not in "{}[]":
            out.append(f"{line}  # {note}" if note else line)
            note = "" if line.startswith("-") or "=" in line else note
    return out


def with_setting(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the fix step and snippet line holding the setting the message asks for."""
    if not _SETTING_Q.search(text) or _RESUME_Q.search(text):
        return got
    topics = _topics(text)
    steps = _best(list(c.steps), topics)
    if not steps and got.intent == "help":  # "ds key to flip": the fix's first step with a setting
        steps = [s for s in c.steps if _TOKEN.search(s)][:1]
    lines = [ln.split("  # ")[0] for ln in _best(_snippet(c), topics)][:2]
    told = answer_asks.said(got)
    said = " ".join([tx.SETTING.format(step=steps[0])] if steps and steps[0].lower() not in told else [])
    said += "".join(" " + tx.SETTING_LINE.format(line=ln) for ln in lines if ln.lower() not in told)
    return answer_grounds.add(got, said.strip(), [])


def with_resume(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the fix step that says what checkpoint this run has to resume from."""
    if not _RESUME_Q.search(text):
        return got
    steps = [s for s in c.steps if re.search(r"\bresume\b", s, re.I) and re.search(r"checkpoint", s, re.I)]
    if not steps:
        return got
    return answer_grounds.add(got, tx.RESUME.format(step=steps[0]), [])


def with_repro(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the step it failed at and how long a run gets past it (the verify's `--max_steps`)."""
    if not _REPRO_Q.search(text):
        return got
    last = [r for r in c.view.ranks.values() if r.last_step is not None and r.last_step_line is not None]
    if not last:
        return got
    top = max(last, key=lambda r: r.last_step or 0)
    assert top.last_step is not None and top.last_step_line is not None
    ref = f"{top.last_step_line.source}:{top.last_step_line.line}"
    cmd = next((ln.split("  #")[0].strip() for ln in c.d.verify.splitlines() if "--max_steps" in ln), "")
    found = _MAX_STEPS.search(cmd)
    until = int(found.group(1)) if found else top.last_step + 1
    if until <= top.last_step:
        until = top.last_step + 1
    said = (tx.REPRO if cmd else tx.REPRO_NOCMD).format(step=top.last_step, ref=ref, until=until, cmd=cmd)
    return answer_grounds.add(got, said, [top.last_step_line])


__all__ = ["with_repro", "with_resume", "with_setting"]
