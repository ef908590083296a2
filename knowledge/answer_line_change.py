"""The change to make at the line of code the reader names: "what exactly should I change around line
174 of train.py?", "what do I edit in our save function so it stops eating RAM?".

Why: the fix answer leads with the entry's first step, which may change the machine (more `--mem`),
not the code; asked what to change *at a line of the code*, the reader wants the step that changes
what that line does. In an entry where every rank builds its own copy, that is the step that stops the
per-rank copy (save sharded, gather on rank 0 only), said for the job's own line.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups_memjobs as tm
from knowledge import answer_mechanism
from knowledge.answer_asks import said
from knowledge.answer_types import Ctx, Reply, reply

#: a change asked at a place in the code ("change around line 174 of train.py", "edit at train.py:174")
LINE_CHANGE_Q = re.compile(
    r"\b(?:change|fix|edit|modify|replace|rewrite|patch|do)\b[^?]{0,40}?"
    r"\b(?:around|at|on|in|near|to) (?:line \d+|[\w-]+\.py\b|(?:my|our|the) (?:code|script|save \w+))"
    r"|\b(?:line \d+|[\w-]+\.py:\d+)\b[^?]{0,30}\b(?:change|fix|edit|modify|replace|rewrite)\b"
)
#: a fix step that changes the per-rank copy in the code (shard it, gather on one rank)
_CODE_STEP = re.compile(
    r"\b(?:every|each) rank\b|\brank ?0\b|\bshard\w*|\bDCP\b|\brank0_only\b", re.IGNORECASE
)
_WHERE = re.compile(r"\(([\w.-]+\.py line \d+)")


def code_step(c: Ctx) -> str:
    """The entry's fix step that changes the code line (the per-rank copy), "" when none does."""
    steps = list(c.steps)
    return next((s for s in steps if _CODE_STEP.search(s)), "")


def _where(c: Ctx, text: str) -> str:
    """ "train.py line 174" from the verdict's code line and its frame; else the place the reader
    named, with the job's code line under it when the evidence keeps one (`get_state_dict(…)`)."""
    found = _WHERE.search(answer_mechanism.cause_sentence(c))
    if found is not None:
        return found.group(1)
    named = _NAMED.search(text)
    if named is None:
        return ""
    file, line = named.group("f1") or named.group("f2"), named.group("n1") or named.group("n2")
    code = next(
        (ln for ln in c.view.evidence if _CODE.search(ln.text) and not _NOT_CODE.search(ln.text)), None
    )
    quoted = f" (`{answer_mechanism.code_of(code)}`, {code.ref})" if code is not None else ""
    return f"{file} line {line}{quoted}"


_NAMED = re.compile(
    r"\bline (?P<n1>\d+) (?:of|in) (?P<f1>[\w-]+\.py)\b"
    r"|\b(?P<f2>[\w-]+\.py)(?::| line )(?P<n2>\d+)\b"
)
#: a source line of code kept as evidence (a call with its arguments), not a frame or an error
_CODE = re.compile(r"\w\(.*\)")
_NOT_CODE = re.compile(r'File "|Error\b|Exception\b|Traceback|\[(?:INFO|ERROR|WARNING)\]')


def with_line_change(c: Ctx, text: str, got: Reply) -> Reply:
    """`got` with the step that changes the named code line, when every rank builds its own copy there
    and `got` does not say that step yet."""
    if not LINE_CHANGE_Q.search(text) or not answer_mechanism.per_rank(c):
        return got
    step = code_step(c)
    where = _where(c, text)
    told = said(got)
    if not step or not where or where.lower() in told:
        return got
    stated = step.lower().rstrip(".") in told
    sentence = tm.CODE_AT.format(where=where) if stated else tm.CODE_CHANGE.format(where=where, step=step)
    if got.intent == "help":
        line = answer_mechanism.cause_line(c)
        return reply("fix", sentence, [line] if line is not None else [])
    return replace(got, lead=f"{got.lead} {sentence}".strip(), material=[*got.material, sentence])


__all__ = ["LINE_CHANGE_Q", "code_step", "with_line_change"]
