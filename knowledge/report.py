"""Turning a verdict into the public `Diagnosis`: evidence, collateral groups, tails, missing evidence.

Every log text that leaves the engine passes through `Redactor`, so a secret in a log line can never
reach Slack, Redis or a terminal through a diagnosis.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from denpex.core.models import (
    Alternative,
    CollateralGroup,
    Diagnosis,
    EntryRef,
    EvidenceLine,
    Initiating,
    MissingEvidence,
    RankTail,
    RunFacts,
    Stats,
)
from knowledge import collateral_label, rankfacts, roundstep, step_fit, wording
from knowledge.backend import backend_of, title_for
from knowledge.lines import clip
from knowledge.scanner import SourceScan
from knowledge.schema import Entry
from knowledge.signals import Job, Signal
from knowledge.verdict import Verdict, phase_decides, score_entries

MAX_EVIDENCE = 8
NODE_LINES = 20


@dataclass(frozen=True, slots=True)
class Redactor:
    """Masks every retained line with the full masker, then cuts it to `lines.MAX_LINE_CHARS`.

    The scan does not look for secrets: only these few kilobytes of retained text leave the engine,
    so masking them here is cheaper than carrying the masking rules through every scanned byte.
    """

    mask: Callable[[str], str]

    def __call__(self, scan: SourceScan, line: int, text: str) -> str:
        return clip(self.mask(text))  # mask the whole line, then cut: never the other way round


def _ev(job: Job, red: Redactor, src: int, line: int, text: str) -> EvidenceLine:
    scan = job.scans[src]
    return EvidenceLine(source=scan.source.name, line=line, text=red(scan, line, text))


#: a Python traceback frame (`File "train.py", line 174, in save_checkpoint`)
_FRAME = re.compile(r'File "[^"]+", line [0-9]+, in ')


def evidence(job: Job, v: Verdict, red: Redactor) -> list[EvidenceLine]:
    """The verdict's lines, and after a traceback frame its source line (`state = get_state_dict(…)`):
    the frame names the function, the line below names the call in it that failed."""
    seen: set[tuple[int, int]] = set()
    out: list[EvidenceLine] = []
    items = [(s.source, s.hit) for s in v.evidence] + list(v.context)
    for src, hit in items:
        if (src, hit.line) in seen or len(out) >= MAX_EVIDENCE:
            continue
        seen.add((src, hit.line))
        out.append(_ev(job, red, src, hit.line, hit.text))
        code = hit.after[0] if hit.after and _FRAME.search(hit.text) else ""
        if code.strip() and not _FRAME.search(code) and (src, hit.line + 1) not in seen:
            seen.add((src, hit.line + 1))
            out.append(_ev(job, red, src, hit.line + 1, code))
    return out


#: a collateral group: the category, what happened in the ranks' own terms (kind, words), and why
_GroupKey = tuple[str, str, str, str]


def collateral(job: Job, v: Verdict) -> list[CollateralGroup]:
    """Every other rank that logged a signal, grouped by the category of its lines and by what happened
    to it in its own terms (`knowledge/collateral_label.py`: the row's words, where the category can
    tell another story — a gloo rank's lost peer is no NCCL error, a rank the launcher stopped did not
    hang)."""
    groups: dict[_GroupKey, tuple[list[int], float | None, str | None, bool]] = {}
    backend = backend_of(job)
    after = not (v.rank is None and v.category == "scheduler_kill")
    for key, sigs in job.by_actor().items():
        if key[0] != "rank" or key == v.actor or int(key[1]) == v.rank:
            continue  # the initiating rank is never its own collateral, whatever source named it
        first = min(sigs, key=Signal.order)
        if first.hit.secondhand:
            why = wording.reported_by_launcher()
        elif v.rank is None and v.category == "scheduler_kill":
            why = wording.STOPPED_BY_SCHEDULER
        elif first.role == "primary" and not first.demoted:
            why = wording.failed_after(v.rank)
        else:
            why = wording.waited_on(v.rank)
        scored = score_entries(sigs, job)
        category = scored[0].entry.category if scored else first.entry.category
        own = collateral_label.label(sigs, category, after, backend)
        gkey = (category, own.kind, own.what, why)
        ranks, t, iso, borrowed = groups.get(gkey, ([], None, None, False))
        ranks.append(int(key[1]))
        ft = first.abs_time()
        if ft is not None and (t is None or ft < t):
            t, iso = ft, first.stamp.iso() if first.stamp else None
            borrowed = first.stamp is not None and first.stamp.borrowed
        groups[gkey] = (ranks, t, iso, borrowed)
    floor = _cause_floor(v)
    out = []
    for (cat, kind, what, why), (r, t, iso, b) in groups.items():
        iso, b = _not_before(t, iso, b, floor, why)
        out.append(
            CollateralGroup(
                ranks=sorted(r),
                category=cat,
                label=kind,
                what=what,
                first_time=iso,
                first_time_borrowed=b,
                why=why,
            )
        )
    out.sort(key=lambda g: (g.ranks[0], g.category))
    return out


def _cause_floor(v: Verdict) -> tuple[float, str] | None:
    """The initiating failure's time, when it has one: what waited on it failed no earlier."""
    if v.stamp is None or v.stamp.relative or v.rank is None:
        return None
    iso = v.stamp.iso()
    return (v.stamp.value, iso) if iso else None


def _not_before(
    t: float | None, iso: str | None, borrowed: bool, floor: tuple[float, str] | None, why: str
) -> tuple[str | None, bool]:
    """A collateral group's first time. A borrowed time (another rank's earlier line in a combined
    stream) is only a lower bound; when it is earlier than the cause, the cause's time is the better
    bound for a rank that waited on it or failed after it, and "≥ 21:36:34.102" before a cause at
    21:36:34.184 read as the collateral rank failing first. A time of the group's own is kept."""
    if not borrowed or floor is None or t is None or t >= floor[0] or why == wording.reported_by_launcher():
        return iso, borrowed
    return floor[1], True


#: torchrun's failure summary opens with the ChildFailedError line; its `Failures:` list names every
#: rank's exit code, so a tail that cut into it is widened back to that line (within `SUMMARY_LINES`)
_SUMMARY_START = re.compile(r"ChildFailedError")
SUMMARY_LINES = 60
#: torch.distributed.elastic's own teardown before its summary (`Sending process 22026 closing signal
#: SIGTERM`, pytorch/pytorch@v2.5.0:torch/distributed/elastic/multiprocessing/api.py): the only line
#: that times when the launcher stopped the others, so a tail widened to the summary takes it too
_TEARDOWN = re.compile(r"Sending process \d+ closing signal SIG[A-Z]+")


def _tail(scan: SourceScan) -> list[tuple[int, str]]:
    """The source's last lines, widened to the start of a launcher summary they cut into, and to the
    launcher's teardown lines just before it."""
    if not scan.tail:
        return scan.tail
    first = scan.tail[0][0]
    window = scan.numbered_tail[-SUMMARY_LINES:]
    starts = [i for i, (n, t) in enumerate(window) if n < first and _SUMMARY_START.search(t)]
    if not starts:
        return scan.tail
    start = starts[-1]
    down = [i for i, (_, t) in enumerate(window[:start]) if _TEARDOWN.search(t)]
    return window[min(down[0], start) if down else start :]


def tails(job: Job, red: Redactor) -> list[RankTail]:
    out = []
    for scan in job.scans:
        src = scan.source
        if src.kind == "kernel" or not scan.tail:
            continue
        lines = [EvidenceLine(source=src.name, line=n, text=red(scan, n, t)) for n, t in _tail(scan)]
        if all("\n" not in ln.text for ln in lines):  # masking: once more as a block, for a private
            block = red.mask("\n".join(ln.text for ln in lines)).split("\n")  # key cut off at the top
            lines = [ln.model_copy(update={"text": t}) for ln, t in zip(lines, block, strict=True)]
        out.append(RankTail(rank=src.rank, source=src.name, node=src.node, lines=lines))
    return out


def nodes(job: Job, red: Redactor) -> dict[str, list[EvidenceLine]]:
    out: dict[str, list[EvidenceLine]] = {}
    for i, scan in enumerate(job.scans):
        src = scan.source
        if src.kind != "kernel":
            continue
        lines = out.setdefault(src.node or src.name, [])
        for hit in scan.hits:
            if len(lines) < NODE_LINES:
                lines.append(_ev(job, red, i, hit.line, hit.text))
    return out


def missing(job: Job, v: Verdict, given: Sequence[MissingEvidence]) -> list[MissingEvidence]:
    out = list(given)
    kernel_nodes = {s.source.node for s in job.scans if s.source.kind == "kernel"}
    has_kernel = any(s.source.kind == "kernel" for s in job.scans)
    if (v.node and v.node not in kernel_nodes) or not has_kernel:
        what, nxt = wording.missing_kernel(v.node if v.node not in kernel_nodes else None)
        out.append(MissingEvidence(what=what, next_action=nxt))
    if v.confidence < 0.8 and not any(s.source.kind == "scheduler" for s in job.scans):
        what, nxt = wording.missing_scheduler()
        out.append(MissingEvidence(what=what, next_action=nxt))
    rank_files = {s.source.rank for s in job.scans if s.source.kind == "rank" and s.source.rank is not None}
    if rank_files and job.world and len(rank_files) < job.world:
        absent = sorted(set(range(job.world)) - rank_files)
        if absent:
            what, nxt = wording.missing_ranks(absent)
            out.append(MissingEvidence(what=what, next_action=nxt))
    if v.collateral_only and v.rank is None:
        what, nxt = wording.missing_stalled_rank()
        out.append(MissingEvidence(what=what, next_action=nxt))
    if v.entry is None and v.confidence == 0.0:
        what, nxt = wording.missing_content()
        out.insert(0, MissingEvidence(what=what, next_action=nxt))
    elif v.entry is None or not job.signals:
        what, nxt = wording.missing_logs()
        out.append(MissingEvidence(what=what, next_action=nxt))
    rival = phase_decides(v.entry, v.alternatives) if v.entry is not None and v.phase is None else None
    if rival is not None and v.entry is not None:
        what, nxt = wording.phase_undecided(
            v.stamp.iso() if v.stamp else None,
            [*rival.phases[:2], "train" if "train" in v.entry.phases else v.entry.phases[0]],
        )
        out.insert(0, MissingEvidence(what=what, next_action=nxt))
    if v.phase is not None and v.phase.marker == roundstep.MARKER:
        what, nxt = wording.phase_inferred(roundstep.step_of(v.phase.text))
        out.insert(0, MissingEvidence(what=what, next_action=nxt))
    first: dict[str, MissingEvidence] = {}  # one item per `what`, the first one, in order
    for m in out:
        first.setdefault(m.what, m)
    return list(first.values())


def alternatives(v: Verdict) -> list[Alternative]:
    """Each other entry that fits: its category, a confidence relative to the chosen one, why it lost."""
    best = v.scores.get(v.entry.id, 0.0) if v.entry is not None else 0.0
    out = []
    for alt in v.alternatives:
        score = v.scores.get(alt.id)
        ref = EntryRef(id=alt.id, title=alt.title)
        conf = v.confidence * min(1.0, score / best) if score is not None and best > 0 else v.confidence * 0.5
        out.append(
            Alternative(
                id=alt.id,
                title=alt.title,
                category=alt.category,
                entry=ref,
                confidence=round(max(0.0, min(conf, v.confidence)), 2),
                why=v.lost_why.get(alt.id)
                or wording.alternative_why(alt.phases, v.phase.phase if v.phase else None, score, best),
            )
        )
    return out


def _fix(entry: Entry | None, job: Job, v: Verdict) -> str:
    """The entry's fix steps as said to this job (knowledge/step_fit.py), numbered."""
    if entry is None:
        return ""
    steps = step_fit.fitted_steps(entry, job, v.evidence)
    return "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))  # the snippet: `fix_snippet`


def diagnosis(
    job: Job, v: Verdict, red: Redactor, given: Sequence[MissingEvidence], stats: Stats
) -> Diagnosis:
    entry = v.entry
    root = entry.root_cause if entry else ""
    root = " ".join([*v.notes, root, *v.after]).strip() if v.notes or v.after else root
    return Diagnosis(
        category=v.category,
        entry=EntryRef(id=entry.id, title=title_for(entry.title, backend_of(job))) if entry else None,
        confidence=v.confidence,
        initiating=Initiating(
            rank=v.rank,
            node=red.mask(v.node) if v.node else None,
            time=v.stamp.iso() if v.stamp else None,
            time_borrowed=v.stamp is not None and v.stamp.borrowed,
            evidence=evidence(job, v, red),
            phase=v.phase.phase if v.phase else None,
            phase_evidence=_ev(job, red, v.phase.source, v.phase.line, v.phase.text) if v.phase else None,
            phase_inferred=v.phase is not None and v.phase.marker == roundstep.MARKER,
        ),
        collateral=collateral(job, v),
        root_cause=red.mask(root),
        fix=_fix(entry, job, v),
        fix_snippet=entry.fix.snippet.strip() if entry else "",
        verify=entry.verify if entry else "",
        missing_evidence=missing(job, v, given),
        alternatives=alternatives(v),
        tails=tails(job, red),
        nodes=nodes(job, red),
        stats=stats,
        facts=_facts(job, v, red),
    )


def _facts(job: Job, v: Verdict, red: Redactor) -> RunFacts:
    """Each rank's facts; the initiating rank's category is the verdict's (its first line alone may
    fit several entries: a kill in the data phase is a host OOM, not the checkpoint one)."""
    facts = rankfacts.build(job, red)
    for rf in facts.ranks:
        if v.rank is not None and rf.rank == v.rank and rf.category is not None:
            rf.category = v.category
    return facts
