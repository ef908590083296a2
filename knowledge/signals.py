"""From raw scan hits to signals: who (rank/node), when (comparable time), what (entry, role).

A `Signal` is one pattern hit interpreted for attribution. The `Job` gathers everything the
attribution and classification steps need about one job, so those steps are pure functions of it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from denpex.core.models import LogSource
from knowledge import facts, savestep, stragglers
from knowledge import srun_tasks as srun
from knowledge.lines import BLOCK_RANK, Stamp, strip_delivery
from knowledge.patterns import Pattern, PatternKind, excluded
from knowledge.phases import PhaseFact, PhaseReader
from knowledge.roundstep import KILL_SIGNATURES, epoch_end_save, resumed_after_save
from knowledge.scanner import LineHit, SourceScan
from knowledge.schema import Entry, Xid

ActorKey = tuple[str, str]  # ("rank", "5") | ("node", "gpu-07") | ("source", "combined.log")
#: a phase read from the progress above a line: (source, numbered lines, line, save interval, named steps)
ProgressReading = Callable[[int, list[tuple[int, str]], int, int | None, set[int]], PhaseFact | None]


@dataclass(slots=True)
class Signal:
    pattern: Pattern
    entry: Entry
    source: int  # index into Job.scans
    hit: LineHit
    rank: int | None
    node: str | None
    stamp: Stamp | None
    kernel: bool = False
    demoted: bool = False  # an Xid the catalogue calls application-level: evidence, never the cause
    xid: facts.XidEvent | None = None
    xid_name: str | None = None  # the catalogue's meaning of the Xid code

    @property
    def role(self) -> str:
        return self.pattern.kind

    @property
    def line(self) -> int:
        return self.hit.line

    def abs_time(self) -> float | None:
        return None if self.stamp is None or self.stamp.relative else self.stamp.value

    def order(self) -> tuple[float, int, int]:
        t = self.abs_time()
        return (t if t is not None else float("inf"), self.source, self.hit.line)


@dataclass(slots=True)
class Job:
    scans: list[SourceScan]
    signals: list[Signal] = field(default_factory=list)
    context: dict[str, list[tuple[int, LineHit, Pattern]]] = field(default_factory=dict)  # entry -> hits
    rank_node: dict[int, str] = field(default_factory=dict)
    rank_pci: dict[int, tuple[str | None, str]] = field(default_factory=dict)
    ranks: set[int] = field(default_factory=set)
    world: int | None = None
    seq: dict[int, tuple[str, int]] = field(default_factory=dict)
    enqueued: dict[int, int] = field(default_factory=dict)  # rank -> last collective it enqueued (watchdog)
    xids: list[tuple[str | None, facts.XidEvent, int, LineHit]] = field(default_factory=list)
    single_node: bool = True
    entries: dict[str, Entry] = field(default_factory=dict)  # every loaded entry, by id
    pending_op: dict[int, str] = field(default_factory=dict)  # rank -> the c10d call its traceback is in
    culprits: set[int] = field(default_factory=set)  # ranks a desync report or a waiting rank names
    hosts: set[str] = field(default_factory=set)  # nodes the scheduler's own lines name (no rank)
    #: srun tasks that ran a launcher (`srun -l torchrun …`): their bare label is a node, not a rank
    launcher_tasks: set[int] = field(default_factory=set)
    #: (source, srun task or None) → global minus local rank (see `knowledge.srun_tasks.task_offsets`)
    local_offsets: dict[tuple[int, int | None], set[int]] = field(default_factory=dict)
    phases: PhaseReader | None = None  # which lifecycle phase a line was in (knowledge/phases.py)
    _phase_cache: dict[tuple[int, int], PhaseFact | None] = field(default_factory=dict)
    _saves: tuple[int | None, set[int]] | None = None

    def phase_of(self, s: Signal) -> PhaseFact | None:
        """The lifecycle phase the signal's line was in, or None when nothing says."""
        key = (s.source, s.hit.line)
        if key not in self._phase_cache:
            fact = self.phases.at(s.source, s.hit.line, s.rank, s.abs_time()) if self.phases else None
            fact = self.resumed(s.source, s.hit.line, fact)
            if s.pattern.sig_id in KILL_SIGNATURES and (fact is None or fact.phase == "train"):
                saved = self._round_step(s)
                fact = saved if saved is not None and (fact is None or fact.marker != "frame-train") else fact
                if fact is None:
                    fact = self._progress_at_kill(s, savestep.off_save_step)
            if s.pattern.sig_id in savestep.GPU_OOM_SIGNATURES and not s.kernel and savestep.open_to(fact):
                fact = self._gpu_save_step(s) or fact
                if fact is None:
                    numbered = self.scans[s.source].numbered_tail
                    fact = savestep.compute_step(s.source, numbered, s.hit.line)
            if not s.kernel and (fact is None or fact.phase in ("train", "eval")):
                fact = self.epoch_end(s.source, s.hit.line, fact)
            self._phase_cache[key] = fact
        return self._phase_cache[key]

    def epoch_end(self, source: int, line: int, fact: PhaseFact | None) -> PhaseFact | None:
        """`fact`, or a save inferred from a completed progress bar after it (knowledge/roundstep.py);
        a frame of the failure's own traceback always wins."""
        if fact is not None and fact.marker.startswith("frame-"):
            return fact
        saved = epoch_end_save(source, self.scans[source].numbered_tail, line)
        return saved if saved is not None and (fact is None or saved.line >= fact.line) else fact

    def resumed(self, source: int, line: int, fact: PhaseFact | None) -> PhaseFact | None:
        """`fact`, unless it is a save a marker of the same source began and the training bar moved on
        after it (knowledge/roundstep.py); a traceback frame is never overruled."""
        if fact is None or fact.phase != "checkpoint_save" or fact.source != source:
            return fact
        if fact.marker.startswith("frame-"):
            return fact
        return resumed_after_save(source, self.scans[source].numbered_tail, fact, line) or fact

    def _round_step(self, s: Signal) -> PhaseFact | None:
        """A kill just after the progress froze on a save step (knowledge/savestep.py); a kernel line has
        no progress of its own, so it takes the one that ends a log of the job."""
        return self._progress_at_kill(s, savestep.save_step)

    def _progress_at_kill(self, s: Signal, read: ProgressReading) -> PhaseFact | None:
        """`read` (the save step, or a step the printed interval rules out) applied to the progress just
        above a kill; a kernel line takes the progress that ends a log of the job."""
        every, named = self.saves()
        if not s.kernel:
            return read(s.source, self.scans[s.source].numbered_tail, s.hit.line, every, named)
        for i, scan in enumerate(self.scans):
            if scan.source.kind != "kernel" and scan.numbered_tail:
                found = read(i, scan.numbered_tail, scan.numbered_tail[-1][0], every, named)
                if found is not None:
                    return found
        return None

    def _gpu_save_step(self, s: Signal) -> PhaseFact | None:
        """A GPU OOM whose traceback shows no compute, just after the progress froze on a save step."""
        every, named = self.saves()
        return savestep.gpu_save_step(s.source, self.scans[s.source].numbered_tail, s.hit.line, every, named)

    def saves(self) -> tuple[int | None, set[int]]:
        """The save interval the job printed and the steps its checkpoint folders name (computed once)."""
        if self._saves is None:
            texts = [h.text for sc in self.scans if sc.source.kind != "kernel" for h in sc.hits]
            texts += [t for sc in self.scans if sc.source.kind != "kernel" for _, t in sc.numbered_tail]
            self._saves = savestep.job_saves(texts)
        return self._saves

    def actor(self, s: Signal) -> ActorKey:
        if s.rank is not None:
            return ("rank", str(s.rank))
        if s.kernel:
            return ("node", s.node or self.scans[s.source].source.name)
        return ("source", self.scans[s.source].source.name)

    def by_actor(self) -> dict[ActorKey, list[Signal]]:
        out: dict[ActorKey, list[Signal]] = defaultdict(list)
        for s in self.signals:
            out[self.actor(s)].append(s)
        return out


def job_year(scans: list[SourceScan]) -> int:
    """The year for stamps that omit it: the first year-bearing stamp of the job, else this year."""
    for scan in scans:
        for hit in scan.hits:
            if hit.stamp is not None and hit.stamp.has_year and not hit.stamp.relative:
                return datetime.fromtimestamp(hit.stamp.value, UTC).year
    return datetime.now(UTC).year


def _with_year(stamp: Stamp | None, year: int) -> Stamp | None:
    if stamp is None or stamp.has_year or stamp.relative:
        return stamp
    dt = datetime.fromtimestamp(stamp.value, UTC)
    try:
        return Stamp(dt.replace(year=year).timestamp(), has_year=True, borrowed=stamp.borrowed)
    except ValueError:  # 29 February in a non-leap year
        return Stamp(stamp.value, has_year=True, borrowed=stamp.borrowed)


def build_job(
    scans: list[SourceScan], patterns: list[Pattern], entries: dict[str, Entry], xids: dict[int, Xid]
) -> Job:
    """Interpret every hit of every source (runs over retained hits only, never over all lines)."""
    job = Job(scans=scans, entries=entries)
    year = job_year(scans)
    for scan in scans:
        scan.first_stamp = _with_year(scan.first_stamp, year)
    nodes = {sc.source.node for sc in scans if sc.source.node}
    srun_tasks = srun.launcher_tasks(scans)
    for i, scan in enumerate(scans):
        src: LogSource = scan.source
        if src.rank is not None:
            job.ranks.add(src.rank)
            if src.node:
                job.rank_node[src.rank] = src.node
        for hit in scan.hits:
            hit.stamp = _with_year(hit.stamp, year)
            _read_facts(job, i, hit, patterns)
            rank = hit.rank.rank
            if rank is None and src.kind == "rank" and not hit.secondhand:
                rank = src.rank
            if rank is not None:
                job.ranks.add(rank)
            for idx in hit.patterns:
                p = patterns[idx]
                if p.entry is None or excluded(p, hit.text):
                    continue
                if p.kind == "context":
                    job.context.setdefault(p.entry, []).append((i, hit, p))
                    continue
                job.signals.append(
                    Signal(
                        p, entries[p.entry], i, hit, rank, src.node, hit.stamp, kernel=src.kind == "kernel"
                    )
                )
    for host in {h for h, _ in job.rank_pci.values() if h}:
        nodes.add(host)
    job.single_node = len(nodes) <= 1 and len(srun_tasks) <= 1
    job.launcher_tasks = srun_tasks
    job.local_offsets = srun.task_offsets(job)
    srun.resolve_locals(job)
    _link_ray_workers(job)
    _link_pids(job)
    srun.link_oom_task(job)
    _apply_xids(job, xids, entries)
    if job.ranks:
        job.world = max(job.world or 0, max(job.ranks) + 1)
    return job


def _read_facts(job: Job, i: int, hit: LineHit, patterns: list[Pattern]) -> None:
    kinds = {patterns[idx].sig_id for idx in hit.patterns if patterns[idx].kind == "fact"}
    if not kinds:
        return
    src = job.scans[i].source
    bare = strip_delivery(hit.text)
    hit = replace(hit, text=bare) if bare is not hit.text else hit
    if "xid" in kinds and (ev := facts.parse_xid(hit.text)) is not None:
        job.xids.append((src.node, ev, i, hit))
    if "device" in kinds and (dev := facts.parse_device(hit.text)) is not None:
        job.rank_pci[dev.rank] = (dev.host, dev.pci)
        job.ranks.add(dev.rank)
        job.world = max(job.world or 0, dev.nranks)
        if dev.host:
            job.rank_node.setdefault(dev.rank, dev.host)
    if "seqnum" in kinds and (seq := facts.parse_seq(hit.text)) is not None:
        rank = hit.rank.rank if hit.rank.rank is not None else src.rank
        if rank is not None:
            job.seq.setdefault(rank, seq)
    if "enqueued" in kinds and (n := facts.parse_enqueued(hit.text)) is not None:
        rank = hit.rank.rank if hit.rank.rank is not None else src.rank
        if rank is not None:
            job.enqueued.setdefault(rank, n)
    if "culprit" in kinds and (m := _CULPRIT.match(hit.text)) is not None:
        job.culprits.add(int(m.group(1)))
    if "c10d_op" in kinds and (m := _C10D_OP.search(hit.text)) is not None:
        rank = hit.rank.rank if hit.rank.rank is not None else src.rank
        if rank is not None:
            job.pending_op[rank] = m.group(1)  # the last one seen: the innermost frame
    if "barrier_culprit" in kinds and (m := _BARRIER_CULPRIT.search(hit.text)) is not None:
        job.culprits.update(int(r) for r in re.findall(r"\d+", m.group(1)))
    if "main_first" in kinds:
        job.culprits.add(0)
    if "waited_on" in kinds and (m := _WAITED_ON.search(hit.text)) is not None:
        job.culprits.add(int(m.group(1)))
    if "rank_host" in kinds and (m := _RANK_HOST.search(hit.text)) is not None:
        job.rank_node.setdefault(int(m.group(1)), m.group(2))
    if "summary_host" in kinds:
        host = hit.text.split(":", 1)[1].strip()
        for nxt in hit.after:
            if (m := BLOCK_RANK.match(nxt)) is not None:
                job.rank_node.setdefault(int(m.group(1)), host)
                break
    if "nccl_host" in kinds and (m := _NCCL_HOST.match(hit.text)) is not None:
        rank = hit.rank.rank if hit.rank.rank is not None else src.rank
        if rank is not None:
            job.rank_node.setdefault(rank, m.group(1))
    if "job_host" in kinds and (m := _JOB_HOST.search(hit.text)) is not None:
        job.hosts.add(m.group(1))
    if "world" in kinds and (w := facts.parse_world(hit.text)) is not None:
        job.world = max(job.world or 0, w)


_CULPRIT = re.compile(r"^\s*\[(\d{1,6})\] ")
_RANK_HOST = re.compile(
    r"\brank[=: ]+(\d+)\b[^\n]{0,80}?\b(?:node|host|hostname)[=: ]+([A-Za-z0-9][A-Za-z0-9._-]*)", re.I
)
_NCCL_HOST = re.compile(r"^(?:\[[^\]]*\]:?\s*)*([A-Za-z0-9][A-Za-z0-9._-]*):\d+:\d+ \[\d+\] NCCL ")
_C10D_OP = re.compile(r'distributed_c10d\.py", line \d+, in (\w+)')
_BARRIER_CULPRIT = re.compile(r"Ranks? (\d[\d, ]*) failed to pass monitoredBarrier")
_JOB_HOST = re.compile(r"\*\*\* (?:JOB|STEP) [0-9][0-9.+_]* ON ([A-Za-z0-9][A-Za-z0-9._-]*) CANCELLED")
_WAITED_ON = re.compile(r"retrieving ncclUniqueId from \[(\d{1,6})\]")
_RANK_PID = re.compile(r"\((?:pid:?|process ID:) (\d+)\)|\bpid[=:] ?(\d+)|by PID (\d+)")
_KERNEL_PID = re.compile(r"Killed process (\d+)|\bpid=(\d+)")
#: torchrun's agent on a failed child (`failed (exitcode: -9) local_rank: 0 (pid: 9100) of binary`) and
#: its failure summary's lines about it (`exitcode  : -9 (pid: 9100)`, `Signal 9 (SIGKILL) received by
#: PID 9100`); pytorch/pytorch@v2.5.0:torch/distributed/elastic/multiprocessing/{api.py,errors/__init__.py}
_AGENT_PID = re.compile(r"failed \(exitcode: -?\d+\) local_rank: \d{1,5} \(pid: (\d+)\)")
_SUMMARY_PID = re.compile(r"\bexitcode\s*: -?\d+ \(pid: (\d+)\)|\) received by PID (\d+)\b")


#: Ray's labels on a worker's lines (`(WorkerDict pid=18980) `, `(RayTrainWorker pid=4821, ip=…) `),
#: after whatever a paste or a collector put first (indentation, a quote, colours); the last is the process
_RAY_LABELS = re.compile(
    r"^(?:[ \t>]|\x1b\[[0-9;?]*[A-Za-z])*"
    r"((?:\((?:[A-Za-z_][A-Za-z0-9_.:]{0,40},? )?pid=\d{1,9}[^)\n]{0,60}\) ?)+)"
)
#: the rank prefix a process writes itself (`[rank4]:`) right after the labels, not a rank a message names
_OWN_PREFIX = re.compile(r"\[rank:? ?(\d{1,6})\]:")


def _ray_worker(text: str) -> tuple[str, int | None] | None:
    """(the worker's pid, the rank its own prefix names) for a line under a Ray label; None otherwise."""
    m = _RAY_LABELS.match(text[:400])
    if m is None:
        return None
    pid = re.findall(r"pid=(\d{1,9})", m.group(1))[-1]
    own = _OWN_PREFIX.match(text, m.end())
    return pid, int(own.group(1)) if own is not None else None


def _link_ray_workers(job: Job) -> None:
    """Lines of one Ray worker are one process: when any of them carries torch's own `[rankN]:` prefix,
    the worker's other lines are rank N's too, whatever rank a message on them names (`[PG 97 Rank 0]`
    is the rank within a subgroup)."""
    pid_rank: dict[str, set[int]] = defaultdict(set)
    workers = [(s, _ray_worker(s.hit.text)) for s in job.signals]
    for _, w in workers:
        if w is not None and w[1] is not None:
            pid_rank[w[0]].add(w[1])
    for sig, w in workers:
        ranks = pid_rank.get(w[0], set()) if w is not None and w[1] is None else set()
        if len(ranks) == 1:
            sig.rank = next(iter(ranks))
            job.ranks.add(sig.rank)


def _link_pids(job: Job) -> None:
    """A kernel line naming a pid (OOM killer, Xid) implicates the rank a launcher line gave that pid."""
    pid_rank: dict[str, int] = {}
    if job.single_node:
        texts = [*(s.hit.text for s in job.signals), *(t for scan in job.scans for t in scan.tail_text)]
        pid_rank.update(stragglers.launcher_pid_ranks(texts))
    in_source: dict[tuple[int, str], set[int]] = defaultdict(set)
    for s in job.signals:
        if s.rank is not None and not s.kernel and (m := _RANK_PID.search(s.hit.text)):
            pid_rank[next(g for g in m.groups() if g)] = s.rank
        if s.rank is not None and not s.kernel and (m := _SUMMARY_PID.search(s.hit.text)):
            in_source[(s.source, next(g for g in m.groups() if g))].add(s.rank)
    _link_agent_pids(job, in_source)
    if not pid_rank:
        return
    for s in job.signals:
        if s.kernel and s.rank is None and (m := _KERNEL_PID.search(s.hit.text)):
            rank = pid_rank.get(next(g for g in m.groups() if g))
            if rank is not None:
                s.rank = rank
    linked: dict[int, set[int]] = defaultdict(set)
    for s in job.signals:
        if s.kernel and s.rank is not None:
            linked[s.source].add(s.rank)
    _link_report_heads(job, linked)
    for s in job.signals:  # the rest of the same kernel report (e.g. `invoked oom-killer`) is that rank's too
        if s.kernel and s.rank is None and len(linked.get(s.source, ())) == 1:
            s.rank = next(iter(linked[s.source]))


def _link_agent_pids(job: Job, in_source: dict[tuple[int, str], set[int]]) -> None:
    """torchrun's agent names the failed child by local rank and pid (`failed (exitcode: -9) local_rank: 0
    (pid: 9100)`), which is no global rank on a job of several nodes; its failure summary in the same log
    names that pid's global rank (`rank : 8 (local_rank: 0)`, `exitcode : -9 (pid: 9100)`). Pids repeat
    across nodes, so only the summary of the same source counts, and only when it names one rank."""
    for s in job.signals:
        if s.kernel or s.rank is not None or (m := _AGENT_PID.search(s.hit.text)) is None:
            continue
        ranks = in_source.get((s.source, m.group(1)), set())
        if len(ranks) == 1:
            s.rank = next(iter(ranks))
            job.ranks.add(s.rank)


#: how far below its first line (`invoked oom-killer`) the kernel's OOM report names its victim's pid
#: (the Mem-Info and task dump come in between; only signal lines are counted here, so this is loose)
OOM_REPORT_LINES = 200


def _link_report_heads(job: Job, linked: dict[int, set[int]]) -> None:
    """With several victims in one kernel log (every rank killed in turn), each report's head line is
    the rank of the first victim named after it in the same file (the kernel prints a report's head,
    then its victim, before the next report), if that is within one report's length."""
    by_source: dict[int, list[Signal]] = defaultdict(list)
    for s in job.signals:
        if s.kernel and len(linked.get(s.source, ())) > 1:
            by_source[s.source].append(s)
    for sigs in by_source.values():
        sigs.sort(key=lambda s: s.hit.line)
        for i, s in enumerate(sigs):
            if s.rank is not None:
                continue
            nxt = next((t for t in sigs[i + 1 :] if t.rank is not None), None)
            if nxt is not None and nxt.hit.line - s.hit.line <= OOM_REPORT_LINES:
                s.rank = nxt.rank


def _apply_xids(job: Job, xids: dict[int, Xid], entries: dict[str, Entry]) -> None:
    """Mark application-level Xids as evidence only; attach the Xid (and its GPU's rank) to signals."""
    by_line = {(i, hit.line): ev for _, ev, i, hit in job.xids}
    pci_rank = {(host, pci): r for r, (host, pci) in job.rank_pci.items()}
    for s in job.signals:
        ev = by_line.get((s.source, s.hit.line))
        if ev is None:
            continue
        s.xid = ev
        row = xids.get(ev.code)
        s.xid_name = row.name if row is not None else None
        if row is not None and not row.hardware:
            s.demoted = True
        rank = pci_rank.get((s.node, ev.pci))
        if rank is None:
            candidates = [
                r for (h, p), r in pci_rank.items() if p == ev.pci and (h is None or job.single_node)
            ]
            rank = candidates[0] if len(candidates) == 1 else None
        if rank is not None:
            s.rank = rank
    _orphan_xids(job, xids, entries, {(s.source, s.hit.line) for s in job.signals if s.xid is not None})


def _orphan_xids(
    job: Job, xids: dict[int, Xid], entries: dict[str, Entry], seen: set[tuple[int, int]]
) -> None:
    """An Xid no entry's signature matched still counts, through the catalogue's `entry` field."""
    for node, ev, i, hit in job.xids:
        row = xids.get(ev.code)
        if (i, hit.line) in seen or row is None or row.entry not in entries:
            continue
        kind: PatternKind = "primary" if row.hardware else "collateral"
        pattern = Pattern(-1, "NVRM: Xid", False, kind, f"xid-{ev.code}", row.entry, 2.0, 0)
        job.signals.append(
            Signal(
                pattern,
                entries[row.entry],
                i,
                hit,
                None,
                node,
                hit.stamp,
                kernel=True,
                demoted=not row.hardware,
                xid=ev,
            )
        )
