"""`SlurmCollector`: every rank's log and the scheduler's facts for one Slurm job.

    collector = SlurmCollector(CliBackend(), rank_byte_cap=64 << 20)
    evidence = collector.collect(JobRef(scheduler="slurm", cluster="ci", job_id="1234"))

Order of sources: slurmctld's memory (`scontrol`: expanded StdOut/StdErr, the live state) and the
accounting database (`sacct`: steps, exit codes, MaxRSS, requeued runs, the batch script when stored),
merged per job. Rank logs come from the batch script's `srun --output` patterns (one file per task)
and from the job's own output file (one file, ranks told apart by `--label` prefixes). What cannot be
read goes into `Evidence.missing` with the next action, never into an exception: a diagnosis with a
gap is still worth posting. Kernel logs are not read here: each node's epilog sends its own.
"""

from __future__ import annotations

import dataclasses
import getpass
import os
import re
import socket
from dataclasses import dataclass, field
from typing import BinaryIO

from denpex.core.models import Evidence, JobRef, LogSource, MissingEvidence
from denpex.core.texts import flightrec as fr_texts
from denpex.core.texts import slurm as texts
from integrations.base import UnknownJob
from integrations.hostlist import HostlistError, expand
from integrations.safeopen import raise_fd_limit
from integrations.slurm import dumps, outputs, tails
from integrations.slurm.commands import AccountingUnavailable, SlurmBackend, SlurmUnavailable
from integrations.slurm.records import Job, job_from_show, jobs_from_sacct

_JOB_ID = re.compile(r"^(\d+)(?:([_+])(\d+))?(?:\.(?:\d+|batch|extern))?$")
MAX_LISTED_TASKS = 20


def normalise_id(job_id: str) -> str:
    """`1234`, `1234_7`, `1234+1` (a step suffix such as `.0` is dropped); raises UnknownJob."""
    m = _JOB_ID.match(job_id.strip())
    if m is None:
        raise UnknownJob(texts.not_a_job_id(job_id))
    return m.group(1) + (m.group(2) + m.group(3) if m.group(2) else "")


@dataclass
class _Gathered:
    """Sources and gaps collected so far for one diagnosis."""

    sources: list[LogSource] = field(default_factory=list)
    missing: list[MissingEvidence] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)


class SlurmCollector:
    """Implements `integrations.base.Collector` for Slurm over a `SlurmBackend` (CLI or pyslurm)."""

    def __init__(
        self,
        backend: SlurmBackend,
        *,
        rank_byte_cap: int = 64 << 20,
        dump_options: dumps.DumpOptions | None = None,
    ) -> None:
        self.backend = backend
        self.cap = rank_byte_cap
        self.dump_options = dump_options or dumps.DumpOptions()
        self.worker_user = getpass.getuser()
        self.worker_host = socket.gethostname()
        raise_fd_limit()  # each rank's log stays open from its check until the engine reads it

    # ------------------------------------------------------------------ public

    def collect(self, job: JobRef) -> Evidence:
        job_id = normalise_id(job.job_id)
        jobs, acct_problem = self._lookup(job_id)
        targets, notes = choose(jobs, job_id)
        got = _Gathered(facts=list(notes))
        if acct_problem:
            got.missing.append(
                MissingEvidence(
                    what=texts.accounting_missing(acct_problem), next_action=texts.accounting_next_action()
                )
            )
        for target in targets:
            got.facts += target.facts()
            self._logs(target, job, got, prefix=f"het{target.het_offset}/" if len(targets) > 1 else "")
        facts = ("\n".join(got.facts) + "\n").encode()
        got.sources.append(LogSource(name=f"slurm-{job_id}.scheduler", data=facts, kind="scheduler"))
        return Evidence(job=enrich(job, targets[0]), sources=got.sources, missing=got.missing)

    # ------------------------------------------------------------------ scheduler records

    def _lookup(self, job_id: str) -> tuple[list[Job], str | None]:
        """Jobs from scontrol merged with sacct; raises UnknownJob / SlurmUnavailable."""
        shown = [job_from_show(r) for r in self.backend.show_job(job_id)]
        acct_problem = None
        try:
            accounted = jobs_from_sacct(self.backend.accounting(job_id))
        except AccountingUnavailable as exc:
            accounted, acct_problem = [], str(exc)
        jobs = merge(shown, accounted)
        if not jobs:
            if acct_problem and not re.search(r"disabled|not running", acct_problem, re.I):
                raise SlurmUnavailable(texts.unknown_job(job_id, acct_problem))
            raise UnknownJob(texts.unknown_job(job_id, acct_problem))
        return jobs, acct_problem

    # ------------------------------------------------------------------ logs

    def _logs(self, target: Job, ref: JobRef, got: _Gathered, prefix: str) -> None:
        values = outputs.Values(
            job_id=target.job_id,
            array_job_id=target.array_job_id,
            array_task_id=target.array_task_id,
            user=target.user,
            name=target.name,
            work_dir=target.work_dir or ref.work_dir,
        )
        script_id = target.het_job_id or target.job_id
        script = self.backend.batch_script(script_id)
        for path in self._job_streams(target, ref, script, values, got):
            self._add_combined(path, target, got, prefix)
        specs = outputs.srun_specs(script or "")
        if target.submit_line and re.match(r"\s*(?:\S*/)?srun\s", target.submit_line):
            specs += outputs.srun_specs(target.submit_line)
        for spec in specs:
            self._add_spec(spec, target, values, got, prefix)
        self._add_dumps(target, ref, script, values, got, prefix)

    def _add_dumps(
        self,
        target: Job,
        ref: JobRef,
        script: str | None,
        values: outputs.Values,
        got: _Gathered,
        prefix: str,
    ) -> None:
        """Flight Recorder dumps under the working directory and the folders the logs went to."""
        logs = sorted(p for p in got.seen if p != "/dev/null")
        bases = list(
            dict.fromkeys([*([values.work_dir] if values.work_dir else []), *map(os.path.dirname, logs)])
        )
        found = dumps.find(
            self.dump_options,
            bases=bases,
            prefixes=dumps.script_prefixes(script, values),
            values=values,
            owner=target.uid,
            start=target.start or ref.start,
            end=target.end or ref.end,
            skip=set(got.seen),
        )
        for src in found.sources:
            src.name = prefix + src.name
            got.sources.append(src)
        for r in found.refused:
            if r.size is not None:
                what, action = fr_texts.too_large(r.path, r.size, self.dump_options.byte_cap)
            else:
                what = texts.log_missing("Flight Recorder dump", r.path, r.problem)
                action = texts.log_next_action(r.path, r.problem, self.worker_user, self.worker_host)
            got.missing.append(MissingEvidence(what=what, next_action=action))

    def _job_streams(
        self, target: Job, ref: JobRef, script: str | None, values: outputs.Values, got: _Gathered
    ) -> list[str]:
        """The batch step's stdout/stderr files: expanded by scontrol or the hook, else recovered
        from the #SBATCH lines / SubmitLine (or Slurm's default `slurm-%j.out`)."""
        if target.stdout:
            return list(dict.fromkeys(p for p in (target.stdout, target.stderr) if p))
        same = ref.job_id.strip() in (target.job_id, target.display_id)
        if same and ref.stdout:
            return list(dict.fromkeys(p for p in (ref.stdout, ref.stderr) if p))
        if not target.is_batch:
            return []  # `srun` / `salloc` job: its output went to a terminal, per-task files are in specs
        if script is None and not target.submit_line and not values.work_dir:
            got.missing.append(
                MissingEvidence(
                    what=texts.output_unknown(target.display_id), next_action=texts.output_unknown_action()
                )
            )
            return []
        pats = outputs.sbatch_streams(script, target.submit_line)
        out = pats.get("output") or outputs.default_output(values)
        first_node = _first_node(target.nodes)
        paths = []
        for pattern in dict.fromkeys((out, pats.get("error") or out)):
            found = outputs.find_files(pattern, values)
            paths += [f.path for f in found] or [outputs.expand_single(pattern, values, first_node)]
        return list(dict.fromkeys(paths))

    def _add_spec(
        self, spec: outputs.OutputSpec, target: Job, values: outputs.Values, got: _Gathered, prefix: str
    ) -> None:
        if spec.cwd:
            base = spec.cwd if os.path.isabs(spec.cwd) else os.path.join(values.work_dir or ".", spec.cwd)
            values = dataclasses.replace(values, work_dir=base)
        found = outputs.find_files(spec.pattern, values)
        if not outputs.per_task(spec.pattern):
            for f in found:
                self._add_combined(f.path, target, got, prefix)
            return
        ranks: set[int] = set()
        for f in found:
            if f.path in got.seen:
                continue
            fh = self._readable(f.path, f"log of rank {f.task}", target, got)
            if fh is None:
                continue
            got.seen.add(f.path)
            if f.task is not None:  # a per-task pattern names the task in every match
                ranks.add(f.task)
            got.sources.append(
                LogSource(
                    name=prefix + os.path.basename(f.path),
                    rank=f.task,
                    node=f.node,
                    kind="rank",
                    chunks=tails.tail_chunks(fh, self.cap),  # the file checked, never reopened
                )
            )
        expected = target.num_tasks or (max(ranks) + 1 if ranks else 0)
        absent = sorted(set(range(expected)) - ranks)
        if absent or not found:
            got.missing.append(
                MissingEvidence(
                    what=texts.ranks_missing(absent or [0], spec.pattern),
                    next_action=texts.ranks_next_action(spec.pattern),
                )
            )

    def _add_combined(self, path: str, target: Job, got: _Gathered, prefix: str) -> None:
        """One file with many ranks' lines (`--label` prefixes) or the batch step's own output."""
        if path == "/dev/null":
            got.seen.add(path)
            got.missing.append(
                MissingEvidence(
                    what=texts.output_discarded(target.display_id),
                    next_action=texts.output_discarded_action(),
                )
            )
            return
        if path in got.seen:
            return
        fh = self._readable(path, f"output of job {target.display_id}", target, got)
        if fh is None:
            return
        got.seen.add(path)
        name = prefix + os.path.basename(path)
        if tails.is_labelled(fh) and os.fstat(fh.fileno()).st_size > self.cap:
            with fh:
                data, _ = tails.labelled_tail(fh, self.cap)
            got.sources.append(LogSource(name=name, data=data, kind="combined"))
            return
        budget = min(self.cap * max(1, target.num_tasks or 1), tails.LABEL_CEILING)
        got.sources.append(LogSource(name=name, kind="combined", chunks=tails.tail_chunks(fh, budget)))

    def _readable(self, path: str, what: str, job: Job, got: _Gathered) -> BinaryIO | None:
        """The log opened once, if readable by the worker and owned by the job's user (checked on the
        open descriptor): output paths (and the files at them) are the user's choice, so a symlink to
        someone else's file is never read and posted. The open file is what the engine reads."""
        try:
            fh = tails.open_log(path, job.uid)
            if fh is not None:
                return fh
            problem = "not a regular file owned by the job's user, not read"
        except FileNotFoundError:
            problem = "does not exist"
        except PermissionError:
            problem = "permission denied"
        except OSError as exc:
            problem = exc.strerror or str(exc)
        got.missing.append(
            MissingEvidence(
                what=texts.log_missing(what, path, problem),
                next_action=texts.log_next_action(path, problem, self.worker_user, self.worker_host),
            )
        )
        return None


def _first_node(nodes: str | None) -> str | None:
    if not nodes:
        return None
    try:
        names = expand(nodes)
    except HostlistError:
        return None
    return names[0] if names else None


def merge(shown: list[Job], accounted: list[Job]) -> list[Job]:
    """scontrol's records enriched with sacct's steps and requeue history; sacct-only jobs added."""
    by_id = {j.job_id: j for j in accounted}
    out = []
    for job in shown:
        acct = by_id.pop(job.job_id, None)
        if acct is not None:
            job.steps, job.earlier_runs = acct.steps, acct.earlier_runs
            job.submit_line, job.req_mem = acct.submit_line, acct.req_mem
            job.num_tasks = acct.num_tasks or job.num_tasks
            job.restarts = max(job.restarts, acct.restarts)
            job.uid = job.uid if job.uid is not None else acct.uid
        out.append(job)
    out += by_id.values()
    return sorted(out, key=lambda j: (int(j.het_offset or 0), int(j.array_task_id or 0), int(j.job_id)))


def choose(jobs: list[Job], requested: str) -> tuple[list[Job], list[str]]:
    """Which records to diagnose: every component of a het job; for an array, the requested task if
    it failed, else its first failed task (with a fact listing the others); else the one job."""
    het = [j for j in jobs if j.het_job_id]
    if het:
        leader = het[0].het_job_id
        parts = [j for j in het if j.het_job_id == leader]
        return parts, [
            f"slurm: heterogeneous job {leader} with {len(parts)} components: "
            + ", ".join(f"{j.display_id} {j.state}" for j in parts)
        ]
    if len(jobs) == 1:
        return jobs, []
    exact = next((j for j in jobs if requested in (j.job_id, j.display_id)), None)
    failed = sorted((j for j in jobs if j.failed), key=lambda j: (j.end is None, j.end, int(j.job_id)))
    pick = exact if exact is not None and exact.failed else (failed[0] if failed else exact or jobs[0])
    listed = ", ".join(f"{j.display_id} {j.state}" for j in jobs[:MAX_LISTED_TASKS])
    more = f" and {len(jobs) - MAX_LISTED_TASKS} more" if len(jobs) > MAX_LISTED_TASKS else ""
    array = pick.array_job_id or requested
    return [pick], [
        f"slurm: array job {array} has {len(jobs)} tasks: {listed}{more}; "
        f"{len(failed)} failed; diagnosing {pick.display_id}"
    ]


def enrich(ref: JobRef, job: Job) -> JobRef:
    """The caller's JobRef with what Slurm knows filled in where it was empty."""
    nodes = ref.nodes
    if not nodes and job.nodes:
        try:
            nodes = expand(job.nodes)
        except HostlistError:
            nodes = []
    update = {
        "state": ref.state or job.state,
        "exit_code": ref.exit_code or job.exit_code,
        "nodes": nodes,
        "user": ref.user or job.user,
        "name": ref.name or job.name,
        "work_dir": ref.work_dir or job.work_dir,
        "stdout": ref.stdout or job.stdout,
        "stderr": ref.stderr or job.stderr,
        "start": ref.start or job.start,
        "end": ref.end or job.end,
    }
    return ref.model_copy(update=update)
