"""What `scontrol show job -o` and `sacct -P` print, as plain records.

Slurm 22.05 has no `scontrol --json`, and `sacct --json` reports exit code 0 for FAILED jobs, so the
collector reads the text forms. `scontrol` knows a job only while it is in slurmctld's memory
(`MinJobAge` after it ended) but is the only source of the *expanded* StdOut/StdErr paths; `sacct`
knows it for as long as the accounting database keeps it, with every step, every requeued run (`-D`)
and the batch script (`-B`, with `AccountingStoreFlags=job_script`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from denpex.core.facts import key_values

#: states in which a job (or step) did not succeed: what Denpex diagnoses
FAILED_STATES = frozenset(
    {
        "FAILED",
        "OUT_OF_MEMORY",
        "TIMEOUT",
        "NODE_FAIL",
        "PREEMPTED",
        "BOOT_FAIL",
        "DEADLINE",
        "CANCELLED",
    }
)
#: the "signal" Slurm records for a step the OOM killer ended (ExitCode=0:125)
SIG_OOM = 125

_FIELD = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=(.*?)(?=\s[A-Za-z][A-Za-z0-9_:/]*=|\s*$)")
_ROW_START = re.compile(r"^\d+(?:_(?:\d+|\[[^|]*\])|\+\d+)?(?:\.[A-Za-z0-9]+)?\|\d+(?:\.[A-Za-z0-9]+)?\|")
_NULL = frozenset({"", "(null)", "None", "N/A", "Unknown", "UNLIMITED"})

#: sacct columns the collector asks for, in this order (`sacct -P -n --format=...`)
SACCT_FIELDS = (
    "JobID",
    "JobIDRaw",
    "JobName",
    "State",
    "ExitCode",
    "DerivedExitCode",
    "Reason",
    "NodeList",
    "NTasks",
    "Start",
    "End",
    "Elapsed",
    "Timelimit",
    "MaxRSS",
    "MaxRSSNode",
    "MaxRSSTask",
    "ReqMem",
    "User",
    "WorkDir",
    "UID",
    "SubmitLine",
)


def parse_show_job(text: str) -> list[dict[str, str]]:
    """Every record of `scontrol show job -o` (one per line: an array task, a het component)."""
    records = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("JobId="):
            records.append({m.group(1): m.group(2) for m in _FIELD.finditer(line)})
    return records


def parse_sacct(text: str, fields: tuple[str, ...] = SACCT_FIELDS) -> list[dict[str, str]]:
    """Rows of `sacct -P -n`. SubmitLine comes last because it may contain `|` and even newlines (a
    quoted multi-line `srun … bash -c '…'`): a line that does not start with `JobID|JobIDRaw|`
    continues the previous row's last field."""
    rows: list[dict[str, str]] = []
    for line in text.splitlines():
        if rows and (fields[:2] == ("JobID", "JobIDRaw") and not _ROW_START.match(line)):
            rows[-1][fields[-1]] += "\n" + line
            continue
        if not line.strip():
            continue
        parts = line.split("|", len(fields) - 1)
        parts += [""] * (len(fields) - len(parts))
        rows.append(dict(zip(fields, parts, strict=True)))
    return rows


def value(rec: dict[str, str], key: str) -> str | None:
    """A field, or None for Slurm's spellings of nothing."""
    v = rec.get(key)
    return None if v is None or v.strip() in _NULL else v.strip()


def slurm_time(text: str | None) -> datetime | None:
    """Slurm's local `2026-11-29T19:03:20` -> an aware UTC datetime."""
    if not text or text in _NULL:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").astimezone().astimezone(UTC)
    except ValueError:
        return None


def split_exit(code: str | None) -> tuple[int, int]:
    """`"1:0"` -> (1, 0): exit status and the signal that ended the job; unparsable -> (0, 0)."""
    status, _, sig = (code or "0:0").partition(":")
    try:
        return int(status or 0), int(sig or 0)
    except ValueError:
        return 0, 0


def base_state(state: str | None) -> str:
    """`CANCELLED by 0` -> `CANCELLED`; `FAILED+REQUEUED`-style flags dropped."""
    return (state or "").split()[0].split("+")[0] if state else ""


def derive_state(rec: dict[str, str]) -> str:
    """The final state of a job record. While epilogs run scontrol says COMPLETING; then the Reason
    (OutOfMemory, TimeLimit, NodeDown, NonZeroExitCode) and the exit code tell what it was."""
    state = base_state(rec.get("JobState") or rec.get("State"))
    if state and state not in ("COMPLETING", "RUNNING", "CONFIGURING", "STAGE_OUT", "PENDING", "SUSPENDED"):
        return state
    if state in ("RUNNING", "PENDING", "CONFIGURING", "SUSPENDED"):
        return state
    reason = rec.get("Reason", "")
    by_reason = {
        "OutOfMemory": "OUT_OF_MEMORY",
        "TimeLimit": "TIMEOUT",
        "NodeDown": "NODE_FAIL",
        "NodeFail": "NODE_FAIL",
        "Preempted": "PREEMPTED",
        "DeadLine": "DEADLINE",
    }
    if reason in by_reason:
        return by_reason[reason]
    status, sig = split_exit(rec.get("ExitCode"))
    if sig == SIG_OOM:
        return "OUT_OF_MEMORY"
    return "FAILED" if status or sig or reason == "NonZeroExitCode" else "COMPLETED"


@dataclass
class Step:
    """One job step from sacct: `6.0`, `6.batch`, `12+1.0`."""

    step_id: str
    name: str
    state: str
    exit_code: str
    nodes: str | None = None
    ntasks: int | None = None
    max_rss: str | None = None
    max_rss_node: str | None = None
    max_rss_task: str | None = None
    req_mem: str | None = None
    submit_line: str | None = None

    @property
    def suffix(self) -> str:
        return self.step_id.split(".", 1)[1] if "." in self.step_id else ""

    def fact(self) -> str:
        """The plain line the engine's knowledge signatures match (`slurm: step 6.0 State=...`)."""
        head = f"slurm: step {self.step_id} State={self.state} ExitCode={self.exit_code}"
        return head + key_values(
            (
                ("NTasks", self.ntasks),
                ("NodeList", self.nodes),
                ("MaxRSS", self.max_rss),
                ("MaxRSSNode", self.max_rss_node),
                ("MaxRSSTask", self.max_rss_task),
                ("ReqMem", self.req_mem),
            )
        )


@dataclass
class Job:
    """One job (an array task, a het component) merged from scontrol and sacct."""

    job_id: str  # the unique numeric id (SLURM_JOB_ID)
    display_id: str  # `4_0`, `12+1` or the numeric id
    state: str
    exit_code: str = "0:0"
    derived_exit_code: str | None = None
    reason: str | None = None
    nodes: str | None = None
    user: str | None = None
    uid: int | None = None  # the job owner's uid: only files this user owns are read
    name: str | None = None
    work_dir: str | None = None
    stdout: str | None = None  # expanded path (scontrol only) or an expanded pattern
    stderr: str | None = None
    stdout_pattern: str | None = None  # from #SBATCH/SubmitLine when scontrol no longer has the job
    stderr_pattern: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    array_job_id: str | None = None
    array_task_id: str | None = None
    het_job_id: str | None = None
    het_offset: str | None = None
    restarts: int = 0
    num_tasks: int | None = None
    time_limit: str | None = None
    elapsed: str | None = None
    req_mem: str | None = None
    submit_line: str | None = None
    in_memory: bool = False  # still known to slurmctld (scontrol)
    batch_flag: bool | None = None  # scontrol's BatchFlag: an `srun`/`salloc` job has no output file
    steps: list[Step] = field(default_factory=list)
    earlier_runs: list[str] = field(default_factory=list)  # facts about requeued runs

    @property
    def failed(self) -> bool:
        return self.state in FAILED_STATES

    @property
    def is_batch(self) -> bool:
        """A batch job (it has an output file); from scontrol, else from sacct's `.batch` step."""
        if self.batch_flag is not None:
            return self.batch_flag
        return not self.steps or any(s.suffix == "batch" for s in self.steps)

    def facts(self) -> list[str]:
        """Scheduler facts as plain lines, job first, then each step."""
        head = f"slurm: JobId={self.display_id}"
        if self.display_id != self.job_id:
            head += f" (JobIdRaw={self.job_id})"
        # no Start/End here: a timestamp in a fact would place every later fact at the job's start
        # on the engine's timeline, ahead of the rank that actually failed first
        head += key_values(
            (
                ("JobName", self.name),
                ("User", self.user),
                ("NodeList", self.nodes),
                ("NumTasks", self.num_tasks),
                ("Elapsed", self.elapsed),
                ("TimeLimit", self.time_limit),
                ("ReqMem", self.req_mem),
            )
        )
        state = f"slurm: JobState={self.state} ExitCode={self.exit_code}"
        if self.derived_exit_code:
            state += f" DerivedExitCode={self.derived_exit_code}"
        if self.reason:
            state += f" Reason={self.reason}"
        if self.restarts:
            state += f" Restarts={self.restarts}"
        lines = [head, state]
        lines += [s.fact() for s in self.steps if s.suffix != "extern"]
        lines += self.earlier_runs
        return lines


def job_from_show(rec: dict[str, str]) -> Job:
    """A `Job` from one `scontrol show job -o` record."""
    job_id = rec.get("JobId", "")
    array_job, array_task = value(rec, "ArrayJobId"), value(rec, "ArrayTaskId")
    het_job, het_offset = value(rec, "HetJobId"), value(rec, "HetJobOffset")
    display = job_id
    if array_job and array_task:
        display = f"{array_job}_{array_task}"
    elif het_job and het_offset is not None:
        display = f"{het_job}+{het_offset}"
    tasks = value(rec, "NumTasks")
    return Job(
        job_id=job_id,
        display_id=display,
        state=derive_state(rec),
        exit_code=rec.get("ExitCode") or "0:0",
        derived_exit_code=value(rec, "DerivedExitCode"),
        reason=value(rec, "Reason"),
        nodes=value(rec, "NodeList"),
        user=(value(rec, "UserId") or "").split("(")[0] or None,
        uid=_uid(value(rec, "UserId")),
        name=value(rec, "JobName"),
        work_dir=value(rec, "WorkDir"),
        stdout=value(rec, "StdOut"),
        stderr=value(rec, "StdErr"),
        start=slurm_time(rec.get("StartTime")),
        end=slurm_time(rec.get("EndTime")),
        array_job_id=array_job,
        array_task_id=array_task,
        het_job_id=het_job,
        het_offset=het_offset,
        restarts=int(value(rec, "Restarts") or 0),
        num_tasks=int(tasks) if tasks and tasks.isdigit() else None,
        time_limit=value(rec, "TimeLimit"),
        elapsed=value(rec, "RunTime"),
        in_memory=True,
        batch_flag={"1": True, "0": False}.get(rec.get("BatchFlag", "")),
    )


def _uid(user_id: str | None) -> int | None:
    """`alice(1000)` -> 1000."""
    m = re.search(r"\((\d+)\)$", user_id or "")
    return int(m.group(1)) if m else None


def _display_parts(display: str) -> tuple[str | None, str | None, str | None, str | None]:
    """`4_0` -> array (4, 0); `12+1` -> het (12, 1)."""
    m = re.fullmatch(r"(\d+)_(\d+)", display)
    if m:
        return m.group(1), m.group(2), None, None
    m = re.fullmatch(r"(\d+)\+(\d+)", display)
    if m:
        return None, None, m.group(1), m.group(2)
    return None, None, None, None


def _job_from_row(row: dict[str, str]) -> Job:
    array_job, array_task, het_job, het_offset = _display_parts(row["JobID"])
    nodes = value(row, "NodeList")
    return Job(
        job_id=row["JobIDRaw"],
        display_id=row["JobID"],
        state=base_state(row["State"]),
        exit_code=row.get("ExitCode") or "0:0",
        derived_exit_code=value(row, "DerivedExitCode"),
        reason=value(row, "Reason"),
        nodes=None if nodes == "None assigned" else nodes,
        user=value(row, "User"),
        uid=int(row["UID"]) if (row.get("UID") or "").isdigit() else None,
        name=value(row, "JobName"),
        work_dir=value(row, "WorkDir"),
        start=slurm_time(row.get("Start")),
        end=slurm_time(row.get("End")),
        array_job_id=array_job,
        array_task_id=array_task,
        het_job_id=het_job,
        het_offset=het_offset,
        elapsed=value(row, "Elapsed"),
        time_limit=value(row, "Timelimit"),
        req_mem=value(row, "ReqMem"),
        submit_line=value(row, "SubmitLine"),
    )


def _step_from_row(row: dict[str, str]) -> Step:
    tasks = value(row, "NTasks")
    return Step(
        step_id=row["JobID"],
        name=row.get("JobName", ""),
        state=base_state(row["State"]),
        exit_code=row.get("ExitCode") or "0:0",
        nodes=value(row, "NodeList"),
        ntasks=int(tasks) if tasks and tasks.isdigit() else None,
        max_rss=value(row, "MaxRSS"),
        max_rss_node=value(row, "MaxRSSNode"),
        max_rss_task=value(row, "MaxRSSTask"),
        req_mem=value(row, "ReqMem"),
        submit_line=value(row, "SubmitLine"),
    )


def jobs_from_sacct(rows: list[dict[str, str]]) -> list[Job]:
    """Jobs with their steps, one per job id; with `sacct -D` the rows of earlier (requeued) runs of
    the same id become `earlier_runs` facts of the latest run."""
    runs: list[Job] = []
    for row in rows:
        if not row.get("JobID") or "[" in row["JobID"]:
            continue  # pending array ranges (`4_[2-5]`) have nothing to diagnose
        if "." in row["JobID"]:
            prefix = row["JobID"].split(".", 1)[0]
            owner = next((j for j in reversed(runs) if j.display_id == prefix), None)
            if owner is not None:
                owner.steps.append(_step_from_row(row))
            continue
        runs.append(_job_from_row(row))
    latest: dict[str, Job] = {}
    for run in runs:
        previous = latest.get(run.job_id)
        if previous is not None:
            run.earlier_runs = [*previous.earlier_runs, _earlier_fact(previous)]
            run.restarts = max(run.restarts, len(run.earlier_runs))
        latest[run.job_id] = run
    for job in latest.values():
        tasks = [s.ntasks for s in job.steps if s.ntasks and s.suffix not in ("batch", "extern")]
        job.num_tasks = max(tasks) if tasks else None
    return list(latest.values())


def _earlier_fact(run: Job) -> str:
    failed = [s for s in run.steps if s.state in FAILED_STATES]
    text = (
        f"slurm: earlier run of JobId={run.display_id} (requeued) State={run.state} "
        f"ExitCode={run.exit_code} NodeList={run.nodes or '?'}"
    )
    if run.elapsed:
        text += f" Elapsed={run.elapsed}"
    if failed:
        text += " FailedSteps=" + ",".join(f"{s.step_id}:{s.state}:{s.exit_code}" for s in failed)
    return text
