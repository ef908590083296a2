"""Checks of what people put forward, and the job's run time, answered from this job's facts.

"it was hang maybe? the last log is step 150 at 03:10 and the kill is 03:11:40", "cant we just set
expandable_segments and rerun", "how long had it been running": a guess with no question word, a fix
proposed as a question, a figure a manager wants. Each gets yes or no (or the figure) first, with the
fact that decides it, then the entry's real fix where one was proposed. Why: an on-call engineer tests
the explanation they already have; "ask it on its own" or the FAQ's text answers none of these.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_job as tj
from denpex.core.texts import thread as t
from knowledge import answer_code, answer_job, answer_launcher, answer_more, answer_silent
from knowledge.answer_types import Ctx, Reply, at, gib, ref, reply, when
from knowledge.glossary import find
from knowledge.intents import Match
from knowledge.jobfacts_answers import seconds_between
from knowledge.lines import parse_timestamp
from knowledge.wording import phase_words

#: "how long had it been running", "how long was the job up before it died", "uptime?"
RUNNING_Q = re.compile(
    r"\bhow long (?:had|has|was|did|is|were)? ?(?:it|the job|this job|this|the run|training|the training"
    r"|we|they)(?: been)? (?:running|run|up|going|alive|training|train)\b(?! (?:again|for how long)\b)"
    r"|\bhow long into (?:the )?(?:run|training|job)\b|\bup ?time\b"
)
#: a hang put forward ("it was hang maybe?", "did it just hang", "i think it hung")
_HANG = re.compile(r"\b(?:hang|hangs|hung|hanging|stall|stalled|stuck|froze|frozen|deadlock\w*)\b")
_GUESSED = re.compile(
    r"\bmaybe\b|\bprobably\b|\bperhaps\b|\bi (?:think|guess|bet|suspect|reckon)\b|\bright\b|\bno\b"
    r"|^(?:so |and |but |ok )?(?:any|was there|were there|is there)\b"  # "any stall before the limit"
    # "isn't this a hang rather than a time limit?": a hang put forward against the verdict
    r"|^(?:so |and |but |ok )?(?:isn\x27?t|wasn\x27?t|isnt|wasnt) (?:it|this|that)\b|\brather than\b"
    r"|^(?:so |and |but |ok )?(?:was|is|did|could|might|it was|its|it is|it) "
    r"(?:it |this |that |the job |training )?"
)
#: where one sentence of a message ends ("last one at 03:10:00, cancel at 03:11:40. was it hung?")
_SENTENCE = re.compile(r"(?<=[a-z0-9)])[.!]\s+(?=[a-z])")
#: a hang asked about, not proposed: how long, why, where, or "crash or hang"
_NOT_A_GUESS = re.compile(
    r"^(?:how|why|where|which|when|what)\b|\bhow long\b|\b(?:crash|crashed|die|died)\b.{0,12}\bor\b"
    r"|\bor\b.{0,12}\b(?:crash|crashed|die|died)\b"
    # "could you list the losses before the hang": a request, and the hang taken as given, not put forward
    r"|^(?:could|can|would|will) you (?:please )?(?:list|give|show|paste|quote|print)\b"
    r"|\b(?:before|after|since|until|during|leading up to|up to)"
    r" (?:the |that |this )?(?:hang|stall|freeze|deadlock)\b"
)
#: a setting proposed as the fix ("cant we just set expandable_segments and rerun", "would X help")
_TRY = re.compile(
    r"\b(?:set|setting|use|using|try|trying|enable|enabling|add|adding|turn on|flip|export|exporting|with)\b"
    r"|\b(?:help|fix|solve|save|enough|wishful)\b|\bget (?:us |it |me )?(?:past|through|over)\b"
)
#: categories whose first failure is itself a wait that timed out: a hang, in a collective
_STUCK = frozenset({"hang_no_error", "nccl_timeout"})
#: a connection that failed: neither a hang nor an error of the rank's own code
_NOT_ERRORS = frozenset({"nccl_comm_error", "rendezvous_failure"})
_ALLOCATOR = frozenset({"expandable_segments", "max_split_size_mb", "PYTORCH_CUDA_ALLOC_CONF"})


def running(c: Ctx, m: Match) -> Reply | None:
    """How long the job had been running when it failed (first log line to the first failure), and
    to its last line; a job no rank started: its span from the scheduler's story."""
    if not RUNNING_Q.search(m.text):
        return None
    v, ini = c.view, c.view.initiating
    if ini is None or not ini.first_time or not v.start:
        return answer_job.story(c, m, "when")
    up = seconds_between(v.start, ini.first_time)
    if up is None or up < 0:
        return None
    lead = tj.RUNNING_FOR.format(
        length=answer_job.length(up), rank=ini.rank, start=when(v.start), at=when(ini.first_time)
    )
    total = seconds_between(v.start, v.end)
    if v.end and total is not None and total > up + 1:
        lead += " " + tj.RAN_UNTIL.format(end=when(v.end), length=answer_job.length(total))
    if step := answer_more.last_step(c, ini):
        lead += " " + step
    return reply("when", lead, v.key_line())


def hang_guess(c: Ctx, m: Match) -> Reply | None:
    """ "It was a hang maybe?": a job the scheduler ended, from its last step's time against the kill;
    a job a rank's own error started, not a hang (the others' wait was collateral). None when it did
    hang (a rank that went silent): the usual answers say that."""
    text = m.text.rsplit(": ", 1)[-1]
    # "steps every 4s, last at 03:10. was it hung?": the sentence that asks, not the context before it
    asked = [x for x in _SENTENCE.split(text) if _HANG.search(x)]
    text = asked[-1] if asked else text
    if m.ranks or not _HANG.search(text) or not _GUESSED.search(text) or _NOT_A_GUESS.search(text):
        return None
    ini = c.view.initiating
    if ini is None:
        return _progress_check(c)
    if answer_silent.silent(ini):  # no error of its own: it went quiet, stuck or dead
        lead = f"{tj.HANG_SILENT.format(rank=ini.rank)} {answer_silent.quiet(c, ini)}"
        return reply("alternatives", f"{lead} {answer_silent.next_steps(c, ini)}", c.view.key_line())
    if c.view.category in _NOT_ERRORS or ini.first_line is None:
        return None  # a connection error: the usual answers say it
    what = t.category_words(c.view.category) + (f" while {phase_words(ini.phase)}" if ini.phase else "")
    if c.view.category in _STUCK:  # its own error is a wait that timed out: it did hang, in a collective
        lead = tj.HANG_IN_COLLECTIVE.format(
            rank=ini.rank, what=what, at=at(ini.first_time), ref=ref(ini.first_line)
        )
        note = answer_code.desync_note(c)
        return reply("alternatives", f"{lead} {note}".strip(), [ini.first_line])
    waited = len(c.view.with_role("collateral"))
    lead = tj.NOT_HANG_ERROR.format(rank=ini.rank, what=what, at=at(ini.first_time), ref=ref(ini.first_line))
    bare = tuple(int(x) for x in _BARE_RANK.findall(text))  # "did 3 actually hang": rank 3's own end
    if theirs := answer_launcher.named_victims(c, bare):
        lead += " " + theirs
    elif waited:
        lead += " " + tj.HANG_WAIT_COLLATERAL.format(rank=ini.rank)
    return reply("alternatives", lead, [ini.first_line])


#: a rank named by its bare number in a hang question ("and did 3 actually hang or what")
_BARE_RANK = re.compile(
    r"\b(?:did|was|were|is) (\d+) (?:actually |really |even |just )?(?:hang|hung|stall\w*|stuck)\b"
)


def _progress_check(c: Ctx) -> Reply | None:
    """A scheduler's kill: still training up to it (not a hang), or silent long before it (a hang)."""
    end = answer_job.scheduler_end(c)
    progress, shown = answer_job.last_progress(c)
    logged = [r for r in c.view.ranks.values() if r.last_step_line is not None]
    if end is None or not progress or not logged:
        return None
    rule = c.entry.when_stalled if c.entry is not None else None
    quiet = rule.at_least_seconds if rule is not None else 300
    step_at = _last_step_time(c)
    gap = seconds_between(step_at, c.view.end) if step_at else None
    if gap is None:
        return None
    said = answer_job.end_sentence(end)
    if gap < quiet:
        lead = tj.NOT_HANG_PROGRESS.format(
            gap=answer_job.length(gap), quiet=answer_job.length(quiet), progress=progress, end=said
        )
    else:
        lead = tj.MAYBE_HANG.format(gap=answer_job.length(gap), progress=progress, end=said)
    return reply("alternatives", lead, [*shown, end.line])


def _last_step_time(c: Ctx) -> str | None:
    best = max(
        (r for r in c.view.ranks.values() if r.last_step is not None and r.last_step_line is not None),
        key=lambda r: (r.last_step or 0, -r.rank),
        default=None,
    )
    if best is None or best.last_step_line is None:
        return None
    stamp = parse_timestamp(best.last_step_line.text)
    return stamp.iso() if stamp is not None and not stamp.relative else None


def allocator_try(c: Ctx, m: Match) -> Reply | None:
    """ "Cant we just set expandable_segments and rerun?": the allocator setting checked against this
    OOM's figures (the shortfall against the reserved-but-unallocated memory it could reuse), then the
    entry's own fix. Why: a setting that only defragments cannot make up memory the step never had."""
    term = find(m.text, c.glossary)
    oom = c.view.numbers.oom
    if term is None or term.name not in _ALLOCATOR or oom is None or not _TRY.search(m.text):
        return None
    o, ini = oom[0], c.view.initiating
    if o.short_gib is None or ini is None:
        return None
    spare = o.reserved_unallocated_gib
    where = f" while {phase_words(ini.phase)}" if ini.phase else ""
    step = f" at step {ini.last_step}" if ini.last_step is not None else ""
    facts = dict(name=term.name, rank=ini.rank, short=gib(o.short_gib), where=where, step=step)
    facts.update(asked=gib(o.asked_gib), free=gib(o.free_gib))
    if spare is not None and spare >= o.short_gib:
        lead = tj.ALLOC_MAY_HELP.format(spare=gib(spare), **facts)
    elif spare is not None:
        lead = tj.ALLOC_TOO_LITTLE.format(spare=gib(spare), **facts)
    else:
        lead = tj.ALLOC_NONE.format(**facts)
    first = c.steps[0] if c.steps else ""
    if first and (spare is None or spare < o.short_gib):
        lead += " " + tj.REAL_FIX.format(step=first)
    return reply("fix", lead, c.view.key_line())


__all__ = ["RUNNING_Q", "allocator_try", "hang_guess", "running"]
