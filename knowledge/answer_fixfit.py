"""The fix fitted to what the question asks of this job: the grep for other places with the same call,
the micro-batch step that keeps the global batch, whether the logs show the fp16 overflow that bf16
would cure.

"One-line fix + how do I grep the repo for the same bug?", "less memory per GPU but the same global
batch?", "just flip to bf16?": the entry's fix holds the general steps; these are the facts of this
job that pick among them (the API its traceback calls, the loss-scale lines it has or lacks).
"""

from __future__ import annotations

import re

from denpex.core.texts import followups as tf
from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import answer_code, answer_evidence, answer_mechanism, answer_rerun, answer_where
from knowledge.answer_quote import pool
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.glossary import find
from knowledge.intents import Match

#: "how do I grep for other places with the same bug?"
GREP_Q = re.compile(
    r"\bgrep\b|\bother (?:places|spots|files|call ?sites|uses|usages)\b|\belsewhere\b|\banywhere else\b"
    r"|\bsame (?:bug|pattern|call|mistake|config)\b|\bfind (?:all|every)\b"
)
#: "less memory per GPU but the same global batch", "relaunch with a smaller batch"
BATCH_Q = re.compile(
    r"\b(?:global|effective|total) batch\b|\bmicro[- _]?batch\w*|\bbatch[ _]size\b|\brelaunch\w*\b"
    r"|\bless (?:mem|memory|vram)\b|\bgrad(?:ient)?[ _]accum\w*"
)
#: "what number do I change?", "which knob do I turn down?": one value of this job's, from its lines
NUMBER_Q = re.compile(
    r"\b(?:what|which) (?:number|value|setting|knob|param\w*|hyperparam\w*|flag)s? (?:do|should|can|to|would)"
    r"(?: (?:i|we))? ?(?:change|lower|cut|reduce|tune|turn|touch|tweak)\b"
    r"|\bwhat (?:do|should) (?:i|we) (?:lower|cut|reduce|turn down|shrink)\b"
    # "what knob in the ds config / launcher args do i actually change?": the knob, its place between
    r"|\b(?:what|which) (?:number|value|setting|knob|param\w*|flag)s?\b[^?]{0,40}?\b(?:do|should|can|would)"
    r" (?:i|we)(?: actually| really| just)? (?:change|lower|cut|reduce|tune|turn|touch|tweak)\b"
    r"|\bworked (?:fine )?for \d+ steps\b"
)
_SHAPE = re.compile(r"\bbatch of (\d+) x (\d+) tokens\b")
_MAX_LEN = re.compile(r"\b(max_seq_len(?:gth)?|max_length|seq_len(?:gth)?)\s*[=:]\s*(\d+)")
_ASKED_BATCH = re.compile(r"\bbatch(?:[ _]size)?(?: of| =|=)? ?(\d+)\b")
#: "fp16 thing? just flip to bf16?"
FP16_Q = re.compile(r"\bfp16\b|\bbf16\b|\bhalf[- ]precision\b|\bmixed[- ]precision\b|\bamp\b|\bloss scal\w*")
_LOSS_SCALE = re.compile(
    r"Gradient overflow|loss scal(?:e|er|ing)|Attempted loss scale|OVERFLOW", re.IGNORECASE
)
_ACCUMULATION = re.compile(r"accumulat|micro-?batch", re.IGNORECASE)
_GREP_PART = re.compile(r"(grep -r[^&;|]*(?:\|\s*grep[^&;|]*)?)")


def grep_command(c: Ctx) -> str:
    """The command that finds the same call elsewhere in the code: the entry's own grep, else a grep
    for the API the job's code line calls."""
    verify = c.d.verify or (c.entry.verify if c.entry else "")
    if (found := _GREP_PART.search(verify)) is not None:
        return found.group(1).strip()
    line = answer_mechanism.cause_line(c)
    term = find(answer_mechanism.code_of(line), c.glossary) if line is not None else None
    return f"grep -rn '{term.name}' ." if term is not None else ""


def batch_step(c: Ctx) -> str:
    """The entry's fix step that cuts per-GPU memory and keeps the global batch."""
    steps = c.steps
    return next((s for s in steps if _ACCUMULATION.search(s)), "")


def number_fact(c: Ctx, m: Match) -> str:
    """The batch shape the failing step logged, and which of its numbers to cut: with the batch size
    the asker says fit before, that is the sequence length."""
    got = answer_code.batch(c, m) if NUMBER_Q.search(m.text) else None
    if got is None or not got.lines:
        return ""
    line = got.lines[0]
    shape, longest = _SHAPE.search(line.text), _MAX_LEN.search(line.text)
    if shape is None:
        return got.lead
    size, length = shape.groups()
    name = longest.group(1) if longest is not None else "the maximum sequence length"
    same = (asked := _ASKED_BATCH.search(m.text)) is not None and asked.group(1) == size
    text = tj.NUMBER_LENGTH if same else tj.NUMBER_SHAPE
    return text.format(size=size, length=length, name=name, ref=f"{line.source}:{line.line}")


def fp16_fact(c: Ctx) -> str:
    """Whether this job's lines show fp16 loss-scale overflow (bf16 would help) or not (other steps first)."""
    if c.view.category != "nan_divergence":
        return ""
    seen = next((ln for ln in pool(c) if _LOSS_SCALE.search(ln.text)), None)
    if seen is None:
        return tj.NO_FP16_LINES
    return tj.FP16_LINES.format(ref=f"{seen.source}:{seen.line}")


#: "is it fp16 overflow?", "was this a loss-scale overflow": a guess at fp16 overflow, to be checked
OVERFLOW_Q = re.compile(
    r"\b(?:is|was|could|did|might) (?:it|this|that)\b[^?]{0,30}?\b"
    r"(?:fp16|half[- ]precision|loss[- ]scal\w*|overflow)"
    r"|\b(?:fp16|half[- ]precision|loss[- ]scal\w*) overflow\b"
)


def overflow_check(c: Ctx, m: Match) -> Reply | None:
    """ "Is it fp16 overflow?": whether any kept line shows fp16 loss scaling, said with this job's
    failure. Why: asked as a guess it matched no intent, and the help listed examples instead."""
    if not OVERFLOW_Q.search(m.text):
        return None
    fact = fp16_fact(c)
    if not fact:
        seen = next((ln for ln in pool(c) if _LOSS_SCALE.search(ln.text)), None)
        what = t.category_words(c.view.category)
        fact = (
            tj.FP16_SEEN_OTHER.format(ref=f"{seen.source}:{seen.line}", what=what)
            if seen is not None
            else tj.NO_FP16_OTHER.format(what=what)
        )
    return reply("alternatives", fact, c.view.key_line())


#: "the diagnosis says X: does that fit this run?", "does that advice apply here?"
FIT_Q = re.compile(
    r"\b(?:does|do|would|will) (?:that|this|it|the (?:advice|fix|suggestion|diagnosis))\b[^?]{0,30}?"
    r"\b(?:fit|apply|make sense|hold|match)\b[^?]{0,20}\b(?:run|job|here|case)\b"
    # the advice's premise doubted ("where is the 'rise' your fix talks about?"): held to the facts too
    r"|\bwhere(?:s|\x27s| is| was| are)? (?:the|that|this|these|any) \W?[\w-]+\W? (?:your|the) "
    r"(?:fix|advice|diagnosis|suggestion|report|verdict)\b"
    r"|\b(?:your|the) (?:fix|advice|suggestion|diagnosis)(?: \w+){0,3} "
    r"(?:talks? about|mentions?|assumes?|claims?|is talking about)\b"
)
#: a fix step that hunts the one batch (or op) that made the NaN
_BATCH_HUNT = re.compile(r"\bbatch\b|\bsample indices\b|detect_anomaly", re.IGNORECASE)


def advice_fit(c: Ctx, m: Match) -> Reply | None:
    """ "The diagnosis says resume from before the loss rose: does that fit this run?": the advice held
    against this job's facts. A NaN with no rise before it does not fit the learning-rate advice: the
    steps that find the batch come instead. Why: the entry's first step assumes its usual story, and
    the asker wants to know whether this run is that story before acting on it."""
    if not FIT_Q.search(m.text) or c.entry is None or (ini := c.view.initiating) is None:
        return None
    verify = c.d.verify or c.entry.verify
    if c.view.category == "nan_divergence":
        trend = answer_evidence.loss(c, m)
        if tf.LOSS_SPIKE.split("{", 1)[0] not in trend.lead:  # the loss did not climb before the NaN
            hunt = " ".join(s for s in c.steps if _BATCH_HUNT.search(s))
            lead = tv.FIT_NO_RISE.format(trend=trend.lead, rank=ini.rank, steps=hunt)
            step = max((r.last_step for r in c.view.ranks.values() if r.last_step is not None), default=None)
            check = tv.FIT_VERIFY.format(step=step) if step is not None else ""
            return reply("fix", f"{lead} {check}".strip(), trend.lines, code=verify)
    said, shown = answer_rerun.before_rerun(c, m)
    return reply("fix", tv.FIT_JOB.format(said=said), shown, code=verify) if said else None


def fitted(c: Ctx, m: Match) -> tuple[str, str]:
    """A sentence and a command fitted to what the fix question asks ("" each when it asks nothing
    these facts answer)."""
    said: list[str] = []
    code = ""
    if answer_mechanism.per_rank(c) and (where := answer_mechanism.in_code(c)):
        said.append(where)
    if GREP_Q.search(m.text) and (grep := grep_command(c)):
        said.append(tj.GREP_OTHERS)
        code = grep
    if BATCH_Q.search(m.text) and (step := batch_step(c)):
        said.append(step)
    if (batch := answer_where.batch_said(c, m, " ".join(said))[0]) and batch not in said:
        said.append(batch)  # "what did the batch look like on the step that died": its batch line
    if number := number_fact(c, m):  # "what number do I change?": the step's batch shape, first
        said.insert(0, number)
    if FP16_Q.search(m.text) and (fact := fp16_fact(c)):
        said.append(fact)
    return " ".join(said), code


__all__ = [
    "BATCH_Q",
    "FIT_Q",
    "FP16_Q",
    "GREP_Q",
    "NUMBER_Q",
    "advice_fit",
    "batch_step",
    "fitted",
    "fp16_fact",
    "grep_command",
    "number_fact",
    "overflow_check",
]
