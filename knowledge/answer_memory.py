"""The memory answer: the figures of this job's memory error, and which memory it was.

"how much did it try to grab", "was it GPU memory or system RAM": a CUDA OOM's asked/free/short
figures, a kernel OOM kill's victim and resident size, a host allocator failure's size. Which kind of
memory ran out is said outright (host RAM or GPU memory), first when the question offers a choice,
since people mix the two up and the fix differs.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_job as tj
from denpex.core.texts import thread as t
from knowledge import (
    answer_checks,
    answer_evidence,
    answer_facts,
    answer_hostram,
    answer_job,
    answer_leak,
    answer_mechanism,
    answer_more,
    answer_where_ckpt,
)
from knowledge import evidence_numbers as num
from knowledge.answer_types import Ctx, Reply, gib, reply
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import JobView, RankView, rank_numbers
from knowledge.wording import phase_words

#: a question naming a kind of memory: on the GPU, or the host's
_GPU_KIND = re.compile(r"\b(?:gpu|vram|cuda|device|hbm)\b")
_HOST_KIND = re.compile(r"\b(?:host|system|cpu|ram|dram|rss|kernel)\b")
_CHOICE = re.compile(r"\bor\b|\bvs\.?\b|\bversus\b")
#: a question about a process id: a memory question only when the kernel's OOM report names one
_PID_Q = re.compile(r"\bpids?\b")
_HOST_CATEGORIES = frozenset({"host_oom", "cpu_oom_checkpoint"})


def _target(c: Ctx, m: Match) -> RankView | None:
    return c.view.ranks.get(m.rank) if m.rank is not None else c.view.initiating


def _doing(r: RankView) -> str:
    return f" while {phase_words(r.phase)}" if r.phase else ""


def kind(c: Ctx, nums: num.Numbers) -> str | None:
    """Which memory ran out: "gpu" (a CUDA OOM), "host" (a kernel kill, a CPU allocator), else None."""
    if nums.oom is not None:
        return "gpu"
    if nums.kill is not None or nums.host is not None or c.view.category in _HOST_CATEGORIES:
        return "host"
    return None


def with_kind(c: Ctx, m: Match, base: Reply, nums: num.Numbers) -> Reply:
    """The kind of memory said outright: first, against the other kind, when asked "GPU or system
    memory?"; else (a host failure whose figures do not say it) after the figures."""
    which = kind(c, nums)
    if which is None:
        return base
    gpu, host = bool(_GPU_KIND.search(m.text)), bool(_HOST_KIND.search(m.text))
    wrong = (gpu and not host and which == "host") or (host and not gpu and which == "gpu")
    if (_CHOICE.search(m.text) and gpu + host) or wrong:  # "is this a GPU OOM?": no, host RAM
        lead = f"{tf.memory_kind(which == 'host')} {base.lead}"
    elif which == "host" and not re.search(r"\bhost\b|\bsystem\b|\bRAM\b", base.lead):
        lead = f"{base.lead} {tf.memory_kind(True, contrast=False)}"  # unasked: no GPU to deny
    else:
        return base
    return reply("memory", lead, base.lines)


def _numbers(c: Ctx, m: Match) -> tuple[num.Numbers, RankView | None]:
    """The memory figures asked about: this rank's, else (it has none) the initiating rank's."""
    v = c.view
    r = _target(c, m) or v.initiating
    nums = rank_numbers(v, r) if r is not None else v.numbers
    if nums.oom is None and nums.kill is None and nums.host is None:
        return v.numbers, v.initiating
    return nums, r


def memory(c: Ctx, m: Match) -> Reply | None:
    """The figures of the memory error and what they imply, with the kind of memory that ran out; a
    host failure whose entry says every rank holds a copy, with that mechanism for this job."""
    nums, _ = _numbers(c, m)
    base = with_kind(c, m, _figures(c, m), nums)
    if kind(c, nums) != "host" or not answer_mechanism.per_rank(c):
        return base
    small = ""
    if nums.host is not None and nums.host[0] < 1:  # "16777216 bytes?? that's tiny"
        small = tj.SMALL_LAST.format(size=_size(nums.host[0]))
    lead = " ".join(x for x in (base.lead, small, answer_mechanism.mechanism(c)) if x)
    cause = answer_mechanism.cause_line(c)
    lines = base.lines + ([cause] if cause is not None and cause not in base.lines else [])
    return reply("memory", lead, lines)


def _figures(c: Ctx, m: Match) -> Reply:
    v = c.view
    nums, r = _numbers(c, m)
    who = f"Rank {r.rank}" if r is not None else "The failing rank"
    shown = _shown(v, r)
    if nums.oom is not None:
        return reply("memory", _oom_lead(who, nums.oom[0]), shown(nums.oom[1]))
    if nums.kill is not None:
        k = nums.kill[0]
        victim = f"rank {r.rank}'s process, " if r is not None else ""
        rss = f" with {gib(k.anon_rss_gib)} resident (anon-rss)" if k.anon_rss_gib is not None else ""
        lead = t.oom_kill_figures(victim, k.pid, k.process, rss, r.node if r is not None else None)
        return reply("memory", lead, shown(nums.kill[1]))
    if nums.host is not None:
        lead = t.host_alloc_figures(who, _doing(r) if r else "", _size(nums.host[0]))
        return reply("memory", lead, shown(nums.host[1]))
    if v.category in ("host_oom", "cpu_oom_checkpoint"):
        return reply("memory", t.host_oom_line(who, _doing(r) if r else ""), v.evidence[:2])
    lead = t.no_memory_figures(t.category_words(v.category))
    if sent := answer_job.signal_source(c):  # "who sent the 15, an OOM?": the scheduler, at its limit
        lead = sent
    return reply("memory", lead, v.key_line())


def _oom_lead(who: str, o: num.CudaOom) -> str:
    gpu = f"GPU {o.gpu}" if o.gpu is not None else "its GPU"
    total = f" ({gib(o.total_gib)} total)" if o.total_gib is not None else ""
    lead = t.oom_figures(who, gib(o.asked_gib), gib(o.free_gib), gpu, total, gib(o.short_gib))
    if o.reserved_unallocated_gib is not None and o.short_gib is not None:
        covers = o.reserved_unallocated_gib >= o.short_gib
        lead += " " + t.oom_reserved(gib(o.by_torch_gib), gib(o.reserved_unallocated_gib), covers)
    return lead


def _shown(v: JobView, r: RankView | None) -> Callable[[int], list[EvidenceLine]]:
    """The line a figure came from: an evidence line (initiating rank) or the rank's first line."""

    def line(index: int) -> list[EvidenceLine]:
        if r is None or r.role == "initiating":
            found = v.evidence_line(index)
            return [found] if found is not None else []
        return [r.first_line] if r.first_line is not None else []

    return line


def _size(value: float) -> str:
    return gib(value) if value >= 1 else f"{value * 1024:.0f} MiB"


#: a memory question that compares ranks ("was rank 5 using more than the others the whole run?")
_COMPARE = re.compile(
    r"\b(?:other ranks|the others|the rest|vs\.?|versus|compared|whole run|all along|every rank|each rank"
    r"|more (?:memory|mem|ram|vram) than|sitting at)\b"
)


def answer(c: Ctx, m: Match) -> Reply | None:
    """The memory answer; asked whether the checkpoint it hit exists, that checkpoint's state too."""
    base = _answer(c, m)
    if base is None:
        return None
    host = kind(c, c.view.numbers) == "host" or bool(answer_evidence.killed_unseen(c))
    base = answer_hostram.unseen(c, m.text, base, host)  # "how much RAM was free?": not in the logs
    said, lines = answer_where_ckpt.checkpoint_state(c, m, base.lead)
    if not said:
        return base
    return reply("memory", f"{said} {base.lead}", [*lines, *(x for x in base.lines if x not in lines)])


def _answer(c: Ctx, m: Match) -> Reply | None:
    """The memory figures; a SIGKILL no kernel line explains is said to be unproven first; named ranks
    without a memory error of their own are told so, with the line each did fail with."""
    v = c.view
    first = v.initiating
    if (leaked := answer_leak.leak(c, m)) is not None:
        return leaked  # "so rank 5 was leaking the whole run?": its figures over the steps, flat or not
    if first is not None and _PID_Q.search(m.text) and not _has_figures(v, first):
        return answer_facts.which_rank(c, m)  # "which pid should I hand over": the launcher's, not memory
    base = memory(c, m)
    if v.numbers.oom is None and v.numbers.host is None and (unseen := answer_evidence.killed_unseen(c)):
        return reply("memory", unseen, [x for x in (answer_evidence.sigkill_line(c),) if x is not None])
    if base is not None and (killer := answer_checks.killer_check(c, m)):
        return reply("memory", f"{killer} {base.lead}", base.lines)
    if base is not None and _COMPARE.search(m.text) and (by_rank := answer_more.memory_by_rank(c)):
        return reply("memory", f"{by_rank} {base.lead}", base.lines)
    named = [v.ranks[x] for x in (m.ranks or ((m.rank,) if m.rank is not None else ())) if x in v.ranks]
    bystanders = [r for r in named if r.role != "initiating" and not _has_figures(v, r)]
    if base is None or not bystanders or len(bystanders) < len(named):
        return base
    ini = v.initiating.rank if v.initiating else None
    own = [r.first_line for r in bystanders if r.first_line is not None]
    if len(bystanders) == 1:
        r = bystanders[0]
        return reply("memory", f"{tf.not_this_rank(r.rank, r.role, ini)} {base.lead}", [*base.lines, *own])
    lead = tf.NOT_THESE_RANKS.format(ranks=rl(bystanders), ini=ini if ini is not None else "?")
    return reply("memory", f"{lead} {base.lead}", [*base.lines, *own])


def _has_figures(v: JobView, r: RankView) -> bool:
    nums = rank_numbers(v, r)
    return nums.oom is not None or nums.kill is not None or nums.host is not None
