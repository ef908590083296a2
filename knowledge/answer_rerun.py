"""What to change, or to capture, before this job runs again: said after a drain or restart verdict.

"Drain gpu-01 or just resubmit?", "bad GPU? restart as is?": these are asked to decide the next run,
and "not the node" alone sends the same job back to fail the same way. A cause the logs show (a copy
built on every rank, a 16384-token batch, an in-memory index) is answered with the entry's change that
removes it, next to this job's line that shows it; a cause they do not show (a native crash, a rank
that went silent) with what to set up so the next failure shows it, since this run left no stack.
"Anything left to kill before I relaunch?" for a job that never started a worker: nothing of its own,
and the command that shows what holds the port it could not bind. "Did we lose anything? safe to rerun?"
gets the work lost first (the last step reached against the last save), as "how much" would.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import (
    answer_code,
    answer_job,
    answer_lost,
    answer_mechanism,
    answer_more,
    answer_premise,
    answer_quote,
    answer_silent,
)
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: a fix step that only looks (finds, identifies, resumes afterwards): no change to the job by itself
_LOOK_ONLY = re.compile(r"^(?:resume|identify|find|check|confirm|look)\b", re.IGNORECASE)
#: a look that also says what to change ("find the code path … and make it identical")
_AND_CHANGE = re.compile(r"\band (?:make|change|set|fix|remove)\b", re.IGNORECASE)
#: a fix step that deals with how the data is held or loaded (for a rank that failed loading data)
_DATA_STEP = re.compile(r"\bdataset\b|\bnum_workers\b|\bdata ?loader\b", re.IGNORECASE)
#: the entry's first step is to capture what the logs lack (a native backtrace): the cause is unseen
_CAPTURE_FIRST = re.compile(r"^(?:capture|get|collect)\b.*\b(?:backtrace|stack|core)", re.IGNORECASE)
#: a debug step that records a stack (the Python or native one) at the next failure
_STACK_STEP = re.compile(r"py-spy|faulthandler|\bgdb\b|\bcore\b", re.IGNORECASE)


def change_step(c: Ctx) -> str:
    """The entry's fix step that changes this job: for a rank that failed loading data, the step about
    the data; else the first that changes something (not only a look, not the resume after it)."""
    steps = list(c.steps)
    ini = c.view.initiating
    if ini is not None and ini.phase == "data":
        data = [s for s in steps if _DATA_STEP.search(s)]
        if data:
            return data[0]
    changes = [s for s in steps if not _LOOK_ONLY.search(s) or _AND_CHANGE.search(s)]
    return changes[0] if changes else ""


def capture_steps(c: Ctx) -> list[str]:
    """The debug steps that record a stack at the next failure, when these logs hold none of the
    cause (a rank that went silent, a native crash); [] when the logs show the cause."""
    ini = c.view.initiating
    first = c.steps[0] if c.steps else ""
    if ini is None or not (answer_silent.silent(ini) or _CAPTURE_FIRST.search(first)):
        return []
    steps = list(c.debug.get(c.view.category) or []) + list(c.debug.get("default") or [])
    return [s for s in steps if _STACK_STEP.search(s)][:2]


def before_rerun(c: Ctx, m: Match, said: str = "") -> tuple[str, list[EvidenceLine]]:
    """One sentence: what to capture on the rerun (the cause unseen), else what to change in the job,
    with the line of this job that shows what the change acts on ("" when the entry has no such step
    or `said` already holds it)."""
    ini = c.view.initiating
    if ini is None or c.entry is None:
        return "", []
    if steps := capture_steps(c):
        how = tv.RERUN_HOW_SILENT if answer_silent.silent(ini) else tv.RERUN_HOW_CRASHED
        listed = "; ".join(s.rstrip(".") for s in steps)
        return tv.RERUN_CAPTURE.format(rank=ini.rank, how=how, steps=listed), []
    step = change_step(c)
    if not step or step in said:
        return "", []
    fact, lines = _fact(c, m, said)
    return tv.RERUN_CHANGE.format(fact=f"{fact} " if fact else "", step=step), lines


def _fact(c: Ctx, m: Match, said: str) -> tuple[str, list[EvidenceLine]]:
    """This job's line the change acts on: the code line that builds a copy per rank, the failing
    step's batch, or the data line the rank was on."""
    if (where := answer_mechanism.cause_sentence(c)) and answer_mechanism.per_rank(c):
        return ("", []) if where in said else (where, [])
    ini = c.view.initiating
    if ini is not None and ini.phase == "data":
        line = answer_more.doing_line(c, ini)
        doing = answer_more.doing(c, ini, said)
        return (doing, [line]) if doing and line is not None else ("", [])
    at_rank = replace(m, rank=ini.rank if ini is not None else None)
    if c.view.numbers.oom is not None and (got := answer_code.batch(c, at_rank)) is not None:
        return ("", []) if got.lead in said else (got.lead, list(got.lines))
    return "", []


#: "anything left to kill before i relaunch?", "any stray procs to clean up?"
LEFTOVER_Q = re.compile(
    r"\b(?:left|leftover|stray|orphan\w*|zombie\w*|still running|hanging around)\b[^?]{0,40}\b(?:kill|clean)"
    r"|\b(?:kill|clean up)\b[^?]{0,40}\b(?:left|leftover|stray|first|before)\b"
)


def nothing_left(c: Ctx, m: Match) -> str:
    """No worker started, so nothing of the job's is left to kill; the port's holder is another process."""
    key = c.view.key_line()
    said = tv.NOTHING_TO_KILL.format(what=t.category_words(c.view.category), ref=ref(key[0]) if key else "")
    held = answer_quote.port(c, replace(m, text="what is holding the port"))  # its holder's command
    if held is not None and held.code and "\n" not in held.code:
        node = c.view.nodes[0] if len(c.view.nodes) == 1 else "that node"
        said += " " + tv.PORT_HOLDER.format(check=held.code, node=node)
    return said


def leftover(c: Ctx, m: Match) -> Reply | None:
    """ "Anything left to kill before I relaunch?" for a job that never started a worker, whatever
    other intent its words lean to; None otherwise (the restart answer takes it)."""
    if not LEFTOVER_Q.search(m.text) or not answer_job.no_worker_started(c):
        return None
    return reply("restart", nothing_left(c, m), c.view.key_line())


#: "did we lose anything?", "i lose everything??", "did any training even run": what the failure cost,
#: asked as yes or no (the "how much" phrasings are `answer_lost.ASKS_LOST`'s)
LOSE_ANY = re.compile(
    r"\b(?:did|do|have|will|would) (?:we|i|you|they) (?:\w+ )?(?:lose|lost) "
    r"(?:anything|everything|any\w*|it all|all|much|work|progress|steps?)\b"
    r"|\b(?:we|i) (?:\w+ )?(?:lose|lost) (?:everything|anything|it all|all (?:of )?(?:it|the \w+))\b"
    r"|\bis (?:everything|it all|all|all (?:the )?(?:work|progress)) (?:\w+ )?(?:lost|gone)\b"
    r"|\bdid any (?:training|steps?|work) (?:\w+ )?(?:run|happen|get done)\b"
    # "how much compute went down the drain": the work lost, before the GPU-hours it cost
    r"|\b(?:compute|work|progress|training|steps?|gpu ?hours?)\b[^?]{0,15}"
    r"\b(?:went|go|gone|goes) down the drain\b"
)
#: the ask `answer_lost.lost` answers, for a yes/no phrasing of it
_HOW_MUCH_LOST = "how much did we lose"


def lost_any(c: Ctx, m: Match) -> Reply | None:
    """ "Did we lose anything? safe to rerun?": the last step reached against the last save (or that
    no worker ran), as "how much did we lose" is answered; the rerun's verdict follows as a later ask."""
    if not LOSE_ANY.search(m.text) or answer_lost.ASKS_LOST.search(m.text):
        return None
    if answer_job.no_worker_started(c):  # nothing ran; asked with a relaunch, the restart answer says so
        return None if m.intent == "restart" else reply("restart", nothing_lost(c), c.view.key_line())
    return answer_lost.lost(c, replace(m, text=_HOW_MUCH_LOST))


def nothing_lost(c: Ctx) -> str:
    """ "Did we lose any training?" when no worker started: no, and what failed at launch."""
    return tj.NOTHING_LOST.format(what=t.category_words(c.view.category))


#: a checkpoint the ask takes for granted ("restart from last ckpt?", "resume from the step 150 checkpoint")
_CKPT_NAMED = re.compile(
    r"\b(?:from|off|at|to) (?:the |our |that |a )?(?:last |latest |step \d+ |previous )?(?:ckpt|checkpoint)\b"
    r"|\b(?:ckpt|checkpoint)s? (?:from|at) step \d+\b|\bwhich (?:ckpt|checkpoint)\b|\bwhich one\b"
)
#: "where do i restart from?", "resume from where": the last save logged (or none) against the last step
_WHERE_FROM = re.compile(
    r"\bwhere (?:do|should|can|would|will) (?:i|we) (?:re-?start|resume|pick (?:it |things )?(?:back )?up)\b"
    r"|\b(?:re-?start|resume|pick (?:it )?up) (?:it )?from where\b"
)
#: "won't it just nan at the same step again?": the step it failed at decides where a rerun meets it
_SAME_STEP = re.compile(r"\bsame (?:step|point|place|spot|iteration|iter|batch|sample)\b")


def resume_premise(c: Ctx, m: Match, base: Reply | None) -> Reply | None:
    """The restart answer led by whether the checkpoint the ask names was saved (the last save logged,
    or none, against the last step reached); asked whether it fails "at the same step again", the
    step it failed at. Why: "resume from the step 150 checkpoint?" takes a save for granted that the
    logs may not show, and the yes/no on resuming means nothing until that is settled."""
    if base is None:
        return None
    if _SAME_STEP.search(m.text) and base.lead.startswith("Not as is"):
        said, shown = answer_premise.last_step_fact(c)
        if said:
            lead = f"{base.lead} {tv.SAME_STEP.format(step=said)}"
            base = replace(base, lead=lead, lines=[*base.lines, *(x for x in shown if x not in base.lines)])
    named = _CKPT_NAMED.search(m.text) or _WHERE_FROM.search(m.text)
    if not named or answer_lost.ASKS_SAVED.search(m.text):
        return base  # a save asked about outright is added by the answerer, after the verdict
    kept = answer_lost.lost(c, replace(m, text=_HOW_MUCH_LOST))
    if kept is None or kept.lead.lower() in base.lead.lower():
        return base
    lines = [*kept.lines, *(x for x in base.lines if x not in kept.lines)]
    return replace(base, lead=f"{kept.lead} {base.lead}", lines=lines, material=[kept.lead, *base.material])


def with_rerun(c: Ctx, m: Match, base: Reply) -> Reply:
    """The restart answer with what to change (or capture) before the rerun, fitted to this job; the
    action's "change first" step is then not said twice."""
    said, shown = before_rerun(c, m, base.lead)
    if not said:
        return base
    step = change_step(c)
    action = base.action.replace(t.change_first(step), "").strip() if step and step in said else base.action
    lines = [*base.lines, *(x for x in shown if x not in base.lines)]
    return reply("restart", f"{base.lead} {said}", lines, bullets=base.bullets, action=action, code=base.code)


#: "what else do i set before resubmitting?", "anything else to add for the next run?"
ELSE_Q = re.compile(
    r"\b(?:what|anything) (?:else|more)\b[^?]{0,40}?"
    r"\b(?:set|add|enable|export|turn on|put|configure|switch on)\b"
    r"|\b(?:besides|on top of|along with|apart from)\b[^?]{0,40}?\bwhat (?:else|more)?\b"
)
_NEXT_RUN = re.compile(
    r"\bre-?(?:submit|run|launch|queue|start)\w*|\bnext (?:run|time|attempt|try)\b|\bbefore (?:i|we)\b"
)
#: the knob or tool a debug step names ("PYTHONFAULTHANDLER=1", "ulimit -c", "py-spy")
_KNOB = re.compile(r"\b[A-Z][A-Z0-9_]{3,}\b|py-spy|\bulimit\b|\bgdb\b|set_detect_anomaly|\bsbatch\b")


def what_else(c: Ctx, m: Match) -> Reply | None:
    """ "Adding PYTHONFAULTHANDLER=1; what else do I set before resubmitting?": the job's debug steps
    the reader has not named (the category's first, then the general ones), and what fixes it when
    the logs show the cause. Why: the restart verdict repeated the step the reader already had."""
    ini = c.view.initiating
    if ini is None or not ELSE_Q.search(m.text) or not _NEXT_RUN.search(m.text):
        return None
    said = m.text.lower()
    steps = list(c.debug.get(c.view.category) or []) + list(c.debug.get("default") or [])
    named = [s for s in steps if any(k.lower() in said for k in _KNOB.findall(s) if k.lower() != "sbatch")]
    rest = [s.rstrip(".") for s in steps if s not in named][:3]
    if not rest:
        return None
    what = t.category_words(c.view.category)
    lead = tv.RERUN_ELSE.format(rank=ini.rank, what=what, steps="; ".join(rest))
    if named:
        keep = ", ".join(f"`{k}`" for k in dict.fromkeys(s.split(":")[0].strip() for s in named))
        lead = tv.RERUN_ELSE_NAMED.format(named=keep) + lead
    if not capture_steps(c) and (step := change_step(c)):
        lead += tv.RERUN_ELSE_CHANGE.format(step=step)
    return reply("restart", lead, c.view.key_line())


__all__ = [
    "ELSE_Q",
    "LEFTOVER_Q",
    "before_rerun",
    "capture_steps",
    "change_step",
    "leftover",
    "lost_any",
    "nothing_left",
    "nothing_lost",
    "resume_premise",
    "what_else",
    "with_rerun",
]
