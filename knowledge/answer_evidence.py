"""Answers about what the evidence holds beyond the verdict's line: the loss values before a NaN, what is
missing to confirm the diagnosis, who sent a SIGKILL the logs only name.

"did the loss spike before it went nan?", "what should I pull off the node to confirm this?", "killed
by who, oom?": each is a fact of this job's saved lines (the progress lines, the sources it came with,
the signal's own line), said as the lines say it, never beyond them — a SIGKILL without a kernel log
is said to be unproven, with the command that proves it.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tfa
from denpex.core.texts import thread as t
from knowledge import answer_job, answer_quote
from knowledge.answer_asks import said
from knowledge.answer_types import Ctx, Reply, rank_lines, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.lines import parse_step

#: a loss a progress line prints (`loss 1.0358`, `loss=1.52`, `train/loss: 0.98`, `loss nan`)
_LOSS = re.compile(r"\bloss\b[\"']?\s*[=:]?\s*([-+]?(?:[0-9]+\.?[0-9]*(?:e[-+]?[0-9]+)?|nan|inf))\b", re.I)
#: how many of the last logged losses an answer shows
LOSS_SHOWN = 5


def loss_of(text: str) -> str:
    """The loss a step line prints ("step 1/10 loss 1.0193" -> "1.0193"), or "" when it prints none."""
    found = _LOSS.search(text)
    return found.group(1) if found else ""


#: a last value this many times the typical one before it is a spike
SPIKE_RATIO = 2.0


Loss = tuple[int, str, EvidenceLine]  # step, the value as logged, its line


def _losses(c: Ctx, rank: int) -> list[Loss]:
    """(step, loss, line) of every progress line the rank wrote, in step order, each step once."""
    found: dict[int, tuple[str, EvidenceLine]] = {}
    for lines in rank_lines(c, rank).values():
        for ln in lines:
            step, loss = parse_step(ln.text), _LOSS.search(ln.text)
            if step is not None and loss is not None:
                found[step] = (loss.group(1), ln)
    return [(s, v, ln) for s, (v, ln) in sorted(found.items())]


def losses_of(c: Ctx, rank: int) -> list[Loss]:
    """(step, loss, line) of every step line the rank logged with a loss, in step order."""
    return _losses(c, rank)


def loss(c: Ctx, m: Match) -> Reply:
    """The last logged losses (the named rank's, else the rank that logged the most), whether they rose,
    then the failure that followed. Only logged values are judged: a step not logged is not claimed."""
    ini = c.view.initiating
    first = [ini.rank] if ini is not None else []
    ranks = [m.rank] if m.rank is not None and m.rank in c.view.ranks else first + sorted(c.view.ranks)
    series = max((_losses(c, r) for r in ranks), key=len, default=[])
    if not series:
        return reply("loss", tf.LOSS_NONE, c.view.key_line())
    shown = series[-(LOSS_CURVE if _CURVE.search(m.text) else LOSS_SHOWN) :]  # "the loss curve": all of it
    who = _who(c, ranks, series) or "the progress lines"
    values = ", ".join(v for _, v, _ in shown)
    lead = tf.LOSS_TREND.format(who=who, first=shown[0][0], last=shown[-1][0], values=values)
    lead += " " + _trend(series, shown)
    if ASKS_CLIMB.search(m.text) and (climb := _climb(series, shown)):
        lead = f"{climb} {lead}"  # "did it blow up gradually?": no or yes first, then the values
    lines = [shown[0][2], shown[-1][2]] if len(shown) > 1 else [shown[-1][2]]
    if ini is not None and ini.first_line is not None:
        what = t.category_words(c.view.category)
        lead += " " + tf.LOSS_THEN.format(rank=ini.rank, what=what, ref=ref(ini.first_line))
        lines.append(ini.first_line)
    elif ini is None and (end := answer_job.scheduler_end(c)) is not None:  # then the scheduler ended it
        lead += " " + answer_job.end_sentence(end)
        lines.append(end.line)
    if _LR_OR_DATA.search(m.text):  # "lr too high? or bad data?": what the logged values can tell
        spiked = tf.LOSS_SPIKE.split("{", 1)[0] in lead  # the trend sentence said it rose
        lead = f"{tf.LOSS_READS_LR if spiked else tf.LOSS_READS_DATA} {lead}"
    steps = _steps_asked(c, m) if _WHAT_NOW.search(m.text) or _LR_OR_DATA.search(m.text) else []
    return reply("loss", lead, lines, bullets=steps)


#: asks for the whole series ("the loss curve for the review", "every logged loss"), not its last values
_CURVE = re.compile(
    r"\bcurve\b|\b(?:all|every|each) (?:the |of the )?(?:logged )?(?:loss(?:es)?|values?|steps?)\b"
    r"|\b(?:full|whole|entire) (?:loss|series|history|run)\b|\bfrom (?:the )?start\b"
    # "give me the values rank 0 logged", "all the losses from step 0 on": what was logged, all of it
    r"|\b(?:the|its|their) (?:loss )?values (?:(?:rank \d+|it|they|each rank|every rank) )?"
    r"(?:logged|printed|wrote|reported|showed)\b"
    r"|\bfrom (?:step 0|step zero|the (?:first|beginning))\b"
    r"|\b(?:list|paste|dump) (?:me |us )?(?:the |all )?(?:logged )?(?:loss(?:es)?|values)\b"
    # "loss trajectory step 0 -> step 6", "the losses that were logged": the series from its first step
    r"|\btrajector(?:y|ies)\b|\bstep 0\b|\bloss(?:es)? (?:that )?(?:were |was )?(?:logged|printed)\b"
)
#: at most this many values of a whole series are listed
LOSS_CURVE = 30


def asks_curve(text: str) -> bool:
    """The message asks for the whole logged series ("the loss curve", "the values rank 0 logged")."""
    return _CURVE.search(text) is not None


#: a choice between the two usual causes of a NaN loss
_LR_OR_DATA = re.compile(
    r"\b(?:lr|learning rate|warm-?up)\b.{0,40}\bor\b|\bor\b.{0,40}\b(?:lr|learning rate)\b"
)


#: "should I just lower the LR or hunt for a bad batch?": what to do, after the values
_WHAT_NOW = re.compile(
    r"\bshould (?:i|we)\b|\bwhat (?:do|should|now|next)\b|\bhow (?:do|to) (?:i |we )?fix\b"
    r"|\bor (?:hunt|lower|find)\b"
)


def _steps_asked(c: Ctx, m: Match) -> list[str]:
    """The entry's fix steps that share a word with the question (the first two), else its first."""
    steps = list(c.steps)
    words = {w for w in re.findall(r"[a-z_]{3,}", m.text.lower())} - _COMMON
    hits = [s for s in steps if words & set(re.findall(r"[a-z_]{3,}", s.lower()))]
    return (hits or steps)[:2]


#: words a question and a fix step share without being about the same thing
_COMMON = frozenset({"the", "and", "for", "just", "should", "what", "with", "before", "loss", "from", "this"})


def _trend(series: list[Loss], shown: list[Loss]) -> str:
    """Whether the last logged value rose well above the typical one before it; a NaN is not a rise."""
    step, last, _ = series[-1]
    before = [float(v) for _, v, _ in series[:-1]]
    value = float(last)
    typical = statistics.median(before) if before else value
    if before and value == value and abs(value) > SPIKE_RATIO * abs(typical):  # NaN != NaN
        return tf.LOSS_SPIKE.format(value=last, step=step, median=f"{typical:.4g}")
    low = min(shown, key=lambda x: float(x[1]))[1]
    high = max(shown, key=lambda x: float(x[1]))[1]
    vals = [float(v) for _, v, _ in shown]
    falling = len(vals) > 1 and all(v == v for v in vals) and vals[-1] < vals[0]  # NaN != NaN
    down = tf.LOSS_DOWN if falling else ""
    return tf.LOSS_FLAT.format(low=low, high=high, down=down, value=last, step=step)


#: asks whether the loss rose before the failure ("was loss climbing", "did it blow up gradually")
ASKS_CLIMB = re.compile(
    r"\b(?:climb|rising|rose|rise|grow|gradual|creep|trend\w*|going up|went up|blow up|blew up)\w*\b"
)
#: a last value this much above the first one shown is a climb
CLIMB_RATIO = 1.1


def _climb(series: list[Loss], shown: list[Loss]) -> str:
    """Whether the logged finite values climbed, said first; "" when the series is too short or a
    spike (the trend sentence says it) ended it."""
    finite = [x for x in shown if float(x[1]) == float(x[1]) and abs(float(x[1])) != float("inf")]
    if len(finite) < 3 or _trend(series, shown).startswith(tf.LOSS_SPIKE.split("{", 1)[0]):
        return ""
    (s0, v0, _), (s1, v1, _) = finite[0], finite[-1]
    if float(v1) > CLIMB_RATIO * float(v0):
        return tfa.LOSS_CLIMBED.format(first=v0, first_step=s0, last=v1, last_step=s1)
    return tfa.LOSS_NO_CLIMB.format(first=v0, first_step=s0, last=v1, last_step=s1)


def with_climb(c: Ctx, m: Match, got: Reply) -> Reply:
    """`got` led by the loss's trend when the ask is whether it climbed ("did the loss blow up
    gradually? last i see is 1.0358 at step 6") and another answer (the step claim) came first."""
    if got.intent == "loss" or not ASKS_CLIMB.search(m.text) or not re.search(r"\bloss\b", m.text):
        return got
    trend = loss(c, m)
    if trend.lead.split(". ", 1)[0].lower() in said(got):
        return got
    shown = [*trend.lines[:2], *(ln for ln in got.lines if ln not in trend.lines)]
    return replace(got, lead=f"{trend.lead} {got.lead}", lines=shown, material=[trend.lead, *got.material])


def _who(c: Ctx, ranks: list[int], series: list[Loss]) -> str:
    for r in ranks:
        if _losses(c, r) == series:
            return f"rank {r}"
    return ""


def gaps(c: Ctx, m: Match) -> Reply | None:
    """What the evidence lacks to confirm the verdict — the engine's own list of missing sources first,
    then a node's kernel log, the scheduler's record, Flight Recorder dumps, a silent rank's log — and
    what to turn on or collect for this failure mode."""
    v = c.view
    nodes = [n for n in v.nodes if n] or ([v.initiating.node] if v.initiating and v.initiating.node else [])
    names = ", ".join(f"`{n}`" for n in nodes) or "the failing rank's node"
    missing = [tf.GAP_ENGINE.format(what=x.what, action=x.next_action) for x in c.d.missing_evidence]
    said = " ".join(missing).lower()
    if not c.d.nodes and "kernel" not in said:
        missing.append(tf.GAP_KERNEL.format(nodes=names))
    if v.category in _COLLECTIVE and not c.d.collectives.dumps and "flight recorder" not in said:
        missing.append(tf.GAP_DUMPS)
    if v.category in _HOST_MEMORY and "scheduler" not in said:
        missing.append(tf.GAP_SCHEDULER)
    if silent := v.with_role("missing"):
        missing.append(tf.GAP_RANKS.format(ranks=rl(silent)))
    steps = list(c.debug.get(v.category) or c.debug.get("default") or [])
    lead = tf.GAPS_LEAD.format(gaps="; ".join(missing)) if missing else tf.GAPS_NONE.format(nodes=names)
    return reply("gaps", lead, v.key_line(), bullets=steps)


#: categories whose verdict a Flight Recorder dump would confirm
_COLLECTIVE = frozenset({"nccl_timeout", "nccl_comm_error", "hang_no_error"})
#: categories whose limit and peak the scheduler's accounting shows (a cgroup limit below the node's RAM)
_HOST_MEMORY = frozenset({"host_oom", "cpu_oom_checkpoint", "dataloader_worker_killed"})
#: a process ended by SIGKILL, as the lines name it
_SIGKILL = re.compile(r"killed by signal: Killed|\bSIGKILL\b|\bSignal 9\b|exitcode ?: ?-9\b")


def sigkill_line(c: Ctx) -> EvidenceLine | None:
    """The line saying the failing process was SIGKILLed, when no kernel line says who sent it."""
    if c.view.numbers.kill is not None:
        return None
    ini = c.view.initiating
    pool = list(c.view.evidence) + ([ini.first_line] if ini is not None and ini.first_line else [])
    return next((ln for ln in pool if _SIGKILL.search(ln.text)), None)


def killed_unseen(c: Ctx) -> str:
    """ "Killed by who, OOM?": SIGKILL named, its sender unproven, the command that shows it; "" when the
    lines show no SIGKILL (or the kernel's own kill line is there to say who)."""
    ln = sigkill_line(c)
    ini = c.view.initiating
    if ln is None or ini is None:
        return ""
    node = f"`{ini.node}`" if ini.node else "its node"
    what = t.category_words(c.view.category)
    return tf.KILLED_UNSEEN.format(rank=ini.rank, what=what[:1].upper() + what[1:], ref=ref(ln), node=node)


#: a question about the signal itself ("a sigkill? 9?", "killed by who?", "was it the oom killer?")
_SIGKILL_Q = re.compile(
    r"\b(?:sigkill|signal 9|kill -9|killed by (?:who|whom|what)|who (?:sent|killed)|oom[- ]?killer)\b"
)


def sigkill_check(c: Ctx, m: Match) -> Reply | None:
    """A question about a SIGKILL the lines name without saying who sent it: the signal, then the
    likely sender and the command that proves it. None when the question or the lines say otherwise."""
    if not _SIGKILL_Q.search(m.text) or not (lead := killed_unseen(c)):
        return None
    return reply("memory", lead, [x for x in (sigkill_line(c),) if x is not None])


#: "what was the last good step?": the step before the one it failed in
_GOOD_STEP = re.compile(
    r"\blast (?:good|completed|successful|clean|healthy|finished|ok|full|complete) step\b"
    r"|\blast step (?:that |which )?(?:\w+ )?(?:finished|completed|succeeded|went through|made it|got done)\b"
)


def last_good_step(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """The last step the rank logged before the one it failed in, when the question asks for it."""
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if r is None or r.last_step is None or not _GOOD_STEP.search(m.text):
        return "", []
    logged = [
        (step, ln)
        for lines in rank_lines(c, r.rank).values()
        for ln in lines
        if (step := parse_step(ln.text)) is not None and step < r.last_step
    ]
    if not logged:
        return "", []
    step, ln = max(logged, key=lambda x: (x[0], x[1].line))
    return tf.LAST_GOOD_STEP.format(rank=r.rank, step=step, failed=r.last_step, ref=ref(ln)), [ln]


#: "which checkpoint?", "what file was it saving?"
_WHICH_SAVE = re.compile(r"\b(?:which|what) (?:checkpoint|save|file|ckpt)s?\b")


def checkpoint_named(c: Ctx, m: Match) -> tuple[str, list[EvidenceLine]]:
    """The checkpoint file the last save line named, when the question asks which one ("" otherwise)."""
    if not _WHICH_SAVE.search(m.text) or (found := answer_quote.saving_line(c)) is None:
        return "", []
    name, ln = found
    return tf.CHECKPOINT_NAMED.format(name=name, ref=ref(ln)), [ln]


__all__ = [
    "asks_curve",
    "checkpoint_named",
    "gaps",
    "killed_unseen",
    "last_good_step",
    "loss",
    "losses_of",
    "sigkill_check",
    "sigkill_line",
]
