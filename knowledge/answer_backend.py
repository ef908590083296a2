"""Whether NCCL, and its settings, bear on a job whose collectives ran on another backend.

Why: "is this an NCCL problem at all?" and "does TORCH_NCCL_DESYNC_DEBUG even do anything here?" are
asked when the category says `nccl_timeout` but the lines say gloo. The honest answer is no: NCCL's
settings never reach a gloo process group, and the category only names a collective timeout. What the
failure is instead comes next (a desync, from the ranks' calls), so the reader is not left with a no.
A job that did run on NCCL falls through to the usual answers.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_triage as tt
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import answer_checks, answer_code, answer_job, answer_stack
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: NCCL named, or one of its settings
_NCCL = re.compile(r"\b(?:torch_)?nccl\w*")
#: asked whether it applies ("at all", "even involved", "does that do anything", "relevant here")
_APPLIES = re.compile(
    r"\bat all\b"
    r"|\b(?:even|actually|really) (?:involved|used|using|in play|relevant|matter\w*|apply|applies)\b"
    r"|\b(?:do|does|did|would|will) (?:that|this|it|they|those|these|either)(?: \w+){0,2}"
    r" (?:do|apply|matter|help|affect|change)\w* (?:anything|something|here|for)\b"
    r"|\b(?:relevant|apply|applies|matter|matters) (?:here|to this|for this)\b"
    # "would TORCH_NCCL_ASYNC_ERROR_HANDLING have changed anything here?": the setting as the subject
    r"|\b(?:would|will|does|did|do|could|can) (?:setting )?(?:torch_)?nccl_[\w=.]+(?: \w+){0,2}"
    r" (?:do|apply|matter|help|affect|change|fix|prevent|avoid|save|catch)\w* (?:with |on |for )?"
    r"(?:anything|something|here|this|it)\b"
    r"|\bis (?:nccl|it nccl|this nccl) (?:even|actually|really)\b"
    # "is there an nccl problem on top of the RAM thing?": a second fault read into the rank table
    r"|\bnccl (?:problem|issue|error|fault|bug|failure)s? (?:on top|too|as well|also|in addition)\b"
    r"|\b(?:also|another|second|separate|extra) (?:an? )?nccl (?:problem|issue|error|fault|bug|failure)\b"
)

#: asked what to use in their place ("what should i set instead", "to get a real mismatch error")
_INSTEAD = re.compile(
    r"\binstead\b|\bwhat (?:should|do|can|would) (?:i|we) (?:set|use|turn on|enable)\b|\bmismatch\b"
)


#: the GPU side named ("is GPU/NCCL involved at all", "cuda related?")
_GPU_SIDE = re.compile(r"\b(?:gpus?|cuda|nccl\w*|drivers?|nvidia)\b")


def nothing_ran(c: Ctx, m: Match) -> Reply | None:
    """ "Is GPU/NCCL involved at all?" for a job whose launcher failed before any worker started: no,
    nothing of the job ran on a GPU; what failed is the launcher's own step, on its line."""
    if not _GPU_SIDE.search(m.text) or not _APPLIES.search(m.text) or not answer_job.no_worker_started(c):
        return None
    key = c.view.key_line()
    what = t.category_words(c.view.category)
    lead = tv.NO_GPU_PART.format(what=what, ref=ref(key[0]) if key else "its log")
    return reply("backend", lead, key)


def nccl_applies(c: Ctx, m: Match) -> Reply | None:
    """ "Is this NCCL at all? what would you call it?" on a gloo job: no, then what the failure is."""
    if (none := nothing_ran(c, m)) is not None:
        return none
    if not _NCCL.search(m.text) or not _APPLIES.search(m.text):
        return None
    found = answer_checks.backend_of(c)
    if found is None or found[0] != "gloo":
        return None
    line = found[1]
    lead = tv.NOT_NCCL.format(ref=ref(line))
    if "nccl" in (c.view.category or ""):  # the category's name is what made it look like NCCL
        lead = f"{lead} {tv.NOT_NCCL_CATEGORY.format(category=c.view.category)}"
    ini = c.view.initiating
    if note := answer_code.desync_note(c):
        lead = f"{lead} {tv.NOT_NCCL_DESYNC.format(note=note)}"
    elif ini is not None:
        lead = f"{lead} {tv.NOT_NCCL_WHAT.format(what=t.category_words(c.view.category), rank=ini.rank)}"
    if _INSTEAD.search(m.text) and "TORCH_DISTRIBUTED_DEBUG" not in lead:  # gloo's own mismatch check
        lead = f"{lead} {tt.GLOO_INSTEAD}"
    if answer_stack.STACK_Q.search(m.text) and ini is not None:  # "what do i run to get its stack?"
        lead = f"{lead} {answer_stack.stack_sentence(c, ini)}"
    return reply("backend", lead, [line, *(x for x in c.view.key_line() if x != line)])


__all__ = ["nccl_applies", "nothing_ran"]
