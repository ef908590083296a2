"""Counterfactual follow-ups: "would X have fixed / saved / helped it?", "if I requeue on other nodes,
will it happen again?", "would raising the NCCL timeout have saved it?".

Why: the reader weighs a lever against THIS job, so the answer leads with yes / no / the logs can't
tell, decided from the diagnosis (category, the rank that started it, its phase, the figures), never
from the question's words; then the fact that decides it; then what fixes it instead when the answer
is no. A lever the job's evidence does not bear on falls through to the other answers (None). A
question with a second ask this module does not answer falls through too, unless it is the progress
lost ("… and how much do we lose"), which is added after the verdict.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups_whatif as tw
from denpex.core.texts import thread as t
from knowledge import (
    answer_advice,
    answer_asks,
    answer_checks,
    answer_code,
    answer_lost,
    answer_overview,
    answer_silent,
)
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.answer_whatif_levers import lever, lever_name, levers
from knowledge.answer_whatif_memory import batch, host_ram
from knowledge.evidence_numbers import watchdog
from knowledge.intents import Match

#: the question weighs an outcome under a change ("would …", "will it …", "if we'd …", "… have fixed it")
ASKS_IF = re.compile(
    r"\bwould\b|\bwould've\b|\bwill (?:it|this|that)\b|\bif (?:i|we|you|it|the)\b"
    r"|\bhave (?:fixed|saved|helped|prevented)\b|\bcould (?:it|we|that)\b"
    # "do I just raise the limit or is that papering over it?": a lever weighed against the real fix
    r"|\bpaper\w* over\b|\bband-?aid\b|\bjust (?:raise|bump|increase|up|double|give it)\b"
    # "so im halving the batch size, fine?": a change already planned, put for approval
    r"|\b(?:i'?m|im|we'?re|i'?ll|ill|we'?ll|gonna|going to|planning to)\b.{0,60}"
    r"\b(?:fine|ok|okay|good|enough|sorted|sound\w*|work|right)\W*$"
    # "so i need to shrink the batch?", "should we give it more RAM?": a change put as the fix
    r"|\b(?:i|we) (?:just )?(?:need|have|got|ought) to\b|\bshould (?:i|we)\b"
)
BATCH_Q = re.compile(
    r"\b(?:smaller|lower\w*|reduc\w*|less|halv\w*|cut\w*|shrink\w*|decreas\w*|shorter)\b.{0,20}"
    r"\b(?:\w*batch\w*|micro[- ]?batch\w*|seq\w*|context)\b|\b(?:gradient|activation) checkpointing\b"
)
RAM_Q = re.compile(
    r"\b(?:more|bigger|extra|2x|double\w*|larger|additional)\b.{0,15}(?:\bram\b|--mem\b)"
    # "raise the pod mem limit", "bump --mem": the host memory the job may use
    r"|\b(?:rais\w*|bump\w*|increas\w*|up|lift\w*|doubl\w*)\b.{0,20}"
    r"(?:\b(?:mem|memory|ram)\b.{0,6}\b(?:limit|request|allocation)s?\b|--mem\b)"
)
TIMEOUT_Q = re.compile(
    r"\b(?:rais\w*|bump\w*|increas\w*|doubl\w*|longer|higher|extend\w*|lift\w*)\b.{0,25}\btime ?outs?\b"
    r"|\btime ?outs?\b.{0,15}\b(?:higher|longer|raised|bumped|increased|doubled)\b"
    # "timeout is 10s. if i set 30min does this pass?": a longer value put for the same timeout
    r"|\btime ?outs?\b.{0,80}\b(?:set|make|use|give|try|put|rais\w*|bump\w*|increas\w*|push\w*|extend\w*"
    r"|up|chang\w*)\b (?:it |that |this )?(?:to |up to )?\d+ ?(?:min\w*|h|hrs?|hours?)\b"
)
AGAIN_Q = re.compile(
    r"\b(?:re-?queue\w*|re-?submit\w*|re-?launch\w*|re-?run\w*|restart\w*|retry\w*|submit\w*)\b.{0,60}"
    r"\b(?:again|recur\w*|same (?:way|spot|step|wall|thing|failure|error))\b"
    r"|\b(?:other|different|another|new) nodes?\b.{0,40}\b(?:again|recur\w*)\b"
)
#: a lever named with what it would do ("does bf16 help here?", "should more GPUs avoid it")
HELPS_Q = re.compile(r"\b(?:help\w*|fix\w*|avoid\w*|prevent\w*|sav(?:e|ed)|solve\w*|matter\w*)\b")
#: another ask in the same message ("… and how much do we lose", "who owns it")
EXTRA_Q = re.compile(
    r"\bhow (?:much|many|long|far|short)\b|\b(?:what|which|who|whose|where|when)\b|\bown\w*\b"
)
_PORT_LINE = re.compile(r"address already in use|EADDRINUSE", re.I)
_PORT = re.compile(r"\bport[:= ]+(\d{2,5})\b|:(\d{4,5})\b")


def what_if(c: Ctx, m: Match) -> Reply | None:
    """Yes / no / can't tell for the lever asked, from this job's facts; None when none is asked or
    the job's evidence does not bear on it (the other answers take it)."""
    text = m.text.lower()
    handler = lever(text)
    if TIMEOUT_Q.search(text):
        got = timeout(c)
    elif handler is not None and (ASKS_IF.search(text) or HELPS_Q.search(text)):
        got = _each_lever(c, m, text)
    elif not ASKS_IF.search(text):
        return None
    elif AGAIN_Q.search(text):
        got = again(c, m)
    elif BATCH_Q.search(text):
        got = batch(c, m)
    elif RAM_Q.search(text):
        got = host_ram(c, m)
    else:
        return None
    if got is None:
        return None
    rest = _after_verdict(text)
    if not EXTRA_Q.search(rest):
        return got
    lost = answer_lost.lost(c, m)  # "… and how much do we lose": the progress after the verdict
    if lost is None:
        return None
    return reply("whatif", f"{got.lead} {lost.lead}", [*got.lines, *lost.lines], action=got.action)


def _each_lever(c: Ctx, m: Match, text: str) -> Reply | None:
    """Each lever the question names answered in turn ("fewer workers or a bigger /dev/shm?"), a
    sentence two of them share said once."""
    got = [(handler, r) for handler in levers(text) if (r := handler(c, m)) is not None]
    if len(got) < 2:
        return got[0][1] if got else None
    named = [
        replace(r, lead=tw.LEVER_NAMED.format(name=lever_name(h), answer=r.lead[:1].lower() + r.lead[1:]))
        for h, r in got
    ]
    out = named[0]
    for more in named[1:]:
        out = answer_asks.add(out, text, more)
    return out


def _after_verdict(text: str) -> str:
    """The question without its what-if clause (a "which" in "would X have fixed it" is not a second ask)."""
    parts = re.split(r"[?;]|\band\b|\balso\b", text)
    return " ".join(p for p in parts if not (ASKS_IF.search(p) or TIMEOUT_Q.search(p)))


def timeout(c: Ctx) -> Reply | None:
    """A longer NCCL timeout: no when the scheduler, a taken port or a crashed rank ended the job; can't
    tell for a rank that went silent (only a slow one would have been saved)."""
    ini, cat = c.view.initiating, c.view.category
    if cat == "scheduler_kill":
        line = c.view.key_line()
        return reply("whatif", tw.TIMEOUT_SCHEDULER.format(ref=ref(line[0]) if line else "its log"), line)
    if cat.startswith("rendezvous"):
        pool = [*c.view.evidence, *(ln for tl in c.d.tails for ln in tl.lines)]
        ln = next((x for x in pool if _PORT_LINE.search(x.text)), None)
        if ln is None:
            return None
        p = _PORT.search(ln.text)
        port = f"port {p.group(1) or p.group(2)}" if p else "its port"
        return reply("whatif", tw.TIMEOUT_PORT.format(port=port, ref=ref(ln)), [ln])
    if ini is None or (c.entry is not None and c.entry.id in answer_checks.SLOW_ENTRIES):
        return None
    if answer_code.desync_note(c):
        return None  # mismatched collectives: the timeout answer names both calls
    if answer_silent.silent(ini):
        fact = _silent_fact(c)
        lead = tw.TIMEOUT_SILENT.format(rank=ini.rank, fact=fact, next=answer_silent.next_steps(c, ini))
        return reply("whatif", lead, c.view.key_line())
    what = t.category_words(ini.category or cat)
    return reply("whatif", tw.TIMEOUT_CRASHED.format(rank=ini.rank, what=what), c.view.key_line())


def _silent_fact(c: Ctx) -> str:
    """The timeout the others waited out, and the line that names the silent rank."""
    found = [c.view.numbers.watchdog[0]] if c.view.numbers.watchdog is not None else []
    found += [w for r in c.view.ranks.values() if r.first_line and (w := watchdog(r.first_line.text))]
    secs = [w.timeout_s for w in found if w.timeout_s is not None]
    waited = f"The others waited out the {duration(secs[0])} timeout." if secs else ""
    ini = c.view.initiating
    line = ini.first_line if ini is not None else None
    said = (
        f" ({ref(line)}: `{line.text.strip()[:140]}`)"
        if line is not None and ini and ini.inferred is False
        else ""
    )
    return f"{waited}{said}".strip()


def again(c: Ctx, m: Match) -> Reply | None:
    """Requeue / resubmit: the same failure for a deterministic cause, likely fine elsewhere for a GPU
    Xid, the same wall for a time limit; None when the entry cannot say (the restart answer hedges)."""
    ini, cat = c.view.initiating, c.view.category
    if cat == "scheduler_kill":
        line = c.view.key_line()
        return reply("whatif", tw.AGAIN_TIME.format(ref=ref(line[0]) if line else "its log"), line)
    base = answer_overview.restart(c, m)
    if base is None:
        return None
    if cat == "gpu_hardware_xid" and ini is not None and ini.node:
        lead = tw.AGAIN_XID.format(node=ini.node)
    elif answer_advice.restart(c, m) is not None and base.lead.startswith("Not as is"):
        who = f"rank {ini.rank}'s " if ini is not None else ""
        lead = tw.AGAIN_DETERMINISTIC.format(what=f"{who}{t.category_words(cat)}".replace("'s a ", "'s "))
        if ini is not None and ini.last_step is not None:
            lead += tw.AGAIN_AT_STEP.format(step=ini.last_step)
    else:
        return None
    rest = base.lead.removeprefix("Not as is: ").removeprefix("Yes, probably: ")
    return reply(
        "whatif", f"{lead} {rest}", base.lines, bullets=base.bullets, action=base.action, code=base.code
    )


__all__ = ["again", "timeout", "what_if"]
