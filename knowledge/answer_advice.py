"""Answers about what to do: hardware or not, restart as is, what to change, how to verify, what else
it could be, what a term means, what each rank was doing (Flight Recorder), how long a fix takes.

The entry gives the general advice; each answer leads with this job's facts that decide it (the Xid
on this node, the shortfall of this OOM, the runner-up of this verdict).
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_job as tj
from denpex.core.texts import thread as t
from knowledge import (
    answer_checks,
    answer_code,
    answer_dumps,
    answer_fixfit,
    answer_job,
    answer_launcher,
    answer_mechanism,
    answer_more,
    answer_quote,
    answer_rerun,
    answer_setting,
    answer_trial,
    answer_workseq,
)
from knowledge.answer_facts import wait_text
from knowledge.answer_types import Ctx, Reply, duration, gib, ref, reply
from knowledge.answer_types import rank_list as rl
from knowledge.evidence_numbers import xid as parse_xid
from knowledge.glossary import find, fix_terms
from knowledge.intents import Match, tokens
from knowledge.jobfacts import JobFacts
from knowledge.jobfacts_answers import RankView, seconds_between
from knowledge.jobfill import fill

#: a runner-up below this share of the verdict's confidence did not "score close"
CLOSE_SHARE = 0.5


def _xid_lines(c: Ctx) -> list[EvidenceLine]:
    lines = [ln for ln in c.view.evidence if parse_xid(ln.text) is not None]
    for node_lines in c.d.nodes.values():
        lines += [ln for ln in node_lines if parse_xid(ln.text) is not None and ln not in lines]
    return lines


def xid_lines(c: Ctx) -> list[EvidenceLine]:
    """The Xid lines of this job (its evidence, then every node's kernel log)."""
    return _xid_lines(c)


def hardware(c: Ctx, m: Match) -> Reply | None:
    v, faq = c.view, c.entry.faq.hardware_or_software if c.entry else ""
    xids = _xid_lines(c)
    if xids:
        ev = parse_xid(xids[0].text)
        assert ev is not None
        row = c.xids.get(ev.code)
        name = row.name if row is not None else ev.message or "unknown Xid"
        if row is not None and not row.hardware:
            return reply("hardware", t.hardware_xid_app(ev.code, name), xids[:2], action=faq)
        node = next(
            (n for n, ls in c.d.nodes.items() if xids[0] in ls), v.initiating.node if v.initiating else None
        )
        owner = [r.rank for r in v.ranks.values() if r.gpu == ev.pci and (node is None or r.node == node)]
        rank = f", rank {owner[0]}'s GPU" if owner else ""
        lead = t.hardware_yes(ev.code, name, f" on {node}" if node else "", ev.pci, rank)
        return reply("hardware", lead, xids[:2], action=faq)
    lead = t.hardware_no(t.category_words(v.category))
    return reply("hardware", lead, v.key_line(), action=faq)


def restart(c: Ctx, m: Match) -> Reply | None:
    """Deterministic or not (the entry), said with this job's facts: where it will fail again, by how much."""
    if c.entry is None:
        return None
    v, text = c.view, c.entry.faq.recurrence
    if v.category == "gpu_hardware_xid":
        node = v.initiating.node if v.initiating else None
        steps = c.steps[1:2]  # after the drain: the reset, reboot or burn-in it names
        action = t.change_first(steps[0]) if steps else ""
        lead = t.restart_verdict(False, t.drain_first(node, text))
        return reply("restart", lead, _xid_lines(c)[:1], action=action)
    safe = _safe_to_rerun(text)
    facts, ini = "", v.initiating
    if ini is not None and ini.last_step is not None and safe is False:
        facts = t.fails_again(ini.rank, ini.last_step)
    if v.numbers.oom is not None and v.numbers.oom[0].short_gib is not None:
        facts += t.was_short(gib(v.numbers.oom[0].short_gib))
    if facts and ini is not None:  # the cause first: "rank 2 failed with a host out-of-memory kill"
        facts = t.restart_cause(ini.rank, t.category_words(v.category)) + facts
    steps = c.steps
    change = (
        "" if answer_rerun.capture_steps(c) else answer_rerun.change_step(c)
    )  # the cause unseen: look first
    first_fix = (change or steps[0]) if safe is not True and steps else ""
    action = " ".join(x for x in (text if facts else "", t.change_first(first_fix) if first_fix else "") if x)
    lead = t.restart_verdict(safe, facts.strip() or text)
    return reply("restart", lead, v.key_line(), action=action)


def _safe_to_rerun(recurrence: str) -> bool | None:
    """The entry's recurrence text: deterministic (not safe as is), transient (safe), or it depends."""
    low = recurrence.lower()
    if low.startswith("deterministic"):
        return False
    if "transient" in low or low.startswith(("intermittent", "random", "rare")):
        return True
    return None


def fix(c: Ctx, m: Match) -> Reply | None:
    if c.entry is None and not c.d.fix:
        return None
    v, facts = c.view, ""
    ini = v.initiating
    if v.numbers.oom is not None:
        facts = _oom_facts(c)
    elif ini is not None and ini.inferred:
        facts = t.likely_start(f"rank {ini.rank}", "", ini.suspect or t.category_words(v.category))
    elif v.numbers.kill is not None and ini is not None:
        k = v.numbers.kill[0]
        rss = f" with {gib(k.anon_rss_gib)} resident" if k.anon_rss_gib is not None else ""
        facts = t.kill_fix_facts(str(ini.rank), k.pid, rss)
    elif ini is not None:
        facts = t.failure_on(t.category_words(v.category), ini.rank, ini.node)
    elif (end := answer_job.scheduler_end(c)) is not None:  # no rank started it: the scheduler's end
        facts = answer_job.end_sentence(end)
    steps = list(c.steps) if c.entry else [c.d.fix]
    snippet = c.d.fix_snippet or (fill(c.entry.fix.snippet, JobFacts()).strip() if c.entry else "")  # fitted
    asked, command = answer_fixfit.fitted(c, m)  # the code line, a grep, the batch step, fp16 or not
    if answer_mechanism.per_rank(c) and asked and ini is not None:
        facts = t.failure_on(t.category_words(v.category), ini.rank, ini.node)  # the line says what holds it
    first = t.fix_for_job(facts) if facts else t.FIX_ONLY
    parts = (asked, first) if answer_fixfit.NUMBER_Q.search(m.text) else (first, asked)
    lead = " ".join(x for x in parts if x)  # "what number do I change?": that number leads
    code = f"{command}\n\n{snippet}".strip() if command else snippet
    return reply("fix", lead, v.key_line(), bullets=steps, code=code)


def _oom_facts(c: Ctx) -> str:
    """How much more the OOM needed, and whether the reserved-but-unallocated memory would cover it."""
    v, ini = c.view, c.view.initiating
    assert v.numbers.oom is not None
    o = v.numbers.oom[0]
    spare, short = o.reserved_unallocated_gib, o.short_gib
    covers = spare is not None and short is not None and spare >= short
    gpu = f"GPU {o.gpu}" if o.gpu is not None else "its GPU"
    reserved = gib(spare) if spare is not None else None
    return t.oom_fix_facts(str(ini.rank) if ini else "?", gib(short), gpu, reserved, covers)


def verify(c: Ctx, m: Match) -> Reply | None:
    command = c.d.verify or (c.entry.verify if c.entry else "")
    if not command:
        return None
    if (limit := answer_job.limit_check(c, m)) is not None:
        return replace(limit, intent="verify")  # "how do I check what limit it had": the accounting
    ini = c.view.initiating
    lead = t.VERIFY_LEAD
    action = _own_action(c.entry.faq.cheapest_confirmation, command) if c.entry else ""
    short = answer_trial.short_run(c, m.text)  # "w/o burning another 100 steps": a run that reaches it sooner
    if ini is not None and ini.last_step is not None and not short:
        action = (t.verify_then(ini.rank, ini.last_step) + " " + action).strip()
    if desync := answer_code.desync_note(c):  # what must hold after the fix: every rank, same call
        lead = f"{lead} {desync} {tf.SAME_COLLECTIVE}"
    action = f"{short} {action}".strip()
    if _HOST_MEMORY_ASKED.search(m.text) and c.d.category in _HOST_MEMORY and "dmesg" not in command:
        node = (
            ini.node if ini is not None and ini.node else "the node that failed"
        )  # "confirm it was memory?"
        lead = f"{tf.CHECK_LEAD.format(node=node)} `{tf.KERNEL_OOM_CHECK.split('  #')[0]}`. {lead}"
    return reply("verify", lead, code=command, action=action)


def check_command(c: Ctx, m: Match) -> Reply | None:
    """ "What do I run to check the mount?", "how do I find out what's holding it?": the entry's check
    command now, on the failing rank's node (the same command that later verifies the fix). Why: an
    on-call engineer wants the command first, not the diagnosis again."""
    command = c.d.verify or (c.entry.verify if c.entry else "")
    if not command:
        return None
    held = answer_quote.port(c, m)  # "what's holding it?": the port, then the command that shows its holder
    if held is not None and held.code:
        return held
    if (limit := answer_job.limit_check(c, m)) is not None:
        return limit
    ini = c.view.initiating
    node = ini.node if ini is not None and ini.node else "the node that failed"
    action = _own_action(c.entry.faq.cheapest_confirmation, command) if c.entry else ""
    victims = answer_launcher.named_victims(
        c, m.ranks
    )  # "r1-3 errored too? + cmd to check": they were victims
    if _REPRO.search(m.text):  # "quickest way to repro this?": only a command that relaunches the job does
        if not _REPRODUCES.search(command):
            return None
        return reply("command", tf.REPRO_LEAD, code=command, action=action)
    lead = f"{victims} {tf.CHECK_LEAD.format(node=node)}".strip()
    if _RAM_ASKED.search(m.text) and "dmesg" not in command:  # "run what on the box to confirm it was RAM"
        command = f"{command}\n{tf.KERNEL_OOM_CHECK}"
    return reply("command", lead, code=command, action=action)


#: asks to confirm host memory on the box: the kernel's log says whether the OOM killer acted
_RAM_ASKED = re.compile(r"\b(?:ram|host memory|system memory|oom[- ]?kill\w*|dmesg|kernel log)\b")


#: asks to confirm the cause was host memory, in a host-memory job: the kernel's record answers it, the
#: fix's own check (an RSS measurement) does not
_HOST_MEMORY_ASKED = re.compile(
    r"\b(?:confirm|prove|sure|really|actually|was it|it was)\b.{0,60}"
    r"\b(?:ram|memory|oom[- ]?kill\w*|oom|killer|dmesg|kernel log)\b",
    re.I,
)
_HOST_MEMORY = frozenset({"host_oom", "cpu_oom_checkpoint", "dataloader_worker_killed"})

_REPRO = re.compile(r"\brepro(?:duce|ducing)?\b")
#: a check command the entry itself says reproduces the failure, or a short relaunch with a debug
#: switch that reports the cause (a desync check run before the fix names the mismatch); not one that
#: only runs the fixed job
_REPRODUCES = re.compile(
    r"\breproduc|\b\w*(?:DEBUG|FAULTHANDLER)\w*=\S+.*\b(?:torchrun|deepspeed|srun|python)\b", re.I
)


def alternatives(c: Ctx, m: Match) -> Reply | None:
    v = c.view
    if not v.alternatives:
        return reply("alternatives", t.NOTHING_ELSE + t.this_job(v.title or v.category, v.confidence))
    best = v.alternatives[0]
    why = best.why or "weaker evidence"
    if best.confidence < CLOSE_SHARE * v.confidence:
        lead = t.nothing_close(best.title, best.confidence, v.confidence, why)
    else:
        lead = t.runner_up(best.title, best.confidence, v.confidence, why)
    rest = [f"{a.title} ({a.confidence:.2f}): {a.why or 'weaker evidence'}" for a in v.alternatives[1:5]]
    return reply("alternatives", lead, v.key_line(), bullets=rest)


def explain(c: Ctx, m: Match) -> Reply | None:
    term = find(m.text, c.glossary)
    if term is None:
        return None
    lead = t.term(term.name, term.text)
    value, shown = answer_setting.value_said(c, m, term)  # "… was it even on?": its value here, first
    lead = f"{value} {lead}".strip()
    used = c.entry is not None and any(
        k.lower() in {x.lower() for x in fix_terms(c.entry)} for k in (term.name, *term.aliases)
    )
    if number := answer_more.collective_number(m):  # "what does 'all_reduce #5' mean? #5 of what?"
        lead += " " + number + answer_dumps.states(c, m)
    if saved := answer_quote.saving_note(c, term.name):  # the term is in the failing line of a save
        lead += " " + saved
    if _WOULD_HELP.search(m.text) and c.view.numbers.oom is not None and term.name in _ALLOCATOR_TERMS:
        lead += " " + t.fix_for_job(_oom_facts(c))  # "would expandable_segments have saved us here?"
    elif _CAUSE_Q.search(m.text) and (step := _step_about(c, f"{term.name} {term.text}")):
        lead += " " + tf.TERM_AND_FIX.format(what=t.category_words(c.view.category), step=step)
    elif used and _SET_Q.search(m.text) and (named := _steps_naming(c, term.name)):  # "what do I flip it to?"
        lead += " " + tf.TERM_SET.format(steps=" ".join(named))
    code = answer_fixfit.grep_command(c) if answer_fixfit.GREP_Q.search(m.text) else ""
    if code:  # "how do I find every other FullStateDictConfig in our code?"
        lead += " " + tj.GREP_OTHERS
    action = t.term_in_fix(term.name) if used else ""
    return reply("explain", lead, shown, action=action, code=code)


#: "what do I flip it to?", "what should it be set to?", "which value?"
_SET_Q = re.compile(
    r"\b(?:set|flip|change|switch|turn|put)\b[^?]{0,80}\bto\b|\bwhat (?:value|should it be)\b"
    r"|\bshould (?:it|i) (?:be|set)\b|\b(?:true|false|on|off) or (?:true|false|on|off)\b"
)


def _steps_naming(c: Ctx, name: str) -> list[str]:
    """The entry's fix steps that name the term, with the step after the first (what follows it)."""
    steps = list(c.steps)
    idx = [i for i, s in enumerate(steps) if name.lower() in s.lower()]
    if not idx:
        return []
    chosen = sorted({idx[0], min(idx[0] + 1, len(steps) - 1)})
    return [steps[i] for i in chosen]


#: "I use X: is that the problem?": the term put forward as the cause
_CAUSE_Q = re.compile(r"\b(?:problem|cause|culprit|reason|to blame|instead)\b|\bis (?:that|this) it\b")


def _step_about(c: Ctx, text: str) -> str:
    """The entry's fix step sharing the most words with `text` (a term and its meaning), "" when none
    shares at least two: the step that deals with what the question names."""
    words = set(tokens(text)) - _COMMON
    scored = [(len(words & set(tokens(s))), -i, s) for i, s in enumerate(c.steps)]
    best = max(scored, default=(0, 0, ""))
    return best[2] if best[0] >= 2 else ""


#: words too common in fix steps and term texts to tie one to the other
_COMMON = frozenset({"need", "one", "use", "when", "not", "all", "each", "run", "set"})

#: "... and would it have helped / saved us here?"
_WOULD_HELP = re.compile(
    r"\b(?:would|will|could|does|did|can)(?: it| that| this)?(?: have)? "
    r"(?:help|helped|save|saved|fix|fixed|work|worked|prevent|prevented)"
)
#: the allocator settings whose effect this job's OOM figures decide
_ALLOCATOR_TERMS = frozenset(
    {"expandable_segments", "max_split_size_mb", "PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold"}
)


def activity(c: Ctx, m: Match) -> Reply | None:
    base = _activity(c, m)
    if base is not None and (work := answer_workseq.counts(c, m))[0]:  # "their last completed work?"
        base = reply("activity", f"{base.lead} {work[0]}", [*base.lines, *work[1]])
    timeout = answer_checks.timeout_fact(c, m)
    if base is None or not timeout or timeout in base.lead:
        return base
    return reply("activity", f"{timeout} {base.lead}", base.lines)


def _activity(c: Ctx, m: Match) -> Reply | None:
    col = c.d.collectives
    if col.activity:
        rows = []
        for a in col.activity:
            seq = f" #{a.seq_id}" if a.seq_id is not None else ""
            state = f" ({a.state})" if a.state else ""
            rows.append(
                t.activity_group(rl(a.ranks), a.op or "no op", seq, a.group_desc or a.group_id, state)
            )
        suspects = [f"rank {s.rank} {s.why}" for s in col.suspects[:3]]
        return reply("activity", t.from_dumps(col.dumps, rows, suspects))
    v = c.view
    groups: dict[str, list[int]] = {}
    for r in v.ranks.values():
        groups.setdefault(_doing_text(c, r), []).append(r.rank)
    rows = [t.activity_from_logs(rl(ranks), what) for what, ranks in groups.items()]
    return reply("activity", t.NO_DUMPS + " " + " ".join(rows), v.key_line())


def _doing_text(c: Ctx, r: RankView) -> str:
    v = c.view
    if r.role == "initiating":
        return f"{t.category_words(v.category)} ({ref(r.first_line)})"
    if r.role == "collateral":
        wait = wait_text(v, r).strip().removeprefix("It ").rstrip(".")
        ini = v.initiating
        gap = seconds_between(ini.first_time, r.first_time) if ini is not None else None
        later = f", {duration(gap)} after rank {ini.rank}" if ini is not None and gap else ""
        return (wait or r.what or t.category_words(r.category)) + later
    return "no error line" if r.role == "healthy" else "no log"


#: a question about how long a fix takes, not how to do it ("eta?", "how much work is it?")
_TIME_Q = re.compile(
    r"\bhow (?:long|much (?:time|work|effort)|hard|quick|fast|big a job)\b|\beta\b|\beffort\b"
    r"|\btime to fix\b|\btake to fix\b|\b(?:minutes|hours|days)\b"
)


def fix_time(c: Ctx, m: Match) -> Reply | None:
    """How long the fix takes (the entry's FAQ), only when that is what was asked: a how-to question
    that shares the words ("what do I put in the sbatch so next time…") gets the fix, not this."""
    if c.entry is None or not _TIME_Q.search(m.text):
        return None
    return reply("fix_time", c.entry.faq.fix_time)


def _own_action(action: str, command: str) -> str:
    """The FAQ's confirmation, unless it only says the command again (`sacct …` twice)."""
    only = action.strip().rstrip(".").strip()
    if not (only.startswith("`") and only.endswith("`") and only.count("`") == 2):
        return action
    words = set(re.split(r"[\s,]+", only.strip("`")))
    return "" if words <= set(re.split(r"[\s,]+", command)) else action


def history(c: Ctx, m: Match) -> Reply | None:
    """Earlier incidents of this failure mode from the workspace's incident history."""
    if c.past is None:
        return reply("history", t.HISTORY_UNKNOWN, known=False)
    title = c.d.entry.title if c.d.entry else c.d.category
    if not c.past:
        return reply("history", t.history_none(title))
    shown = [t.history_item(p.job, p.at, p.node, p.permalink, p.fix) for p in c.past]
    r = reply("history", t.history_seen(title, len(c.past)))
    r.bullets = shown
    r.material.extend(shown)
    return r
