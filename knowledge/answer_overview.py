"""Answers to the broad questions of a thread: what happened, why the others died, how to see more;
and the facts a few other answers add (a rank's last line, the collective each traceback is in).

"wat happened" and "y did the others die" are the first things people type; they get the verdict's
title with the first failure, and the collateral ranks with what took them down. Each wraps the
fact handlers (`answer_facts`, `answer_advice`) rather than repeating them.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import slack as t
from knowledge import answer_advice, answer_code, answer_facts, answer_memory
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, launcher_exits, rank_numbers, seconds_between
from knowledge.schema import DATA_DIR

DEBUG_PATH = DATA_DIR / "debug.toml"
_INTACT = re.compile(
    r"\b(?:corrupt\w*|broken|incomplete|partial|usable|valid|intact|written|complete|ok|safe)\b"
)
_STEP_QUESTION = re.compile(r"\b(?:step|steps|iteration|iter|how far)\b")
_SAVING = re.compile(
    r"[Ss]aving (?:model )?checkpoint[^/]*?(?:/\S*/)?((?:checkpoint|ckpt|global_step)[-_]?\d+[\w.]*)"
)


def load_debug(path: Path | None = None) -> MappingProxyType[str, tuple[str, ...]]:
    """What to turn on to see more, by category (`default` for the rest)."""
    raw = tomllib.loads((path or DEBUG_PATH).read_text(encoding="utf-8"))
    return MappingProxyType({k: tuple(str(x) for x in v) for k, v in raw.get("debug", {}).items()})


def summary(c: Ctx, m: Match) -> Reply | None:
    """The verdict's title, then who failed first with what, and the collateral."""
    base = answer_facts.which_rank(c, replace(m, rank=None))
    if base is None:
        return None
    lead = tf.summary(c.view.title or "", base.lead)
    note = answer_code.desync_note(c)
    lead += f" {note}" if note and note not in lead else ""
    return reply("summary", lead, base.lines)


def others(c: Ctx, m: Match) -> Reply | None:
    """Why the ranks other than the initiating one failed: collateral, with one of them as example."""
    v = c.view
    coll = v.with_role("collateral")
    if not coll:
        return None
    example = answer_facts.rank_why(c, replace(m, rank=coll[0].rank))
    ini = v.initiating
    lead = tf.others(len(coll), rl(coll), ini.rank if ini else None, example.lead if example else "")
    mine = {x.rank for x in coll}
    stopped = [e for e in launcher_exits(c.d) if e.rank in mine and e.signal and e.code < 0]
    if stopped and stopped[0].signal is not None:
        lead += " " + tf.launcher_stopped(rl(e.rank for e in stopped), stopped[0].code, stopped[0].signal)
    lines = (example.lines if example else []) + [e.line for e in stopped[:1]]
    return reply("others", lead.strip(), lines)


def rank_why(c: Ctx, m: Match) -> Reply | None:
    """The fact handler's answer, plus the desync the tracebacks show when this rank is the odd one."""
    base = answer_facts.rank_why(c, m)
    if base is None:
        return None
    ini = c.view.initiating
    note = answer_code.desync_note(c)
    if note and ini is not None and (m.rank is None or m.rank == ini.rank):
        return reply("rank_why", f"{base.lead} {note}", base.lines)
    return base


def phase(c: Ctx, m: Match) -> Reply | None:
    """The phase answer; when no line says the phase, the rank's last saved line shows what it did;
    a step asked for and not logged by the rank is said so, with the nearest step the job shows."""
    base = answer_facts.phase(c, m)
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if base is None or r is None:
        return base
    if r.phase == "checkpoint_save" and _INTACT.search(m.text) and r.role == "initiating":
        saving = [(f.group(1), ln) for ln in c.view.evidence if (f := _SAVING.search(ln.text))]
        name, lines = (saving[0][0], [saving[0][1]]) if saving else ("", [])
        return reply("phase", f"{base.lead} {tf.partial_checkpoint(r.rank, name)}", [*base.lines, *lines])
    if r.last_step is None and _STEP_QUESTION.search(m.text):
        lead, lines = _step_hint(c, r)
        return reply("phase", f"{base.lead} {lead}", [*base.lines, *lines])
    if r.phase:
        return base
    tails = [tl for tl in c.d.tails if tl.rank == r.rank and tl.lines]
    last = tails[0].lines[-1] if tails else None
    if last is None or last in base.lines or (r.last_step_line is not None and last == r.last_step_line):
        return base
    lead = f"{base.lead} {tf.last_line(ref(last), last.text.strip())}"
    return reply("phase", lead, [*base.lines, last])


def _step_hint(c: Ctx, r: RankView) -> tuple[str, list[EvidenceLine]]:
    """No step from this rank: another rank's last step, else the checkpoint being written."""
    logged = [x for x in c.view.ranks.values() if x.last_step is not None]
    if logged:
        best = max(logged, key=lambda x: (x.last_step or 0, -x.rank))
        line = [best.last_step_line] if best.last_step_line else []
        return tf.no_step(r.rank, tf.other_step(best.last_step or 0, best.rank)), line
    for ln in c.view.evidence:
        found = _SAVING.search(ln.text)
        if found:
            return tf.no_step(r.rank, tf.saving_file(found.group(1), ref(ln))), [ln]
    return tf.no_step(r.rank, ""), []


def memory(c: Ctx, m: Match) -> Reply | None:
    """The memory figures; a named rank without a memory error of its own is told so first."""
    base = answer_memory.memory(c, m)
    v = c.view
    r = v.ranks.get(m.rank) if m.rank is not None else None
    if base is None or r is None or r.role == "initiating":
        return base
    nums = rank_numbers(v, r)
    if nums.oom is not None or nums.kill is not None or nums.host is not None:
        return base
    ini = v.initiating.rank if v.initiating else None
    return reply("memory", f"{tf.not_this_rank(r.rank, r.role, ini)} {base.lead}", base.lines)


def hang(c: Ctx, m: Match) -> Reply | None:
    """How long the collateral ranks waited on the one that started it, and the timeout that ended it."""
    v = c.view
    coll = v.with_role("collateral")
    if not coll:
        return None
    ini = v.initiating
    waits = (answer_facts.wait_text(v, x).strip() for x in coll)
    wait = next((w.removeprefix("It waited ").rstrip(".") for w in waits if w), "")
    gap = seconds_between(ini.first_time, v.first_collateral_time()) if ini is not None else None
    lead = tf.hang(rl(coll), ini.rank if ini else None, wait, duration(gap) if gap and gap > 0 else "")
    lines = [x.first_line for x in coll[:1] if x.first_line is not None]
    return reply("hang", lead, lines)


def fix(c: Ctx, m: Match) -> Reply | None:
    """The fix; a desync the tracebacks show comes first, since it says which call to change."""
    base = answer_advice.fix(c, m)
    note = answer_code.desync_note(c)
    if base is None or not note:
        return base
    return reply("fix", f"{base.lead} {note}", base.lines, bullets=base.bullets, code=base.code)


_RESUME = re.compile(r"\b(?:resume|resuming|checkpoint|start over|from scratch)\b")


def restart(c: Ctx, m: Match) -> Reply | None:
    """The restart verdict; an "it depends" names what started this job, so it can be judged; asked
    about resuming, also what resuming from the last checkpoint replays."""
    base = _restart(c, m)
    ini = c.view.initiating
    if base is None or not _RESUME.search(m.text):
        return base
    step = f" (rank {ini.rank} last logged step {ini.last_step})" if ini and ini.last_step is not None else ""
    lead = f"{base.lead} {tf.RESUME.format(step=step)}"
    return reply("restart", lead, base.lines, bullets=base.bullets, action=base.action, code=base.code)


def _restart(c: Ctx, m: Match) -> Reply | None:
    base = answer_advice.restart(c, m)
    ini = c.view.initiating
    if base is None or ini is None or not base.lead.startswith("Maybe"):
        return base
    step = f" at step {ini.last_step}" if ini.last_step is not None else ""
    lead = f"{base.lead} {tf.started_here(ini.rank, t.category_words(c.view.category), step)}"
    note = answer_code.desync_note(c)
    return reply("restart", f"{lead} {note}" if note else lead, base.lines, action=base.action)


def activity(c: Ctx, m: Match) -> Reply | None:
    """Each rank's activity; without Flight Recorder dumps, also the collective each traceback is in."""
    base = answer_advice.activity(c, m)
    if base is None or c.d.collectives.activity:
        return base
    rows, odd = answer_code.collective_rows(c)
    if not rows:
        return base
    extra = tf.collectives(rows) + (f" {odd}" if odd else "")
    return reply("activity", f"{base.lead} {extra}", base.lines)


def alternatives(c: Ctx, m: Match) -> Reply | None:
    """The runner-up, after the verdict and the rank that started it ("is it the network?")."""
    base = answer_advice.alternatives(c, m)
    ini = c.view.initiating
    if base is None or ini is None:
        return base
    verdict = tf.verdict(c.view.title or t.category_words(c.view.category), c.view.confidence, ini.rank)
    return reply("alternatives", f"{verdict} {base.lead}", base.lines, bullets=base.bullets)


def hardware(c: Ctx, m: Match) -> Reply | None:
    """Hardware or not; when it is not and the tracebacks show a desync, that is the code's part."""
    base = answer_advice.hardware(c, m)
    if base is None or answer_advice.xid_lines(c):
        return base
    note = answer_code.desync_note(c)
    ini = c.view.initiating
    if not note and ini is not None and f"rank {ini.rank}" not in base.lead.lower():
        note = tf.started_here(ini.rank, t.category_words(c.view.category), "")  # "a gloo bug?": who began
    if not note:
        return base
    return reply("hardware", f"{base.lead} {note}", base.lines, action=base.action)


def history(c: Ctx, m: Match) -> Reply | None:
    """Earlier incidents; without the history, says which failure mode to look for."""
    if c.past is not None:
        return answer_advice.history(c, m)
    title = c.d.entry.title if c.d.entry else t.category_words(c.d.category)
    return reply("history", tf.HISTORY_UNKNOWN.format(title=title), known=False)


def changed(c: Ctx, m: Match) -> Reply | None:
    """ "What changed since yesterday?": only this run is read, so no diff; what this run shows."""
    base = summary(c, m)
    if base is None:
        return None
    return reply("changed", f"{tf.ONLY_THIS_RUN} {base.lead}", base.lines)


def debug(c: Ctx, m: Match) -> Reply | None:
    """What to turn on to see more the next time this failure mode happens."""
    steps = c.debug.get(c.view.category) or c.debug.get("default")
    if not steps:
        return None
    ini = c.view.initiating
    lead = tf.debug_lead(t.category_words(c.view.category), ini.rank if ini else None)
    return reply("debug", lead, c.view.key_line(), bullets=steps)


__all__ = [
    "activity",
    "alternatives",
    "changed",
    "debug",
    "fix",
    "hang",
    "history",
    "load_debug",
    "memory",
    "others",
    "phase",
    "rank_why",
    "restart",
    "summary",
]
