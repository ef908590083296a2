"""How much work a failure cost ("how much do we lose", "how many steps are gone").

Why: the answer is two facts side by side, the last step any rank logged and the last checkpoint save
the logs show; with no save line at all, the honest answer is that nothing logged marks a point to
resume from, not the restart advice.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import followups_job as tj
from denpex.core.texts import thread as t
from knowledge.answer_job import no_worker_started
from knowledge.answer_more import step_of_total
from knowledge.answer_quote import saving_line, saving_lines
from knowledge.answer_types import Ctx, Reply, at_rank, duration, ref, reply
from knowledge.answer_where import strip_prefix
from knowledge.intents import Match
from knowledge.jobfacts_answers import seconds_between
from knowledge.lines import parse_timestamp

#: asks what the failure cost in work
ASKS_LOST = re.compile(
    r"\bhow (?:much|many|far)(?: \w+){0,2}? (?:do|did|will|would|have|are|is|was) (?:we|i|you|they|it)?"
    r" ?(?:lose|lost|gone|wasted|go back|back)\b|\bhow much (?:\w+ )?(?:is|was|got|gets) (?:lost|wasted)\b"
    # "how much compute lost?": the verb left out
    r"|\bhow much (?:compute|work|progress|training|gpu ?(?:time|hours?))(?: \w+)?"
    r" (?:lost|wasted|burn[te]d?)\b"
    r"|\b(?:lost|wasted) (?:work|progress|steps|compute|gpu ?hours)\b|\bwhat (?:do|did) (?:we|i) lose\b"
    r"|\bwhat (?:(?:have|did) )?(?:we|i) (?:lost|wasted)\b|\bwhat(?: was| got|'s| is) (?:lost|wasted)\b"
    r"|\b(?:did|was|has) anything (?:actually |even |really )?(?:train\w*|get trained|(?:get |been )?lost)\b"
    # "what step do I restart from?", "did it save anything?": the last save logged answers it too
    r"|\b(?:what|which) step (?:do|should|can|would|will) (?:i|we)"
    r" (?:re-?start|resume|start again|go back to)\b"
    r"|\b(?:re-?start|resume) (?:from )?(?:what|which) step\b"
    r"|\bdid (?:it|we|the (?:job|run)|they) (?:\w+ )?(?:save|checkpoint) (?:anything|any\w*|at all)\b"
    # "was there an earlier checkpoint?", "do we have an older one to fall back to": the last save logged
    r"|\b(?:is|was|were) there (?:an? |any )?(?:earlier|older|previous|prior|complete\w*|good) "
    r"(?:checkpoint|ckpt|save)s?\b"
    r"|\b(?:do|did|have) (?:we|i) (?:have|got) (?:an? |any )?"
    r"(?:earlier|older|previous|prior|complete\w*|good) "
    r"(?:checkpoint|ckpt|save)s?\b"
)
#: "is there a ckpt", "any checkpoint i can resume from?": whether a save exists is the last save logged
ASKS_SAVED = re.compile(
    r"\b(?:is|was) there (?:an? |any )?(?:checkpoint|ckpt|save)s?\b(?! (?:of|for) (?:rank|step) \d)"
    r"|\b(?:any|a) (?:checkpoint|ckpt|save)s? (?:\w+ ){0,3}?(?:to |can |could )(?:resume|restart|go back)\b"
    # "any ckpt saved?", "any ckpt on disk we can pick up from", "did anything get checkpointed"
    r"|\bany (?:checkpoint|ckpt)s? (?:(?:get |got |been |was |were )?(?:saved|written|on disk|left|at all)"
    r"|(?:\w+ ){0,4}?pick (?:it )?up)\b"
    r"|\b(?:did )?(?:anything|any\w*) (?:get |got |been |was )?(?:checkpointed|saved to disk)\b"
    # "did it save a checkpoint before it got killed?", "was a ckpt written before the kill?"
    r"|\b(?:did|has|had) (?:it|we|the (?:job|run|script|trainer)|they) (?:\w+ )?(?:save|write|dump)"
    r" (?:a |any |an? \w+ )?(?:checkpoint|ckpt)s?\b"
    r"|\b(?:was|were|did) (?:a |any |the )?(?:checkpoint|ckpt)s? (?:ever |even )?(?:get |got |been )?"
    r"(?:saved|written)\b(?! (?:to|at|in) )"
)
#: resuming named with it ("is there a ckpt i can resume from?"): the restart verdict leads, then the save
_RESUME_VERDICT = re.compile(r"\b(?:resume|resuming|restart|rerun|relaunch)\b")
#: the ask "how much do we lose" stands for when the save fact is added to another answer
HOW_MUCH_LOST = "how much do we lose"


#: "is checkpoint-6.pt usable?": asked of the save a failure cut short, the same two facts answer it
CKPT_USABLE = re.compile(
    r"\b(?:is|was|are) (?:the |that |our |this )?"
    r"(?:[\w.-]*\.(?:pt|pth|bin|safetensors)|ckpt|checkpoint[\w.-]*)"
    r" (?:\w+ )?(?:usable|ok|okay|good|safe|complete|intact|valid|any good|loadable|written|saved)\b"
    # "did checkpoint-6 get written?", "did the ckpt finish saving": the same save, asked if it landed
    r"|\bdid (?:the |that |our |this )?(?:[\w.-]*\.(?:pt|pth|bin|safetensors)|ckpt|checkpoint[\w.-]*)"
    r" (?:\w+ )?(?:get |got )?(?:written|saved|finish\w*|complete\w*|land\w*|make it)\b"
)


def lost(c: Ctx, m: Match) -> Reply | None:
    """The last step reached and the last save logged (or that none was), then when the first rank
    failed after that step: what a restart re-runs, and the wall time since the last step's line."""
    got = _lost(c, m)
    if got is None or got.intent != "restart":
        return got
    ini = c.view.initiating
    if ini is None or not ini.first_time or ini.role != "initiating":
        return got
    reached = [r for r in c.view.ranks.values() if r.last_step_line is not None]
    top = max(reached, key=lambda r: (r.last_step or 0, -r.rank)) if reached else None
    stamp = parse_timestamp(top.last_step_line.text) if top and top.last_step_line else None
    gap = seconds_between(stamp.iso(), ini.first_time) if stamp and not stamp.relative else None
    after = tff.LOST_AFTER_STEP.format(gap=duration(gap)) if gap is not None and gap > 0 else ""
    sentence = tff.LOST_FAILED_AT.format(rank=ini.rank, at=at_rank(ini), after=after)
    if ini.phase == "checkpoint_save" and CKPT_USABLE.search(m.text):  # "did checkpoint-6 get written?"
        sentence = f"{tff.LOST_NOT_FINISHED.format(rank=ini.rank)} {sentence}"
    return replace(got, lead=f"{got.lead} {sentence}", material=[*got.material, sentence])


def _lost(c: Ctx, m: Match) -> Reply | None:
    ini = c.view.initiating
    saving = ini is not None and ini.phase == "checkpoint_save"
    cut = saving and saving_line(c) is not None
    cut_line = c.view.phase_line if saving else None
    saved_asked = ASKS_SAVED.search(m.text) and not _RESUME_VERDICT.search(m.text)
    if not ASKS_LOST.search(m.text) and not saved_asked and not (cut and CKPT_USABLE.search(m.text)):
        return None
    if no_worker_started(c):  # a launcher failure: nothing ran, so nothing was lost
        line = c.view.evidence[0] if c.view.evidence else None
        what = tj.NO_WORKER.format(
            what=t.category_words(c.view.category), ref=ref(line) if line else "its log"
        )
        quoted = tj.LAUNCHER_SAID.format(text=strip_prefix(line.text)[:220]) if line is not None else ""
        return reply("restart", f"{what} {quoted}".strip(), [line] if line is not None else [])
    reached = [r for r in c.view.ranks.values() if r.last_step is not None]
    saved = saving_line(c)
    if not reached:
        tail = (
            tff.LOST_NO_STEP_SAVED.format(name=saved[0], save_ref=ref(saved[1]))
            if saved
            else tff.LOST_NO_STEP_NONE
        )
        return reply("restart", tff.LOST_NO_STEP.format(saved=tail), [saved[1]] if saved else [])
    top = max(reached, key=lambda r: (r.last_step or 0, -r.rank))
    line = top.last_step_line
    where = ref(line) if line is not None else "its log"
    total = step_of_total(c, top)
    if saved is None and cut_line is not None:  # "saving checkpoint at step 50": a save, no file named
        text = strip_prefix(cut_line.text)[:160]
        unnamed = tff.LOST_CUT_UNNAMED
        if _only_save(c, cut_line):  # "was there an earlier checkpoint?": none logged, said so
            unnamed = tff.LOST_CUT_UNNAMED_FIRST if _from_start(c, cut_line) else tff.LOST_CUT_UNNAMED_ONLY
        lead = unnamed.format(
            save_ref=ref(cut_line), text=text, step=top.last_step, total=total, rank=top.rank, ref=where
        )
        return reply("restart", lead, [ln for ln in (cut_line, line) if ln is not None])
    if saved is None:
        lead = tff.LOST_NO_SAVE.format(step=top.last_step, total=total, rank=top.rank, ref=where)
        return reply("restart", lead, [line] if line is not None else [])
    ini = c.view.initiating
    text = tff.LOST_CUT if ini is not None and ini.phase == "checkpoint_save" else tff.LOST_SAVED
    if text == tff.LOST_CUT and len({name for name, _ in saving_lines(c)}) == 1:  # the only save logged
        text = tff.LOST_CUT_FIRST if _from_start(c, saved[1]) else tff.LOST_CUT_ONLY
    lead = text.format(
        name=saved[0], save_ref=ref(saved[1]), step=top.last_step, total=total, rank=top.rank, ref=where
    )
    return reply("restart", lead, [ln for ln in (saved[1], line) if ln is not None])


def saved_fact(c: Ctx, m: Match) -> Reply | None:
    """ "can I just resume? is there a checkpoint": the restart verdict answers the first ask; whether a
    save exists (the last one logged, or none) is this, added after it."""
    if not ASKS_SAVED.search(m.text) or not _RESUME_VERDICT.search(m.text):
        return None
    return lost(c, replace(m, text=HOW_MUCH_LOST))


#: a line that logs a checkpoint save ("saving checkpoint at step 50", "Saved model to …")
_SAVE_LOGGED = re.compile(r"\bsav(?:e|ed|ing)\b.{0,40}\b(?:checkpoint|ckpt|model|state)", re.IGNORECASE)


def _only_save(c: Ctx, cut: EvidenceLine) -> bool:
    """Whether every kept save line is the save the failure cut short (each rank's copy of it): no
    earlier save is in the lines Denpex kept."""
    said = strip_prefix(cut.text)
    return all(
        strip_prefix(ln.text) == said for tl in c.d.tails for ln in tl.lines if _SAVE_LOGGED.search(ln.text)
    )


def _from_start(c: Ctx, save: EvidenceLine) -> bool:
    """Whether the kept lines of the save line's log begin at its first line: then no earlier save was
    cut off from what Denpex read, and "no earlier save" is a fact, not a gap in the tail."""
    return any(ln.source == save.source and ln.line == 1 for tl in c.d.tails for ln in tl.lines)
