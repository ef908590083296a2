"""Facts an answer adds when the question asks for them: the last step of a timeline, the versions the
logs print, each rank's memory from its progress lines, the pid a launcher reported, the meaning of a
collective's `#N`.

Each function returns a sentence (or "") for the answer that asked; none of them answers alone.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups as tf
from denpex.core.texts import followups_facts as tff
from denpex.core.texts import followups_figures as tx
from denpex.core.texts import followups_job as tj
from knowledge import answer_launcher, answer_quote
from knowledge.answer_types import Ctx, rank_lines, ref, when
from knowledge.answer_types import rank_list as rl
from knowledge.intents import Match
from knowledge.jobfacts_answers import RankView, launcher_exits
from knowledge.lines import parse_step, parse_timestamp
from knowledge.wording import phase_words

# ---------------------------------------------------------------- timeline


def last_step(c: Ctx, r: RankView | None) -> str:
    """ "Its last logged step was 2000 (of 6000)." for a timeline; "" when no step was logged."""
    if r is None or r.last_step is None:
        return ""
    return tf.LAST_STEP.format(rank=r.rank, step=r.last_step, total=_of_total(r, c))


def went_quiet(c: Ctx, r: RankView) -> str:
    """When a rank named from the others' behaviour last wrote anything (its last line's time)."""
    lines = [ln for tl in c.d.tails if tl.rank == r.rank for ln in tl.lines]
    if r.last_step_line is not None:
        lines.append(r.last_step_line)
    for ln in reversed(lines):
        stamp = parse_timestamp(ln.text)
        if stamp is not None and not stamp.relative and (iso := stamp.iso()) is not None:
            return tf.WENT_QUIET.format(rank=r.rank, at=iso.replace("T", " ")[:19], ref=ref(ln), text=ln.text)
    return ""


_TOTAL = re.compile(r"\bstep[ =:]*[0-9]+ ?/ ?([0-9]+)\b|\b[0-9]+ ?/ ?([0-9]+) \[", re.IGNORECASE)


def _of_total(r: RankView, c: Ctx | None = None) -> str:
    lines = [r.last_step_line] if r.last_step_line is not None else []
    if c is not None:
        lines += [ln for src in rank_lines(c, r.rank).values() for ln in reversed(src)]
    for ln in lines:
        if (found := _TOTAL.search(ln.text)) is not None:
            return f" of {found.group(1) or found.group(2)}"
    return ""


def step_of_total(c: Ctx, r: RankView | None) -> str:
    """ "2001 of 6000": the planned total next to the step, when a progress line prints it."""
    return _of_total(r, c) if r is not None else ""


# ---------------------------------------------------------------- versions

_VERSIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "NCCL",
        re.compile(r"\bNCCL (?:version )?([0-9]+\.[0-9]+\.[0-9]+)|\"nccl_version\": ?\"([0-9.]+)", re.I),
    ),
    (
        "the NVIDIA driver",
        re.compile(r"Kernel Module +([0-9]{3}\.[0-9]+(?:\.[0-9]+)?)|Driver Version: +([0-9]{3}\.[0-9.]+)"),
    ),
    (
        "CUDA",
        re.compile(
            r"\bCUDA Version: +([0-9]+\.[0-9]+)|\+cuda([0-9]+\.[0-9]+)\b|\bcuda ?([0-9]+\.[0-9]+)\b"
            r"|\+cu([0-9]{3})\b"  # a wheel's tag: `2.5.1+cu124` is CUDA 12.4
        ),
    ),
    ("PyTorch", re.compile(r"\b(?:torch|pytorch)[ =_-]*(?:version)?[ :=]*v?([12]\.[0-9]+\.[0-9]+)", re.I)),
    (
        "DeepSpeed",
        re.compile(r"\bdeepspeed(?: info:)?(?: version)?[ :=v]{1,3}([0-9]+\.[0-9]+\.[0-9]+)", re.I),
    ),
    ("transformers", re.compile(r"\btransformers`?(?: version)?[ :=v]{1,3}([0-9]+\.[0-9]+\.[0-9]+)", re.I)),
)
_ASKED = {
    "NCCL": re.compile(r"\bnccl\b"),
    "the NVIDIA driver": re.compile(r"\bdriver\b"),
    "CUDA": re.compile(r"\bcuda\b"),
    "PyTorch": re.compile(r"\b(?:torch|pytorch)\b"),
    "DeepSpeed": re.compile(r"\bdeep ?speed\b"),
    "transformers": re.compile(r"\b(?:transformers|hf|hugging ?face)\b"),
}
#: versions said only when asked by name or printed (a job without DeepSpeed is not told it lacks one)
_OPTIONAL = frozenset({"DeepSpeed", "transformers"})


def _lines(c: Ctx) -> list[tuple[str | None, EvidenceLine]]:
    pools: list[tuple[str | None, EvidenceLine]] = [(n, ln) for n, ls in c.d.nodes.items() for ln in ls]
    pools += [(tl.node, ln) for tl in c.d.tails for ln in tl.lines]
    pools += [(None, ln) for ln in c.view.evidence]
    pools += [(None, ln) for ln in c.d.facts.versions]  # the versions the ranks printed at start-up
    return pools


def versions(c: Ctx, m: Match) -> str:
    """The versions asked for ("what nccl version was this?"), each from the line that prints it; a
    version asked for and not in the logs is said to be missing."""
    named = [name for name, rx in _ASKED.items() if rx.search(m.text)]
    asked = named or list(_ASKED)
    found: list[str] = []
    for name, rx in _VERSIONS:
        if name not in asked:
            continue
        hit = next(((n, ln, g) for n, ln in _lines(c) if (g := rx.search(ln.text))), None)
        if hit is None and name == "NCCL" and c.d.collectives.comm_lib_version:
            found.append(tf.VERSION_DUMPS.format(version=c.d.collectives.comm_lib_version))
            continue
        if hit is None and name == "NCCL" and (gloo := _gloo_line(c)) is not None:
            found.append(tf.VERSION_GLOO.format(ref=ref(gloo)))  # no NCCL in the job: no version to have
            continue
        if hit is None:
            if name not in _OPTIONAL or name in named:
                found.append(tf.VERSION_MISSING.format(what=name))
            continue
        node, ln, g = hit
        value = next(x for x in g.groups() if x)
        value = f"{value[:-1]}.{value[-1]}" if value.isdigit() else value  # `cu124`: CUDA 12.4
        found.append(
            tf.VERSION_SEEN.format(what=name, version=value, where=f" on {node}" if node else "", ref=ref(ln))
        )
    parts = [*(f[:1].upper() + f[1:] for f in found), _slot(c, m), _xid_at(c, m)]
    return " ".join(p for p in parts if p)


def _gloo_line(c: Ctx) -> EvidenceLine | None:
    """The failure line that shows the job's collectives ran on gloo (none: NCCL or not said)."""
    from knowledge.answer_checks import backend_of  # answer_checks reads this module's answers

    found = backend_of(c)
    return found[1] if found is not None and found[0] == "gloo" else None


_SLOT_Q = re.compile(r"\bpci\b|\bslot\b|\bbus ?id\b")
#: the Xid's time asked ("driver version, PCI bus id and Xid timestamp")
_XID_TIME_Q = re.compile(
    r"\bxid\b[^?]{0,20}\b(?:timestamp|time|when)\b|\b(?:timestamp|time|when)\b[^?]{0,20}\bxid\b"
)
_XID_LINE = re.compile(r"\bXid\b(?: \([^)]*\))?:\s*(\d+)\b")


def _xid_at(c: Ctx, m: Match) -> str:
    """The Xid line's own time, as the kernel printed it, when the versions question also asks it."""
    if not _XID_TIME_Q.search(m.text):
        return ""
    for node, ln in _lines(c):
        if (found := _XID_LINE.search(ln.text)) is not None and (stamp := parse_timestamp(ln.text)):
            where = f" on {node}" if node else ""
            return tx.XID_AT.format(code=found.group(1), at=when(stamp.iso()), node=where, ref=ref(ln))
    return tx.XID_NONE


def _slot(c: Ctx, m: Match) -> str:
    """The failing GPU's PCI slot, when the versions question also asks which slot ("and which pci slot")."""
    ini = c.view.initiating
    if not _SLOT_Q.search(m.text) or ini is None or not ini.gpu:
        return ""
    return tj.PCI_SLOT.format(rank=ini.rank, pci=ini.gpu, node=f" on {ini.node}" if ini.node else "")


# ---------------------------------------------------------------- memory by rank

_MEM = re.compile(
    r"\b(?:mem(?:ory)?(?:_alloc(?:ated)?|_reserved|_used)?|max_memory_allocated|gpu_mem)[=: ]+"
    r"([0-9]+(?:\.[0-9]+)?) ?(GiB|GB|G)\b",
    re.IGNORECASE,
)


def memory_by_rank(c: Ctx) -> str:
    """Each rank's memory from its last progress line (`mem_alloc=69.4GiB`), the odd one named: "was
    rank 5 using more memory the whole run?"."""
    per: dict[int, float] = {}
    unit = "GiB"
    for r in c.view.ranks.values():
        lines = [ln for src in rank_lines(c, r.rank).values() for ln in src]
        lines += [r.last_step_line] if r.last_step_line is not None else []
        for ln in sorted(lines, key=lambda x: x.line, reverse=True):
            if parse_step(ln.text) is not None and (found := _MEM.search(ln.text)) is not None:
                per[r.rank], unit = float(found.group(1)), found.group(2)
                break
    if len(per) < 2:
        return ""
    ini = c.view.initiating
    top = ini.rank if ini is not None and ini.rank in per else max(per, key=per.__getitem__)
    rest = {r: v for r, v in per.items() if r != top}
    lo, hi = min(rest.values()), max(rest.values())
    span = f"{lo:.1f}" if lo == hi else f"{lo:.1f}–{hi:.1f}"
    return tf.MEMORY_BY_RANK.format(rank=top, value=f"{per[top]:.1f}", unit=unit, others=rl(rest), span=span)


# ---------------------------------------------------------------- pids, collective numbers

_LAUNCHER_PID = re.compile(r"local_rank: ?([0-9]+) \(pid: ?([0-9]+)\)|rank ?([0-9]+) \(pid ([0-9]+)\)")


def launcher_pid(c: Ctx, r: RankView | None) -> str:
    """The pid the launcher reported for the rank that failed (`local_rank: 1 (pid: 23264)`)."""
    if r is None:
        return ""
    for ex in launcher_exits(c.d):  # torchrun's summary: `exitcode : 1 (pid: 23264)` under the rank
        if ex.rank == r.rank and (found_pid := _PID.search(ex.line.text)) is not None:
            return tf.LAUNCHER_PID.format(rank=r.rank, pid=found_pid.group(1), ref=ref(ex.line))
    for _, ln in _lines(c):
        for found in _LAUNCHER_PID.finditer(ln.text):
            rank = int(found.group(1) or found.group(3))
            if rank == r.rank:
                return tf.LAUNCHER_PID.format(rank=r.rank, pid=found.group(2) or found.group(4), ref=ref(ln))
    return ""


_PID = re.compile(r"\(pid: ?([0-9]+)\)")


def launcher_ended(c: Ctx, r: RankView) -> str:
    """How the launcher's failure summary says a collateral rank ended (`exitcode : -15 (SIGTERM)`)."""
    ex = next((e for e in launcher_exits(c.d) if e.rank == r.rank), None)
    if ex is None or (ex.code >= 0 and ex.signal is None):
        return ""
    ini = c.view.initiating
    after = f" after rank {ini.rank} failed" if ini is not None and ini.rank != r.rank else ""
    signal = f" ({ex.signal})" if ex.signal else ""
    return tf.LAUNCHER_ENDED.format(rank=r.rank, code=ex.code, signal=signal, ref=ref(ex.line), after=after)


def exit_codes(c: Ctx) -> str:
    """The launcher's exit codes read together: every rank's code and pid, who failed by itself and
    who was stopped (`answer_launcher`), and the ranks the kept summary leaves out."""
    said = answer_launcher.exit_codes(c)
    return f"{said} {summary_gap(c)}".strip() if said else ""


def summary_gap(c: Ctx) -> str:
    """The collateral ranks the kept part of the launcher's summary does not name ("" when it names
    them all, or shows none): the summary's start may be cut, so "rank 3 got -15" is not "only rank 3"."""
    named = {e.rank for e in launcher_exits(c.d)}
    unseen = [r.rank for r in c.view.with_role("collateral") if r.rank not in named]
    return tf.EXIT_PARTIAL.format(ranks=rl(unseen)) if named and unseen else ""


_SEQ = re.compile(r"#([0-9]{1,9})\b")


def collective_number(m: Match) -> str:
    """ "#5 of what?": a collective's number in its process group."""
    found = _SEQ.search(m.text)
    return tf.COLLECTIVE_NUMBER.format(n=found.group(1)) if found else ""


__all__ = [
    "DATA_Q",
    "collective_number",
    "data_fact",
    "exit_codes",
    "last_step",
    "launcher_ended",
    "launcher_pid",
    "memory_by_rank",
    "step_of_total",
    "summary_gap",
    "versions",
    "went_quiet",
]


# ---------------------------------------------------------------- what a rank was doing

#: a line that reports trouble or a frame of a stack, not what the rank was doing
_NOT_ACTIVITY = re.compile(
    r"Traceback|File \"|Error|error|exit|NVRM|Xid|Watchdog|timed? ?out|Killed|killed|\boom\b|\bloss[ =:]",
    re.IGNORECASE,
)
#: the prefixes before a line's words: `[default1]:[rank1]:`, `[2026-… ]`, `[INFO]`, `INFO train:`
_PREFIX = re.compile(
    r"^(?:\s*(?:\[[^\]]*\]:?|\d{4}-\d\d-\d\d[ T][\d:,.]+|[IWE]\d{4} [\d:.]+ \d+ \S+\]|"
    r"(?:INFO|WARNING|DEBUG)\b(?: [\w.]+:)?)\s*)+"
)


def activity_words(text: str) -> str:
    """A log line's own words, without its rank, time and level prefixes."""
    return _PREFIX.sub("", text).strip()


def doing(c: Ctx, r: RankView | None, told: str = "") -> str:
    """What the rank was doing in words, from its own last activity line before its failure ("data:
    building in-memory index of 1.2B samples"), else the job's phase line ("saving checkpoint at step
    50"). Why: "it was training" says less than the line the rank wrote just before it died, and every
    answer that describes the initiating rank (memory, why, which, when, summary) should say it."""
    if r is None:
        return ""
    shown = _activity(c, r)
    if shown is None:
        return ""
    ln, stamp = shown
    own = any(ln in lines for lines in rank_lines(c, r.rank).values())
    phase = _DOING_PHASE.get(r.phase or "", phase_words(r.phase or "running"))
    said = tff.DOING_PREFIX.format(rank=r.rank, phase=phase).lower() in told
    if said:  # "Rank 1 was saving a checkpoint when it failed" is said already: the line only
        text = tff.DOING_LINE_OWN if own else tff.DOING_LINE_PHASE
    else:
        text = tff.DOING_OWN if own else tff.DOING_PHASE
    return text.format(rank=r.rank, phase=phase, ref=ref(ln), at=stamp, words=activity_words(ln.text)[:160])


#: a phase said as what the rank was in ("in a training step"), where the phase's own word says less
_DOING_PHASE = {"train": "in a training step"}


def doing_line(c: Ctx, r: RankView | None) -> EvidenceLine | None:
    """The line `doing` quotes, to show under the answer."""
    shown = _activity(c, r) if r is not None else None
    return shown[0] if shown is not None else None


def _activity(c: Ctx, r: RankView) -> tuple[EvidenceLine, str] | None:
    """The rank's own last activity line that fits its phase, else the job's (any rank's) last one
    that does ("Saving checkpoint to …/checkpoint-6" for a rank whose own log stops at "Starting
    training"), else its own last one, else the job's phase line."""
    own = [ln for lines in rank_lines(c, r.rank).values() for ln in lines]
    every = own + [ln for tl in c.d.tails for ln in tl.lines]
    end = (r.first_time or "").replace("T", " ")[:19]
    fits = _PHASE_KEYS.get(r.phase or "")
    mine = _last_before(own, end)
    if mine is not None and (fits is None or fits.search(mine[0].text)):
        return mine
    saving = answer_quote.saving_line(c)
    every += [saving[1]] if saving is not None else []
    theirs = _last_before([ln for ln in every if fits is not None and fits.search(ln.text)], end)
    if theirs is not None or mine is not None:
        return theirs or mine
    phase = c.view.phase_line
    if phase is not None and _is_activity(phase) and (stamp := _stamp(phase)):
        return phase, stamp
    return None


#: the words a line of each phase says ("Saving checkpoint to …", "building in-memory index")
_PHASE_KEYS = {
    "checkpoint_save": re.compile(r"\bsav(?:e|ing)\b|checkpoint", re.IGNORECASE),
    "data": re.compile(r"\bdata|dataset|index|load", re.IGNORECASE),
    "eval": re.compile(r"\beval", re.IGNORECASE),
}


def _last_before(lines: list[EvidenceLine], end: str) -> tuple[EvidenceLine, str] | None:
    pool = sorted(((_stamp(ln), ln) for ln in lines), key=lambda p: p[0])
    for stamp, ln in reversed(pool):
        if stamp and (not end or stamp <= end) and _is_activity(ln):
            return ln, stamp
    return None


def _stamp(ln: EvidenceLine) -> str:
    st = parse_timestamp(ln.text)
    if st is None or st.relative or (iso := st.iso()) is None:
        return ""
    return iso.replace("T", " ")[:19]


def _is_activity(ln: EvidenceLine) -> bool:
    words = activity_words(ln.text)
    return len(words.split()) >= 3 and not _NOT_ACTIVITY.search(words)


#: a guess that the data loading did it ("was it the data loading?", "the dataset index?")
DATA_Q = re.compile(r"\bdata ?load\w*|\bdataset\b|\bdata ?pipeline\b|\bindex\b|\bdata\b")


def data_fact(c: Ctx, text: str) -> tuple[str, list[EvidenceLine]]:
    """The first rank's own last line when the question guesses the data loading and that line is a
    data line ("building in-memory index of 1.2B samples" right before the host OOM); "" otherwise."""
    ini = c.view.initiating
    if ini is None or not DATA_Q.search(text) or ini.phase != "data":
        return "", []
    line = doing_line(c, ini)
    said = doing(c, ini)
    return (said, [line]) if said and line is not None else ("", [])


# ---------------------------------------------------------------- host memory headroom

#: asks how to see whether a node has the host memory the job needs ("check the box has headroom")
_HEADROOM = re.compile(
    r"\bheadroom\b|\benough (?:host )?(?:ram|memory)\b|\bfree (?:host )?(?:ram|memory)\b"
    r"|\b(?:ram|memory) (?:is )?(?:left|available|free)\b"
    r"|\bhow much (?:ram|memory) (?:the )?(?:box|node|host)\b"
)
#: the categories whose failure is the host (not the GPU) running out of memory
_HOST_MEMORY = ("host_oom", "cpu_oom", "dataloader_worker_killed")


def headroom(c: Ctx, text: str) -> str:
    """How to check a node has the host RAM before a relaunch, for a job that ran out of it: what the
    node has free now, and what the last run peaked at. Why: "relaunch when the box has headroom" needs
    the two numbers to compare, and they come from two commands, not from this job's logs."""
    if not _HEADROOM.search(text) or not c.view.category.startswith(_HOST_MEMORY):
        return ""
    ini = c.view.initiating
    node = ini.node if ini is not None and ini.node else "the node"
    return tff.HEADROOM.format(node=node)
