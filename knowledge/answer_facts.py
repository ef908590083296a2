"""Answers about what happened in this job: which rank, why, when, how many, doing what.

Each handler leads with this job's facts (`JobView`) and quotes the lines that show them; a handler
returns None when the facts cannot answer its question, so the next intent (or the help) answers.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import followups_job as tj
from denpex.core.texts import thread as t
from knowledge import answer_job, answer_launcher, answer_more, answer_silent, answer_where, answer_where_ckpt
from knowledge.answer_pace_ranks import last_to_die, memory_compare, others_waited
from knowledge.answer_types import Ctx, Reply, at, at_rank, duration, first_sentence, ref, reply, where
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import JobView, RankView, rank_numbers, seconds_between
from knowledge.wording import phase_words

TAIL_LINES = 15
#: "victims?", "just collateral or their own problem?", "is that the real failure?"
VICTIM_Q = re.compile(
    r"\bvictims?\b|\bcollateral\b|\btheir own (?:problem|fault|error|issue|bug)\b"
    r"|\breal (?:failure|cause|error)\b|\b(?:separate|own) (?:problem|issue|fault)s?\b"
    r"|\bjust (?:waiting|fallout|a symptom)\b"
)
#: asks when the job started too ("start time and death time?"): the logs' span is told
_STARTED = re.compile(
    r"\bstart(?:ing)? (?:time|timestamp)s?\b|\bstart (?:and|&|/|\+|to) (?:end|finish|stop|death|crash)\b"
    r"|\b(?:when|what time) did (?:it|the job|this job|this|training|the run) (?:start|begin)\b"
)
_RUNTIME = re.compile(
    r"how long (?:did|was) (?:the job|it|training) (?:run|running|up|going)|\bruntime\b|\bduration\b"
)


def _gpu(v: JobView, r: RankView) -> str | None:
    """The device a rank used: the OOM message's `GPU N`, the Xid's PCI id, or NCCL's bus id."""
    n = rank_numbers(v, r)
    if n.oom is not None and n.oom[0].gpu is not None:
        return f"GPU {n.oom[0].gpu}" + (f", PCI {r.gpu}" if r.gpu else "")
    if r.role == "initiating" and n.xid is not None:
        return f"GPU at PCI {n.xid[0].pci}"
    return f"GPU at PCI {r.gpu}" if r.gpu else None


def _target(c: Ctx, m: Match) -> RankView | None:
    return c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating


def _doing(r: RankView) -> str:
    return f" while {phase_words(r.phase)}" if r.phase else ""


def _step(r: RankView) -> str:
    return f" (last step logged: step {r.last_step})" if r.last_step is not None else ""


def _gap(v: JobView) -> float | None:
    ini = v.initiating
    return seconds_between(ini.first_time, v.first_collateral_time()) if ini is not None else None


def _later(gap: float | None) -> str:
    return f"{duration(gap)} later" if gap is not None and gap > 0 else "after it"


def _waited(ranks: list[RankView]) -> bool:
    """Did every collateral rank wait on the initiating one (the engine's reason), not just fail later?"""
    return all("waited" in r.why for r in ranks)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


_PID = re.compile(r"\bpids?\b|\bprocess(?:es)?\b")


def which_rank(c: Ctx, m: Match) -> Reply | None:
    """Which rank failed first (or the named rank's place); asked also where the ranks were or what
    its own log said, those facts too."""
    base = _which_rank(c, m)
    if base is None:
        return None
    extra, lines = answer_where.which_extra(c, m, _target(c, m), base.lead)
    last, shown = last_to_die(c, m)  # "which rank was last to die, and when"
    mem = memory_compare(c, m)  # "was rank 5 using more memory than the others"
    waited = others_waited(c, m)  # "which rank started it and did the rest just wait?"
    extra = " ".join(x for x in (last, extra, mem, waited) if x and x not in base.lead)
    lines = [*shown, *lines]
    if not extra:
        return base
    return reply(
        "which_rank", f"{base.lead} {extra}", [*base.lines, *(x for x in lines if x not in base.lines)]
    )


def _which_rank(c: Ctx, m: Match) -> Reply | None:
    v = c.view
    if m.rank is not None and m.rank != (v.initiating.rank if v.initiating else None):
        r = v.ranks.get(m.rank)
        if r is None:
            return None
        lead = t.rank_place(r.rank, r.node, _gpu(v, r), r.role)
        return reply("which_rank", lead, [r.first_line] if r.first_line else [])
    ini = v.initiating
    if no_worker_started(c):
        return reply(
            "which_rank", tf.NO_RANK_STARTED.format(what=t.category_words(v.category)), v.evidence[:1]
        )
    if ini is None and (job := answer_job.story(c, m)) is not None:
        return job  # a scheduler's kill: the job's end, not "no single rank"
    if ini is None:
        suspects = ", ".join(f"rank {s.rank}: {s.why}" for s in c.d.collectives.suspects[:3])
        return reply(
            "which_rank",
            t.NO_SINGLE_RANK + (f" The collective traces implicate {suspects}." if suspects else ""),
        )
    if ini.inferred:
        why = ini.suspect or first_sentence(c.d.root_cause)
        lead = t.likely_start(_cap(where(ini, _gpu(v, ini))), at_rank(ini), why)
        coll = v.with_role("collateral")
        if coll:
            lead += " " + t.collateral_after(
                len(coll), rl(coll), "while it was missing", ini.rank, _waited(coll)
            )
        return reply("which_rank", lead, v.evidence[:2])
    lead = t.first_failure(
        _cap(where(ini, _gpu(v, ini))),
        t.category_words(v.category),
        at_rank(ini),
        _doing(ini) + _step(ini),
    )
    coll = v.with_role("collateral")
    if coll:
        lead += " " + t.collateral_after(len(coll), rl(coll), _later(_gap(v)), ini.rank, _waited(coll))
    note = _engine_note(c)
    lead += f" {note}" if note else ""
    if _PID.search(m.text) and v.numbers.kill is not None:  # "which node and pid got killed"
        lead += " " + t.killed_pid(v.numbers.kill[0].pid)
    elif _PID.search(m.text) and (pid := answer_more.launcher_pid(c, ini)):
        lead += " " + pid
    lines = v.key_line()
    shown = v.phase_line_of(ini)
    if shown is not None and shown not in lines:
        lines.append(shown)
    return reply("which_rank", lead, lines)


def _engine_note(c: Ctx) -> str:
    """What the engine said about naming this rank (a desync report, a silence), ahead of the entry's text."""
    if c.entry is None or c.entry.root_cause not in c.d.root_cause:
        return ""
    return c.d.root_cause.split(c.entry.root_cause, 1)[0].strip()


def rank_why(c: Ctx, m: Match) -> Reply | None:
    """Why the rank failed; a collateral rank's answer also says where it waited (its collective and
    line), a first rank's its batch when asked what set it apart."""
    base = _rank_why(c, m)
    r = _target(c, m)
    if base is None or r is None or (m.rank is not None and m.rank not in c.view.ranks):
        return base
    extra, lines = answer_where.rank_extra(c, m, r, base.lead)
    waited = others_waited(c, m)  # "why did the other 7 sit there for ages"
    mem = memory_compare(c, m) if r.role == "initiating" else ""  # "why only rank 5?": its memory vs theirs
    extra = " ".join(x for x in (waited, extra, mem) if x and x not in base.lead)
    if not extra:
        return base
    return reply(
        "rank_why", f"{base.lead} {extra}", [*base.lines, *(x for x in lines if x not in base.lines)]
    )


def _rank_why(c: Ctx, m: Match) -> Reply | None:
    v = c.view
    if no_worker_started(c):  # "is it rank 0's fault?": no rank ran at all
        return reply("rank_why", tf.NO_RANK_STARTED.format(what=t.category_words(v.category)), v.evidence[:1])
    if m.rank is not None and m.rank not in v.ranks:
        world = v.world_size or len(v.ranks)
        return reply("rank_why", t.no_such_rank(m.rank, world), known=False) if world else None
    r = _target(c, m)
    if r is None:
        return answer_job.story(c, m, "rank_why")
    if v.initiating is None and r.role == "collateral" and (signalled := answer_job.rank_signalled(c, r)):
        return signalled  # "why did rank 2 die?" in a scheduler's kill: it was signalled with the rest
    if r.role == "initiating" and r.inferred:
        why = r.suspect or first_sentence(c.d.root_cause)
        return reply("rank_why", t.likely_start(f"Rank {r.rank}", at_rank(r), why), v.evidence[:2])
    if r.role == "initiating":
        lead = t.rank_initiating(
            r.rank, t.category_words(v.category) + _doing(r), at_rank(r), ref(r.first_line)
        )
        root = first_sentence(c.d.root_cause)
        lead += f" {root}." if root else ""
        return reply("rank_why", lead + _exit(v, r), v.evidence[:3])
    if r.role == "collateral":
        ini = v.initiating
        gap = seconds_between(ini.first_time, r.first_time) if ini is not None else None
        why = r.why or (f"it failed {_later(gap)} than rank {ini.rank}" if ini is not None else "")
        if ini is not None and gap is not None and gap > 0 and "waited" in why:
            why += f", which had failed {duration(gap)} earlier"
        if ini is not None and f"rank {ini.rank}" not in why:
            why = _victim(why, ini, gap, t.category_words(ini.category or v.category))
        if ini is not None and r.first_line is not None and _PEER_GONE.search(r.first_line.text):
            why += tf.PEER_GONE.format(rank=ini.rank)  # "why does it say connection closed?"
        lead = (
            t.rank_collateral(r.rank, t.collateral_end(r.what, r.category), at_rank(r), why)
            + wait_text(v, r)
            + _exit(v, r)
        )
        lines = [r.first_line] if r.first_line else []
        if ini is not None and ini.first_time and VICTIM_Q.search(m.text):  # "was that the real failure?"
            lead += " " + tj.WHEN_VICTIM.format(
                rank=r.rank, ini=ini.rank, at=at_rank(ini), ref=ref(ini.first_line)
            )
            lines += [ini.first_line] if ini.first_line is not None else []
        return reply("rank_why", lead, lines)
    if r.role == "missing":
        return reply("rank_why", t.rank_missing(r.rank), known=False)
    return reply("rank_why", t.rank_healthy(r.rank, _step(r)), [r.last_step_line] if r.last_step_line else [])


def no_worker_started(c: Ctx) -> bool:
    """The launcher failed before any worker ran: then no rank is to blame, no step ran and nothing was
    saved (`answer_job` holds the test)."""
    return answer_job.no_worker_started(c)


def _job_phase(c: Ctx) -> Reply | None:
    """What the job was doing when no single rank is named (a launcher or rendezvous failure)."""
    ini = c.d.initiating
    if not ini.phase:
        return None
    shown = ini.phase_evidence
    lead = t.phase_of("The job", phase_words(ini.phase), "", f" ({ref(shown)})" if shown else "")
    if no_worker_started(c):  # "did my code even run?": no, and what stopped it first
        lead += " " + (tf.NO_WORKER_RENDEZVOUS if ini.phase == "rendezvous" else tf.NO_WORKER_RAN)
    progress, step = answer_job.last_progress(c)  # how far it got before the scheduler ended it
    lead += f" {progress}" if progress else ""
    return reply("phase", lead, [x for x in (shown, *ini.evidence[:1], *step) if x is not None])


def _victim(why: str, ini: RankView, gap: float | None, what: str) -> str:
    """A collateral rank's reason naming whose failure took it down: rank N's, when, how much earlier."""
    whose = tf.victim_of(ini.rank, what, at_rank(ini), duration(gap) if gap else "")
    if "a victim" in why:
        return why.replace("a victim", whose, 1)
    return f"{why}; likely {whose}" if why else f"likely {whose}"


def wait_text(v: JobView, r: RankView) -> str:
    w = rank_numbers(v, r).watchdog
    if w is None or (w[0].op is None and w[0].timeout_s is None):
        return ""
    wd = w[0]
    op = (wd.op or "a collective") + (f" (SeqNum {wd.seq})" if wd.seq is not None else "")
    if wd.elapsed_s is not None:
        timeout = f" (timeout {duration(wd.timeout_s)})" if wd.timeout_s is not None else ""
        return " " + t.waited(op, "", duration(wd.elapsed_s), timeout)
    limit = f"the {duration(wd.timeout_s)} timeout" if wd.timeout_s is not None else "the timeout"
    return " " + t.waited_until(op, limit)


#: a collective's socket closed or reset by the other side: the peer process had gone
_PEER_GONE = re.compile(r"Connection (?:closed|reset) by peer", re.I)


def _exit(v: JobView, r: RankView) -> str:
    e = rank_numbers(v, r).exit
    if e is None:
        return ""
    code = f"exit code {e[0].code}" if e[0].code is not None else ""
    said = t.exit_with([x for x in (code, e[0].signal or "") if x])
    if e[1] < 0 and r.exit_line is not None:  # from its own exit report: cite that line
        said = f"{said[:-1]} ({ref(r.exit_line)})."
    return said


def when(c: Ctx, m: Match) -> Reply | None:
    v = c.view
    if len(m.ranks) >= 2 and (compared := answer_where.compare(c, m)) is not None:
        return compared
    r = _target(c, m)
    if r is not None and m.rank is not None and r.role != "initiating":
        if not r.first_time:
            return None
        ini = v.initiating
        gap = seconds_between(ini.first_time, r.first_time) if ini is not None else None
        after = tff.gap_after(duration(gap), ini.rank, ini.borrowed) if ini is not None and gap else ""
        lead = t.rank_first_failed(r.rank, at_rank(r), after)
        lines = [r.first_line] if r.first_line else []
        if ini is not None and r.role == "collateral" and ini.first_time:  # "the real failure or a victim?"
            lead += " " + tj.WHEN_VICTIM.format(
                rank=r.rank, ini=ini.rank, at=at_rank(ini), ref=ref(ini.first_line)
            )
            lines += [ini.first_line] if ini.first_line is not None else []
        return reply("when", lead, lines)
    span = seconds_between(v.start, v.end)
    if v.initiating is None and (job := answer_job.story(c, m, "when")) is not None:
        return job  # "how long was it up before it got killed?": the job's span and the scheduler's end
    if _RUNTIME.search(m.text) and v.start and v.end and span is not None:
        return reply("when", t.job_span(at(v.start)[4:], at(v.end)[4:], duration(span)))
    ini = v.initiating
    if ini is None or not ini.first_time or answer_silent.silent(ini):
        coll, first = v.with_role("collateral"), v.first_collateral_time()
        if not coll or not first:
            return None
        timed = [x.first_line for x in coll if x.first_time == first and x.first_line]
        lead = t.untimed_start(ini.rank if ini else None, at(first), rl(coll))
        quiet = answer_silent.quiet(c, ini) if ini is not None else ""
        if _STARTED.search(m.text) and v.start and v.end and span is not None:  # "start time and death time?"
            quiet += " " + t.job_span(at(v.start)[4:], at(v.end)[4:], duration(span))
        return reply("when", f"{lead} {quiet}".strip(), timed[:1])
    lead = t.first_only(ini.rank, at_rank(ini))
    coll = v.with_role("collateral")
    first_coll = v.first_collateral_time()
    lines = v.evidence[:1]
    if coll and first_coll:
        later = _later(_gap(v))
        firsts = [x for x in coll if x.first_time == first_coll and x.first_line]
        coll_at = at_rank(firsts[0]) if firsts else at(first_coll)
        lead = t.first_then_collateral(ini.rank, at_rank(ini), later, coll_at, len(coll), rl(coll))
        lines += [firsts[0].first_line] if firsts and firsts[0].first_line else []
    if v.start and v.end and span is not None:
        lead += " " + t.job_span(at(v.start)[4:], at(v.end)[4:], duration(span))
    if step := answer_more.last_step(c, ini):
        lead += " " + step
    if what := answer_where.what_failed(c, ini, lead):
        lead += " " + what
    return reply("when", lead, lines)


def ranks_count(c: Ctx, m: Match) -> Reply | None:
    v = c.view
    if answer_job.no_single_rank(c) and (job := answer_job.story(c, m, "ranks_count")) is not None:
        return job  # no rank started it: the scheduler's kill of every rank, or no worker at all
    ini, coll = v.initiating, v.with_role("collateral")
    failed = len(coll) + (1 if ini is not None else 0)
    world = v.world_size or "?"
    first = f"rank {ini.rank} first" if ini is not None else "no single first rank"
    later = _later(_gap(v))
    extra = f", then {len(coll)} collateral ({rl(coll)}), {later}" if coll and later != "after it" else ""
    extra = extra or (f", then {len(coll)} collateral ({rl(coll)})" if coll else "")
    lead = t.counts(failed, world, first, extra)
    healthy, missing = v.with_role("healthy"), v.with_role("missing")
    if healthy:
        lead += " " + t.no_error_from(rl(healthy))
    if missing:
        lead += " " + t.no_log_from(rl(missing))
    if waited := others_waited(c, m):  # "which process hit it and the other 3 just sat waiting?"
        lead += " " + waited
    if v.nodes:
        lead += " " + t.ran_on(v.nodes)
    if VICTIM_Q.search(m.text) and (said := answer_launcher.victims(c, list(m.ranks))):
        lead = f"{said} {lead}"  # "do those have their own problem or are they just collateral?"
    return reply("ranks_count", lead, v.key_line())


def phase(c: Ctx, m: Match) -> Reply | None:
    """What the rank was doing; asked about its batch ("whats the batch shape") or its pace ("secs per
    step?"), its batch line or its step rate too."""
    base = _phase(c, m)
    if base is not None and answer_where.RATE_Q.search(m.text) and (rate := answer_where.step_rate(c)):
        base = reply("phase", f"{base.lead} {rate}", base.lines)  # "secs per step? how far did we get"
    if base is not None and (ck := answer_where_ckpt.checkpoint_state(c, m, base.lead))[0]:
        base = reply("phase", f"{ck[0]} {base.lead}", [*ck[1], *(x for x in base.lines if x not in ck[1])])
    if base is None or _target(c, m) is None:
        return base
    extra, lines = answer_where.batch_said(c, m, base.lead)
    if not extra:
        return base
    return reply("phase", f"{base.lead} {extra}", [*base.lines, *(x for x in lines if x not in base.lines)])


def _phase(c: Ctx, m: Match) -> Reply | None:
    v = c.view
    r = _target(c, m)
    if r is None:
        return _job_phase(c)
    if r.role == "collateral" and v.initiating is not None:
        w = rank_numbers(v, r).watchdog
        gap = seconds_between(v.initiating.first_time, r.first_time)
        if w is not None:
            seq = f" (SeqNum {w[0].seq})" if w[0].seq is not None else ""
            earlier = f", which had failed {duration(gap)} earlier" if gap else ""
            lead = t.waiting_for(
                r.rank, (w[0].op or "a collective") + seq, v.initiating.rank, earlier, _step(r)
            )
            return reply("phase", lead, [r.first_line] if r.first_line else [])
    if r.role in ("healthy", "missing"):
        return reply(
            "phase", t.rank_healthy(r.rank, _step(r)) if r.role == "healthy" else t.rank_missing(r.rank)
        )
    if not r.phase:
        if r.last_step is None:
            return None
        lines = [r.last_step_line] if r.last_step_line else []
        return reply("phase", t.last_step_only(r.rank, r.last_step), lines)
    step = f" at step {r.last_step}{answer_more.step_of_total(c, r)}" if r.last_step is not None else ""
    shown = v.phase_line_of(r)
    lead = t.phase_of(f"Rank {r.rank}", phase_words(r.phase), step, f" ({ref(shown)})" if shown else "")
    if re.search(r"checkpoint|saving|save", m.text) and r.phase != "checkpoint_save":
        lead = t.not_checkpoint(phase_words(r.phase) + step) + " " + lead
    lines = [x for x in (shown, r.first_line, r.last_step_line) if x is not None]
    return reply("phase", lead, lines[:3])


__all__ = [
    "phase",
    "rank_why",
    "ranks_count",
    "wait_text",
    "when",
    "which_rank",
]
