"""Answers to the broad questions of a thread: what happened, why the others died, how to see more;
and the facts a few other answers add (a rank's last line, the collective each traceback is in).

"wat happened" and "y did the others die" are the first things people type; they get the verdict's
title with the first failure, and the collateral ranks with what took them down. Each wraps the
fact handlers (`answer_facts`, `answer_advice`) rather than repeating them.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import thread as t
from knowledge import (
    answer_advice,
    answer_checks,
    answer_code,
    answer_debug,
    answer_doubt_quote,
    answer_evidence,
    answer_facts,
    answer_fixfit,
    answer_launcher,
    answer_mechanism,
    answer_more,
    answer_node,
    answer_quote,
    answer_rerun,
    answer_silent,
    answer_tellapart,
    answer_time_limit,
    answer_where,
)
from knowledge.answer_types import Ctx, Reply, duration, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, launcher_exits, seconds_between

_INTACT = re.compile(
    r"\b(?:corrupt\w*|broken|incomplete|partial|usable|valid|intact|written|complete\w*|ok|safe|finish\w*"
    r"|done|restart from|resume from|load|good|fine|trust\w*|use it|garbage|truncated|readable|there"
    r"|land\w*|on disk|trash|salvage\w*|lose|lost|saved|go back|further back|roll ?back|fall ?back)\b"
)
#: "did rank 3 print anything at all?", "did it write anything before it stopped?"
_PRINTED_Q = re.compile(
    r"\b(?:print|log|write|say|output|emit)\w* (?:anything|something|a thing|a line|a word)\b"
)
_STEP_QUESTION = re.compile(r"\b(?:step|steps|iteration|iter|how far)\b")
_CALL_QUESTION = re.compile(r"\b(?:call|function|frame|line of (?:my|our|the) code)\b")
_SAVING = re.compile(
    r"[Ss]aving (?:model )?checkpoint[^/]*?(?:/\S*/)?((?:checkpoint|ckpt|global_step)[-_]?\d+[\w.]*)"
)


def summary(c: Ctx, m: Match) -> Reply | None:
    """The verdict's title, then who failed first with what, and the collateral; asked for one line,
    the title and the first sentence only (a ticket's line, not the whole story)."""
    base = answer_facts.which_rank(c, replace(m, rank=None))
    if base is None:
        return None
    note = answer_code.desync_note(c)
    if answer_doubt_quote.ONE_LINER.search(m.text):
        one = answer_doubt_quote.one_liner(c, base)  # a desync's line names the two collectives
        return replace(one, lead=f"{one.lead} {note}") if note and note not in one.lead else one
    lead = tf.summary(c.view.title or "", base.lead)
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
    if (blamed := _culprit(c, m)) is not None:
        return blamed
    base = answer_facts.which_rank(c, m)
    target = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if base is not None and target is not None and target.node is None and _NODE_ASKED.search(m.text):
        return reply("which_rank", f"{tf.NODE_UNKNOWN.format(rank=target.rank)} {base.lead}", base.lines)
    if base is not None and (same := answer_node.same_slot(c, m)):  # "rank 1 has busId 3b000 too?"
        return reply("which_rank", f"{base.lead} {same}", base.lines)
    note = answer_code.desync_note(c)
    if base is None or not note or note in base.lead or (m.rank is not None and c.view.initiating is None):
        return base
    return reply("which_rank", f"{base.lead} {note}", base.lines)


def _culprit(c: Ctx, m: Match) -> Reply | None:
    """ "The traceback is rank 0's but rank 2 died: who's the culprit?": not the named rank, the one that
    started it, and (an entry whose every rank holds a copy) why the other rank's lines look alike."""
    verdict = answer_checks.culprit_verdict(c, m)
    ini = c.view.initiating
    if not verdict or ini is None or m.rank == ini.rank:
        return None
    first = answer_facts.which_rank(c, replace(m, rank=None, ranks=()))
    if first is None:
        return None
    lead = " ".join(x for x in (verdict, first.lead, answer_mechanism.copies(c)) if x)
    return reply("which_rank", lead, first.lines)


_STOPPED = re.compile(r"SIGTERM|Signal 15|exitcode ?: ?-15")
_EXIT_Q = re.compile(
    r"\bexit ?codes?\b|\bexitcode\b|-15\b|-9\b|\bsigterm\b|^(?:the |their |all )?(?:pids?|process ids?)\b"
)
_PID_Q = re.compile(r"\bpids?\b")
#: asks why several ranks died ("why did ranks 1-3 die at all"), not whether they share a symptom
_WHY = re.compile(
    r"\bwhy (?:did|were|do|would|does) (?:the )?ranks? [\d, and/-]+ (?:\w+ )?"
    r"(?:die|died|fail|failed|crash|crashed|get killed|stop|stopped|exit|exited|go down|went down)\b"
)
_NODE_ASKED = re.compile(r"\b(?:node|host|box|machine|server)s?\b")


#: "why only rank 5?": what set that rank apart from the others
_ONLY = re.compile(
    r"\bwhy (?:only|just) rank \d+\b|\bwhy rank \d+ and not\b|\bwhy only (?:that|this|one) rank\b"
    # "why did only rank 5 run out of memory?", "how come just rank 5?"
    r"|\b(?:why (?:did|does|was|is|would|were)|how come) (?:it )?(?:only|just) rank \d+\b"
)


def rank_why(c: Ctx, m: Match) -> Reply | None:
    """Why the rank failed; asked "why only rank 5?", also its last batch line (what set it apart)."""
    base = _rank_why(c, m)
    r = c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating
    if base is not None and r is not None and r.role == "initiating" and _PRINTED_Q.search(m.text):
        own, _ = answer_where.own_log(c, r)  # "did rank 3 print anything at all?": no error of its own, first
        if own and "no error" not in base.lead.lower():
            base = reply("rank_why", f"{own} {base.lead}", base.lines)
    if base is None or not _ONLY.search(m.text) or (batch := answer_code.batch(c, m)) is None:
        return base
    return reply("rank_why", f"{base.lead} {batch.lead}", [*base.lines, *batch.lines])


def _rank_why(c: Ctx, m: Match) -> Reply | None:
    """The fact handler's answer, plus the desync the tracebacks show when this rank is the odd one;
    several ranks named ("did ranks 0 and 2 also get a NaN?"): each one's part."""
    if len(m.ranks) >= 2 and all(r in c.view.ranks for r in m.ranks[:3]):
        named = [r for r in m.ranks if r in c.view.ranks and c.view.ranks[r].role == "collateral"]
        collateral = len(named) >= 2 and named[0] == m.ranks[0]  # the ranks asked about lead the ask
        if collateral and _WHY.search(m.text) and (theirs := others(c, m)) is not None:
            return theirs  # "why did ranks 1-3 die at all": one story of the collateral, where they waited
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
    if answer_silent.silent(r) and r is not None:  # when it last wrote, and what tells stuck from dead
        extra = f"{extra} {answer_more.went_quiet(c, r)} {answer_silent.next_steps(c, r)}"
    if _EXIT_Q.search(m.text) and (codes := answer_more.exit_codes(c)):  # "why 1 here and -15 there?"
        extra = f"{codes} {extra}".strip()
    if r is not None and _PID_Q.search(m.text) and (pid := answer_launcher.main_pid(c, r)):
        extra = f"{pid} {extra}".strip()  # "main proc pid of that rank?": the launcher's, not the worker's
    note = answer_code.desync_note(c)
    if (
        note
        and ini is not None
        and (m.rank is None or m.rank == ini.rank or (r is not None and r.role == "collateral"))
    ):
        extra = f"{note} {extra}".strip()  # a collateral rank of a desync: the odd one's call says why
    verdict = answer_checks.culprit_verdict(c, m)
    if verdict and r is not None and r.role != "initiating" and (copies := answer_mechanism.copies(c)):
        extra = f"{extra} {copies}".strip()  # its traceback is in the same save: every rank built a copy
    lead = f"{verdict} {base.lead} {extra}".strip()
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
        loss = answer_evidence.loss_of(best.last_step_line.text) if best.last_step_line else ""
        return tf.no_step(r.rank, tf.other_step(best.last_step or 0, best.rank, loss)), line
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
    """The restart verdict, led by whether the checkpoint the ask names was saved (`answer_rerun`)."""
    return answer_rerun.resume_premise(c, m, _restart_told(c, m))


def _restart_told(c: Ctx, m: Match) -> Reply | None:
    """The restart verdict; an "it depends" names what started this job, so it can be judged; asked
    about resuming, also what resuming from the last checkpoint replays."""
    base = _restart(c, m)
    ini = c.view.initiating
    if base is not None and base.lead.startswith("Not as is") and (where := answer_mechanism.in_code(c)):
        base = replace(base, lead=f"{base.lead} {where}")  # what has to change: this job's line that does it
    if base is not None and not base.lead.startswith("Yes") and not answer_advice.xid_lines(c):
        base = answer_rerun.with_rerun(c, m, base)  # what to change (or grab) before it goes back on
    if (
        base is not None and answer_fixfit.BATCH_Q.search(m.text) and c.d.fix_snippet
    ):  # "relaunch, same batch"
        step = answer_fixfit.batch_step(c)
        base = replace(base, lead=f"{base.lead} {step}".strip(), code=c.d.fix_snippet)
    if base is not None and answer_facts.no_worker_started(c):  # "any training lost? can I resume?"
        first = tf.NOTHING_TO_RESUME if _RESUME.search(m.text) else answer_rerun.nothing_lost(c)
        first = answer_rerun.nothing_left(c, m) if answer_rerun.LEFTOVER_Q.search(m.text) else first
        lead = f"{first} {base.lead}"
        return reply("restart", lead, base.lines, bullets=base.bullets, action=base.action, code=base.code)
    if base is None or not _RESUME.search(m.text):
        return base
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
    if base is not None and ini is None:  # the scheduler's time limit: not with the same --time
        return answer_time_limit.same_time(c, base)
    if base is not None and c.view.category == "gpu_hardware_xid" and ini is not None and ini.node:
        return replace(base, lead=f"{base.lead} {tf.XID_ELSEWHERE.format(node=ini.node)}")
    if base is not None and base.lead.startswith("Not as is") and (note := answer_code.desync_note(c)):
        return replace(base, lead=f"{base.lead} {note} {tf.DESYNC_RECURS}")  # the calls that differ
    if base is None or ini is None or not base.lead.startswith("Maybe"):
        return base
    step = f" at step {ini.last_step}" if ini.last_step is not None else ""
    lead = f"{base.lead} {tf.started_here(ini.rank, t.category_words(c.view.category), step)}"
    note = answer_code.desync_note(c)
    if note:  # the tracebacks show the cause: different calls in the code, not chance
        note = f"{note} {tf.DESYNC_RECURS}"
    steps = c.debug.get(c.view.category) or c.debug.get("default") or []
    if answer_silent.silent(ini) and steps and not answer_rerun.capture_steps(c):  # restart blind: it hangs
        note = f"{note} {tf.INVESTIGATE_FIRST.format(rank=ini.rank, step=steps[0])}".strip()
    return reply("restart", f"{lead} {note}" if note else lead, base.lines, action=base.action)


def activity(c: Ctx, m: Match) -> Reply | None:
    """Each rank's activity; without Flight Recorder dumps, also the collective each traceback is in."""
    base = answer_advice.activity(c, m)
    if (
        base is not None
        and answer_facts.VICTIM_Q.search(m.text)
        and (said := answer_launcher.victims(c, list(m.ranks)))
    ):
        base = reply("activity", f"{said} {base.lead}", base.lines)  # "stuck in barrier: victims? exit codes"
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
        lead = checked.lead + runner_up
        decide = answer_tellapart.tell_apart(c, m.text, lead)  # "maybe the NFS mount flaked?": the check
        return reply("alternatives", f"{lead} {decide}".strip(), checked.lines)
    ini = c.view.initiating
    if base is None or ini is None:
        return base
    verdict = tf.verdict(c.view.title or t.category_words(c.view.category), c.view.confidence, ini.rank)
    fp16 = answer_fixfit.fp16_fact(c) if answer_fixfit.FP16_Q.search(m.text) else ""  # "an fp16 overflow?"
    data, shown = answer_more.data_fact(c, m.text)  # "was it the data loading? … building an index"
    lead = " ".join(x for x in (data, fp16, verdict, base.lead) if x)
    lead = f"{lead} {answer_tellapart.tell_apart(c, m.text, lead)}".strip()  # "what cmd tells them apart"
    return reply(
        "alternatives", lead, [*shown, *(x for x in base.lines if x not in shown)], bullets=base.bullets
    )


hardware = answer_node.hardware
debug = answer_debug.debug
load_debug = answer_debug.load_debug


__all__ = [
    "activity",
    "alternatives",
    "debug",
    "fix",
    "hang",
    "load_debug",
    "others",
    "phase",
    "rank_why",
    "restart",
    "summary",
    "which_rank",
]
