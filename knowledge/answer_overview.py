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
from knowledge import (
    answer_advice,
    answer_checks,
    answer_code,
    answer_evidence,
    answer_facts,
    answer_more,
    answer_quote,
)
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.evidence_numbers import xid as parse_xid
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, launcher_exits, seconds_between
from knowledge.schema import DATA_DIR

DEBUG_PATH = DATA_DIR / "debug.toml"
_INTACT = re.compile(
    r"\b(?:corrupt\w*|broken|incomplete|partial|usable|valid|intact|written|complete\w*|ok|safe|finish\w*"
    r"|done|restart from|resume from|load)\b"
)
_STEP_QUESTION = re.compile(r"\b(?:step|steps|iteration|iter|how far)\b")
_CALL_QUESTION = re.compile(r"\b(?:call|function|frame|line of (?:my|our|the) code)\b")
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
        lead += f" {gap}" if (gap := answer_more.summary_gap(c)) else ""
    rows, odd = answer_code.collective_rows(c)  # what they were in when they died ("ranks 1-3 in barrier")
    if rows:
        lead += " " + " ".join(x for x in (tf.collectives(rows), odd) if x)
    lines = (example.lines if example else []) + [e.line for e in stopped[:1]]
    return reply("others", lead.strip(), lines)


def which_rank(c: Ctx, m: Match) -> Reply | None:
    """Who started it; when the tracebacks show a desync, which call each side was in ("who's the odd
    one out?")."""
    base = answer_facts.which_rank(c, m)
    target = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if base is not None and target is not None and target.node is None and _NODE_ASKED.search(m.text):
        return reply("which_rank", f"{tf.NODE_UNKNOWN.format(rank=target.rank)} {base.lead}", base.lines)
    if base is not None and (same := _same_slot(c, m)):  # "rank 1 shows busId 3b000 too: same card?"
        return reply("which_rank", f"{base.lead} {same}", base.lines)
    note = answer_code.desync_note(c)
    if base is None or not note or note in base.lead or (m.rank is not None and c.view.initiating is None):
        return base
    return reply("which_rank", f"{base.lead} {note}", base.lines)


_STOPPED = re.compile(r"SIGTERM|Signal 15|exitcode ?: ?-15")
_EXIT_Q = re.compile(r"\bexit ?codes?\b|\bexitcode\b|-15\b|-9\b|\bsigterm\b")
_NODE_ASKED = re.compile(r"\b(?:node|host|box|machine|server)s?\b")


def _same_slot(c: Ctx, m: Match) -> str:
    """A rank on another node whose GPU has the failed GPU's PCI id: a different card in the same slot."""
    r = c.view.ranks.get(m.rank) if m.rank is not None else None
    xids = answer_advice.xid_lines(c)
    if r is None or r.gpu is None or not xids or (ev := parse_xid(xids[0].text)) is None:
        return ""
    node = next((n for n, ls in c.d.nodes.items() if xids[0] in ls), None)
    if node is None or r.node == node or ev.pci is None or ev.pci not in r.gpu:
        return ""
    owner = next(
        (x.rank for x in c.view.ranks.values() if x.node == node and x.gpu and ev.pci in x.gpu), None
    )
    who = owner if owner is not None else "?"
    return tf.PCI_OTHER_NODE.format(xid_node=node, pci=ev.pci, xid_rank=who, node=r.node)


#: "why only rank 5?": what set that rank apart from the others
_ONLY = re.compile(
    r"\bwhy (?:only|just) rank \d+\b|\bwhy rank \d+ and not\b|\bwhy only (?:that|this|one) rank\b"
)


def rank_why(c: Ctx, m: Match) -> Reply | None:
    """Why the rank failed; asked "why only rank 5?", also its last batch line (what set it apart)."""
    base = _rank_why(c, m)
    if base is None or not _ONLY.search(m.text) or (batch := answer_code.batch(c, m)) is None:
        return base
    return reply("rank_why", f"{base.lead} {batch.lead}", [*base.lines, *batch.lines])


def _rank_why(c: Ctx, m: Match) -> Reply | None:
    """The fact handler's answer, plus the desync the tracebacks show when this rank is the odd one;
    several ranks named ("did ranks 0 and 2 also get a NaN?"): each one's part."""
    if len(m.ranks) >= 2 and all(r in c.view.ranks for r in m.ranks[:3]):
        parts = [_rank_why(c, replace(m, rank=r, ranks=(r,))) for r in m.ranks[:3]]
        got = [p for p in parts if p is not None]
        if got:
            return reply("rank_why", " ".join(p.lead for p in got), [ln for p in got for ln in p.lines[:1]])
    base = answer_facts.rank_why(c, m)
    if base is None:
        return None
    ini = c.view.initiating
    r = c.view.ranks.get(m.rank) if m.rank is not None else ini
    extra = answer_more.launcher_ended(c, r) if r is not None and r.role == "collateral" else ""
    stopped = r is not None and r.first_line is not None and _STOPPED.search(r.first_line.text) is not None
    if r is not None and r.first_line is not None and stopped and not r.inferred and r.role == "initiating":
        extra = tf.STOPPED_ALIVE.format(ref=ref(r.first_line))  # its only line: the launcher's SIGTERM
    if r is not None and r.inferred:
        alive = tf.STOPPED_ALIVE.format(ref=ref(r.first_line)) if stopped and r.first_line else ""
        extra = " ".join(
            x for x in (tf.SILENT_RANK.format(rank=r.rank), alive, answer_more.launcher_ended(c, r)) if x
        )
    if _EXIT_Q.search(m.text) and (codes := answer_more.exit_codes(c)):  # "why 1 here and -15 there?"
        extra = f"{codes} {extra}".strip()
    note = answer_code.desync_note(c)
    if note and ini is not None and (m.rank is None or m.rank == ini.rank):
        extra = f"{note} {extra}".strip()
    lead = f"{answer_checks.culprit_verdict(c, m)} {base.lead} {extra}".strip()
    return reply("rank_why", lead, base.lines) if lead != base.lead else base


def phase(c: Ctx, m: Match) -> Reply | None:
    """The phase answer, and the checkpoint file when asked which one ("was it saving? which ckpt"), or
    the last step completed before the failing one when asked for the last good step."""
    base = _phase(c, m)
    named, lines = answer_evidence.checkpoint_named(c, m)
    if not named:
        named, lines = answer_evidence.last_good_step(c, m)
    if base is None or not named or named in base.lead:
        return base
    return reply("phase", f"{base.lead} {named}", [*base.lines, *(x for x in lines if x not in base.lines)])


def _phase(c: Ctx, m: Match) -> Reply | None:
    """The phase answer; when no line says the phase, the rank's last saved line shows what it did;
    a step asked for and not logged by the rank is said so, with the nearest step the job shows."""
    base = answer_facts.phase(c, m)
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if base is None or r is None:
        return base
    if r.phase == "checkpoint_save" and _INTACT.search(m.text) and r.role == "initiating":
        saving = [(f.group(1), ln) for ln in c.view.evidence if (f := _SAVING.search(ln.text))]
        if not saving and (named := answer_quote.saving_line(c)) is not None:  # its save line, kept elsewhere
            saving = [named]
        name, lines = (saving[0][0], [saving[0][1]]) if saving else ("", [])
        return reply("phase", f"{base.lead} {tf.partial_checkpoint(r.rank, name)}", [*base.lines, *lines])
    if r.last_step is None and _STEP_QUESTION.search(m.text):
        lead, lines = _step_hint(c, r)
        found = answer_code.user_frame(c, r.rank) if _CALL_QUESTION.search(m.text) else None
        if found is not None:  # "… at step 6? what call was it in": the call too
            frame, code, inner = found
            lead += " " + tf.in_call(frame.func, frame.path.rsplit("/", 1)[-1], frame.number, code, inner)
        return reply("phase", f"{base.lead} {lead}", [*base.lines, *lines])
    if r.phase and (found := answer_code.user_frame(c, r.rank)) is not None:  # in which call of the save
        frame, code, inner = found
        call = tf.in_call(frame.func, frame.path.rsplit("/", 1)[-1], frame.number, code, inner)
        return reply("phase", f"{base.lead} {call}", base.lines)
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
    if answer_facts.no_worker_started(c):  # "did it save anything? can I resume?": nothing ran
        lead = f"{tf.NOTHING_TO_RESUME} {base.lead}"
        return reply("restart", lead, base.lines, bullets=base.bullets, action=base.action, code=base.code)
    if ini is not None and ini.phase == "checkpoint_save":  # the save it died in is not a safe start
        saving = [(f.group(1), ln) for ln in c.view.evidence if (f := _SAVING.search(ln.text))]
        name = saving[0][0] if saving else ""
        if not name and (seen := answer_quote.saving_line(c)) is not None:
            name = seen[0]
        lead = f"{base.lead} {tf.partial_checkpoint(ini.rank, name)}"
        return reply("restart", lead, base.lines, bullets=base.bullets, action=base.action, code=base.code)
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
    steps = c.debug.get(c.view.category) or c.debug.get("default") or []
    if ini.inferred and steps:  # a rank that stalled without an error: restart blind, it hangs again
        note = f"{note} {tf.INVESTIGATE_FIRST.format(rank=ini.rank, step=steps[0])}".strip()
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
    """The runner-up, after the verdict and the rank that started it; a guess it can check ("could it
    be the network instead?") is answered yes or no first."""
    base = answer_advice.alternatives(c, m)
    if answer_checks.guessed(m.text) is not None and (checked := answer_checks.guess(c, m)) is not None:
        runner_up = f" {base.lead}" if base is not None else ""
        return reply("alternatives", checked.lead + runner_up, checked.lines)
    ini = c.view.initiating
    if base is None or ini is None:
        return base
    verdict = tf.verdict(c.view.title or t.category_words(c.view.category), c.view.confidence, ini.rank)
    return reply("alternatives", f"{verdict} {base.lead}", base.lines, bullets=base.bullets)


_RMA = re.compile(r"\b(?:rma|replace|replacement|swap|return)\b", re.IGNORECASE)


def hardware(c: Ctx, m: Match) -> Reply | None:
    """Hardware or not; when it is not and the tracebacks show a desync, that is the code's part."""
    base = answer_advice.hardware(c, m)
    if base is None:
        return None
    collateral = answer_checks.named_collateral(c, m)  # "ranks 4 and 6 errored too: bad GPUs as well?"
    if cleared := answer_checks.node_collateral(c, m):  # "is gpu-01 also bad?": that node first
        first = base.lead[0].lower() + base.lead[1:] if base.lead[1:2].islower() else base.lead
        base = reply("hardware", f"{cleared} {first}", base.lines, action=base.action)
    if "driver" in m.text:  # "what driver is on that box?": the version first
        base = reply("hardware", f"{answer_more.versions(c, m)} {base.lead}", base.lines, action=base.action)
    if answer_advice.xid_lines(c):
        rma = [s for s in (c.entry.fix.steps if c.entry else []) if _RMA.search(s)]
        step = tf.RMA_NEXT.format(step=rma[0]) if rma and _RMA.search(m.text) else ""
        lead = " ".join(x for x in (base.lead, collateral, step) if x)
        return reply("hardware", lead, base.lines, action=base.action, code=c.d.verify)
    note = answer_code.desync_note(c)
    ini = c.view.initiating
    if not note and ini is not None and f"rank {ini.rank}" not in base.lead.lower():
        note = tf.started_here(ini.rank, t.category_words(c.view.category), "")  # "a gloo bug?": who began
    kernel = tf.NO_KERNEL_FAULT.format(rank=ini.rank) if ini is not None else ""
    lead = " ".join(x for x in (base.lead, collateral, note, kernel) if x)
    return reply("hardware", lead, base.lines, action=base.action)


def versions(c: Ctx, m: Match) -> Reply | None:
    """ "What NCCL version was this?": each version asked for, from the line that prints it."""
    return reply("versions", answer_more.versions(c, m))


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
    "others",
    "phase",
    "rank_why",
    "restart",
    "summary",
    "versions",
    "which_rank",
]
