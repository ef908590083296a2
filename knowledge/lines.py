"""Parsing of single retained log lines: cleaning, rank prefixes and timestamps.

Only lines the engine keeps (hits, their context, tails) go through here, so these functions favour
being right about the many launcher and logger formats over raw speed. Every function accepts any
text and never raises: a log is untrusted input.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from knowledge.anchors import LOKI_LABELS

#: retained lines are cut to this many characters (a single log line can be megabytes), after masking:
#: `clean` keeps the whole decoded line so a secret straddling the cut is still seen whole by the masker
MAX_LINE_CHARS = 4096

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_CTRL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def decode(raw: bytes) -> str:
    """Bytes of one line to text: invalid UTF-8 replaced, never an exception."""
    return raw[: MAX_LINE_CHARS * 4].decode("utf-8", errors="replace")


def clean(text: str) -> str:
    """Strip ANSI colour codes and control characters; keep the last `\\r` segment that has text.

    A progress bar rewrites one physical line with `\\r`; what a person saw last is the last non-empty
    segment. Callers that need every segment split on `\\r` themselves (see `segments`).
    """
    if text.isprintable():  # no ESC, `\r` or control character: nothing to strip (most lines; fast)
        return text.rstrip()
    text = _ANSI.sub("", text)
    if "\r" in text:
        parts = [p for p in text.split("\r") if p.strip()]
        text = parts[-1] if parts else ""
    return _CTRL.sub("", text).rstrip()


def clip(text: str) -> str:
    """Cut a retained line to `MAX_LINE_CHARS`; only ever applied to masked text (report.Redactor)."""
    return text[:MAX_LINE_CHARS] + "…" if len(text) > MAX_LINE_CHARS else text


def segments(text: str) -> list[str]:
    """Split a physical line at `\\r` (progress bars) into cleaned, non-empty segments."""
    return [c for c in (clean(p) for p in _ANSI.sub("", text).split("\r")) if c.strip()]


# ---------------------------------------------------------------- ranks


@dataclass(frozen=True, slots=True)
class RankInfo:
    """What a line says about who wrote it. `rank` is global; `local` is a node-local index."""

    rank: int | None = None
    local: int | None = None
    #: srun's `--label` task id when the line carries one; under one launcher per srun task (`srun -l
    #: torchrun …`) it is the node's task, not a rank, and the rank is the inner one the line names
    task: int | None = None


_TORCHRUN = re.compile(r"^\s*\[default(\d{1,5})\]:")
#: Determined's task log names the process's rank after the stamp and container id (stripped with them)
_DETERMINED = re.compile(r"\] [0-9a-f]{8} \[rank=(\d{1,6})\] \|\| ")
_RANK_PREFIX = re.compile(r"\[rank:? ?(\d{1,6})\]:?")  # `[rank3]:`, Lightning's `[rank: 3]`
_SRUN_LABEL = re.compile(r"^\s{0,8}(\d{1,6}): ")  # srun pads to the widest label; a paste may indent
#: Open MPI's `--tag-output` (horovodrun's default): `[1,3]<stderr>:` is job 1's rank 3; SageMaker's
#: MPI launcher adds the rank's name and host: `[1,mpirank:3,algo-2]<stderr>:`
_MPI_TAG = re.compile(
    r"^\s*\[\d{1,9},(?:mpirank:)?(\d{1,6})(?:,[A-Za-z0-9_.-]{1,63})?\]<(?:stdout|stderr|stddiag)>:"
)
_BRACKET_RANK = re.compile(r"\[(?:[^\[\]]{0,60}\s)?Rank\s?(\d{1,6})\]")
_LEAD_RANK = re.compile(r"^\s*(?:global\s+)?rank[\s:=]+(\d{1,6})\b", re.IGNORECASE)
_NCCL_DEV = re.compile(r"^\s*(?:\S+:\d+:\d+ )?\[(\d{1,3})\] (?:\S+ )?NCCL ")
_LOCAL_RANK_ARG = re.compile(r"--local[_-]rank[= ](\d{1,5})")
#: torch.multiprocessing.spawn's report of a child: `process 1 terminated with signal SIGKILL` (the
#: index `spawn` passed to the function, which scripts use as their local rank; spawn.py)
_SPAWN_CHILD = re.compile(r"\bprocess (\d{1,5}) terminated with (?:signal|exit code)\b")
#: a message that names the rank printing it: the DDP reducer's "did not receive grad for rank 1:",
#: FSDP's "Failed to clone() tensor with name x on rank 1", c10d's "[PG 0 Rank 3]" further into a line
#: srun's report of a task: `srun: error: gpu-01: task 1: Segmentation fault` (the task id is the rank);
#: a report over several (`tasks 8-15: Out Of Memory`, `tasks 0-7: Killed`) names no one of them: srun
#: folds every task that ended alike into one line, the first of a range no earlier than the rest
_SRUN_TASK = re.compile(r"^\s*srun: error: \S+: tasks? (\d{1,6}): ")
#: Open MPI's launcher on a process that died (open-mpi/ompi@v4.1.6:orte/tools/orterun/help-orterun.txt,
#: "%s noticed that process rank %s with PID %s on node %s exited on signal %d (%s)."): the MPI rank
_MPIRUN_RANK = re.compile(r"\b(?:mpirun|prterun|orterun) noticed that process rank (\d{1,6}) with PID ")
_SELF_NAMED_RANK = re.compile(
    r"\b(?:receive grad for|tensor with name \S+ on|\(default_pg\)) [Rr]ank (\d{1,6})\b"
    r"|\bRank (\d{1,6})(?::|, node \S+, device) "  # Megatron's NaN/Inf checks name their own rank
    r"|Unexpected result \S+ on rank (\d{1,6})\b"  # Megatron's rerun state machine
)
#: srun `-l` labels inside one physical line: several labelled lines pasted with their breaks lost
#: (`… in broadcast 10: work = … 10: torch.distributed.DistBackendError: …`); trusted only when the
#: same label comes back at least `GLUED_LABELS` times and no other label does
_GLUED_LABEL = re.compile(r"(?:^|\s)(\d{1,6}): (?=\S)")
GLUED_LABELS = 3
#: torchrun's failure summary: `rank      : 3 (local_rank: 3)`
#: (also as pasted with its spaces, colon or underscore lost: `rank2 (local rank: 2)exitcode: -9`)
BLOCK_RANK = re.compile(r"^\s*rank\s*:?\s*(\d{1,6})\s*\(local[_ ]rank:\s*(\d{1,5})\)")


#: what a delivering tool puts before the line the job printed: ANSI colours, an RFC 3339 timestamp
#: (`kubectl logs --timestamps`, log exports; tab-separated, or with Loki's `{pod="…"}` labels as
#: `logcli query` prints them), a Ray worker's `(RayTrainWorker pid=4821, ip=10.0.0.7)`,
#: a Markdown quote or a code block's indentation (a log pasted into an issue) — see
#: knowledge/anchors.py for the same idea in patterns
_DELIVERY = re.compile(
    r"^(?:\x1b\[[0-9;?]*[A-Za-z]"
    r"|\[?[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9:]{4,5})?\]?[ \t]"
    r"(?:std(?:out|err) [FP] )?"
    + LOKI_LABELS
    + r"(?:[0-9a-f]{8} (?:\[rank=[0-9]{1,6}\] )?\|\| )?"  # Determined: container id, the process's rank
    # a task runner's logger relaying the job's lines: Airflow, Python logging (`… - name - INFO - `)
    r"|\[[0-9]{4}-[0-9]{2}-[0-9]{2},? [0-9:]{8}(?:[.,][0-9]{1,9})?(?: [A-Z]{2,5}|[+-][0-9:]{4,5})?\] "
    r"\{[^}\n]{1,80}\} [A-Z]{4,8} - "
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}[.,][0-9]{3} - [A-Za-z0-9_.]{1,60} - [A-Z]{4,8} - "
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +[0-9]{1,2} [0-9:]{8}(?:[.,][0-9]{1,9})? "
    r"(?:[A-Za-z0-9_.-]+ [^ :]+: )?"  # syslog's host and program, or moreutils' `ts` stamp alone
    r"|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})? "  # a time of day alone
    r"|\((?:[A-Za-z_][A-Za-z0-9_.:-]{0,40},? )?(?:rank=[0-9]{1,6}, )?(?:pid|ip)=[^)\n]{1,60}\) "
    r"|>[ \t]?)+[ \t]*"
)


def strip_delivery(text: str) -> str:
    """`text` without the colours, timestamp, worker label or quote a delivering tool put before it."""
    if text[:1] in "\x1b(>" or "-" in (text[4:5], text[5:6]) or text[3:4] == " " or text[2:3] == ":":
        return _DELIVERY.sub("", text, count=1)
    return text


#: a launcher's own line (torchrun's elastic agent, accelerate's and DeepSpeed's launchers): under srun
#: `--label` it names no rank of its own, only the srun task (node) that ran the launcher;
#: pytorch/pytorch@v2.5.0:torch/distributed/elastic/multiprocessing/api.py ("Sending process %s closing
#: signal %s"), torch/distributed/elastic/agent/server/api.py ("Received %s death signal, shutting down
#: workers"), its logger names (`torch.distributed.elastic.…: [ERROR]`, `torch/distributed/elastic/…py:869]`)
_LAUNCHER_OWN = re.compile(
    r"\btorch\.distributed\.(?:elastic|run)[\w.]*: \[|\btorch/distributed/(?:elastic/\S+|run)\.py:\d+\]"
    r"|\bSending process \d+ closing signal "
    r"|\bdeath signal, shutting down workers|\bChildFailedError\b"
)


def parse_rank(text: str) -> RankInfo:
    """Rank prefixes: `[rank3]:`, srun `3: `, torchrun `[default3]:` (local), `[Rank 3]`, `Rank 3`.

    srun's `--label` (`%*d: `, the task id; SchedMD/slurm src/common/write_labelled_message.c) is the
    rank when srun runs one task per rank. When the task ran a launcher (`srun -l torchrun …`), the
    rest of the line says so (torchrun's `[default2]:`, its failure summary's `rank : 6 (local_rank:
    2)`, the agent's own lines): then the label is kept as `task` and the rank is the inner one."""
    if (m := _DETERMINED.search(text, 0, 200)) is not None:
        return RankInfo(int(m.group(1)))
    head = strip_delivery(text[:300])
    if (m := _SRUN_LABEL.match(head)) is not None:
        return _under_label(int(m.group(1)), head[m.end() :])
    return _parse_head(text, head)


def _under_label(task: int, rest: str) -> RankInfo:
    """A line under srun's label `task`: the rank the rest names (a launcher's child), else the label."""
    if (m := _TORCHRUN.match(rest)) is not None:
        own = _RANK_PREFIX.match(rest, m.end())
        return RankInfo(int(own.group(1)) if own else None, int(m.group(1)), task)
    if (m := _RANK_PREFIX.search(rest, 0, 80)) is not None:
        return RankInfo(int(m.group(1)), None, task)
    if (m := BLOCK_RANK.match(rest)) is not None:
        return RankInfo(int(m.group(1)), int(m.group(2)), task)
    if (m := _AGENT_FAILED.search(rest[:1000])) is not None:
        return RankInfo(None, int(m.group(1)), task)
    if _LAUNCHER_OWN.search(rest[:300]) is not None:
        return RankInfo(None, None, task)
    return RankInfo(task, None, task)


def _parse_head(text: str, head: str) -> RankInfo:
    local = None
    m = _TORCHRUN.match(head)
    if m:
        local = int(m.group(1))
        head = head[m.end() :]
    m = _RANK_PREFIX.search(head, 0, 80)
    if m:
        return RankInfo(int(m.group(1)), local)
    if local is not None:
        return RankInfo(None, local)
    m = _MPI_TAG.match(head)
    if m:
        return RankInfo(int(m.group(1)))
    m = BLOCK_RANK.match(head)
    if m:
        return RankInfo(int(m.group(1)), int(m.group(2)))
    m = _BRACKET_RANK.search(head) or _LEAD_RANK.match(head)
    if m:
        return RankInfo(int(m.group(1)))
    m = _NCCL_DEV.match(head)
    if m:  # NCCL's `host:pid:tid [cudaDev]`: the device index, which is the local rank under torchrun
        return RankInfo(None, int(m.group(1)))
    m = _LOCAL_RANK_ARG.search(text[:2000]) or _SPAWN_CHILD.search(head)
    if m:
        return RankInfo(None, int(m.group(1)))
    m = _SRUN_TASK.match(head) or _MPIRUN_RANK.search(head)
    if m:
        return RankInfo(int(m.group(1)))
    m = _SELF_NAMED_RANK.search(text[:2000])
    if m:
        return RankInfo(int(next(g for g in m.groups() if g)))
    return _glued_label(text[:MAX_LINE_CHARS])


def _glued_label(text: str) -> RankInfo:
    labels = _GLUED_LABEL.findall(text)
    if len(labels) >= GLUED_LABELS and len(set(labels)) == 1:
        return RankInfo(int(labels[0]))
    return RankInfo()


# ---------------------------------------------------------------- timestamps


@dataclass(frozen=True, slots=True)
class Stamp:
    """A point in time. `relative` stamps (raw dmesg seconds since boot) order lines of one node only."""

    value: float
    relative: bool = False
    has_year: bool = True
    #: the line has no time of its own: this is an earlier line's, written by another rank (a combined
    #: stream), so the line came at or after it, not at it
    borrowed: bool = False

    def iso(self) -> str | None:
        if self.relative:
            return f"+{self.value:.6f}s since boot"
        dt = datetime.fromtimestamp(self.value, UTC)
        return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
    )
}
_MON = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T _](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s?(Z|[+-]\d{2}:?\d{2})?"
)
_DMESG_T = re.compile(
    r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) " + _MON + r" +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})\]"
)
_GLOG = re.compile(r"(?:^|[\[\s:])[IWEF](\d{1,2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{1,9})")
_SYSLOG = re.compile(r"^\s*" + _MON + r" +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?")
_RAW_DMESG = re.compile(r"^\s*(?:<\d>)?\[\s*(\d{1,10}\.\d{1,9})\]")
_SLASH = re.compile(r"(\d{4})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?")


def _frac(s: str | None) -> float:
    return float("0." + s) if s else 0.0


#: stamps outside these years are noise (and would not render back to a date)
_MIN_TS = datetime(1971, 1, 1, tzinfo=UTC).timestamp()
_MAX_TS = datetime(9000, 1, 1, tzinfo=UTC).timestamp()


def _mk(fields: Sequence[int], frac: float, offset: float = 0.0) -> float | None:
    """Epoch seconds of (year, month, day, hour, minute, second) + `frac` - `offset`; None if invalid."""
    try:
        y, mo, d, h, mi, s = fields
        v = datetime(y, mo, d, h, mi, s, tzinfo=UTC).timestamp() + frac - offset
    except (ValueError, OverflowError):
        return None
    return v if _MIN_TS <= v <= _MAX_TS else None


def _tz(z: str | None) -> float:
    if not z or z == "Z":
        return 0.0
    sign = -1 if z[0] == "-" else 1
    digits = z[1:].replace(":", "")
    return sign * (int(digits[:2]) * 3600 + int(digits[2:4] or 0) * 60)


def parse_timestamp(text: str, year: int = 1970) -> Stamp | None:
    """The first timestamp near the start of a line, or None. `year` fills formats that omit it."""
    head = text[:200]
    m = _ISO.search(head)
    if m:
        g = m.groups()
        v = _mk([int(x) for x in g[:6]], _frac(g[6]), _tz(g[7]))
        if v is not None:
            return Stamp(v)
    m = _DMESG_T.search(head)
    if m:
        v = _mk([int(m.group(6)), _MONTHS[m.group(1).lower()], *(int(m.group(i)) for i in (2, 3, 4, 5))], 0.0)
        if v is not None:
            return Stamp(v)
    m = _SLASH.search(head)
    if m:
        g = m.groups()
        v = _mk([int(x) for x in g[:6]], _frac(g[6]))
        if v is not None:
            return Stamp(v)
    m = _SYSLOG.match(head)
    if m:
        v = _mk(
            [year, _MONTHS[m.group(1).lower()], *(int(m.group(i)) for i in (2, 3, 4, 5))], _frac(m.group(6))
        )
        if v is not None:
            return Stamp(v, has_year=False)
    m = _GLOG.search(head, 0, 120)
    if m:
        v = _mk([year, *(int(x) for x in m.groups()[:5])], _frac(m.group(6)))
        if v is not None:
            return Stamp(v, has_year=False)
    m = _RAW_DMESG.match(head)
    if m:
        return Stamp(float(m.group(1)), relative=True)
    return None


def year_of(text: str) -> int | None:
    """The year of a line that carries one (used to complete glog/syslog stamps of the same job)."""
    st = parse_timestamp(text)
    if st is None or st.relative or not st.has_year:
        return None
    return datetime.fromtimestamp(st.value, UTC).year


# ---------------------------------------------------------------- steps (for stragglers)

_STEP = re.compile(
    r"\b(?:global[_ ]step|step|iter(?:ation)?)\s*[:=#]?\s*\[?\s*(\d{1,9})(?:\s*/\s*\d+)?",
    re.IGNORECASE,
)


def parse_step(text: str) -> int | None:
    """The training step a progress line reports (`step 120`, `iteration 5/100`, `global_step=7`)."""
    m = _STEP.search(text[:500])
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------- launcher reports about other ranks

#: torchrun's agent; some builds word it "failed (exitcode: -9) for binary located at … with local_rank: 0
#: (process ID: 71)" (seen in the field, e.g. Alibaba PAI images); a screenshot's OCR loses its brackets and
#: underscore ("failed exitcode: 1) local rank: 1 pid: 22094)"): still the agent naming the failed child
_AGENT_FAILED = re.compile(
    r"failed \(?exitcode: -?\d+\)? (?:for binary located at .{0,300}? with )?"
    r"local[_ ]rank: (\d{1,5}) \(?(?:pid|process ID)"
)


#: torch.multiprocessing.spawn re-raising a child's exception in the parent: the child's own traceback
#: follows, under its spawn index (its local rank); pytorch/pytorch@v2.5.0:torch/multiprocessing/spawn.py
_SPAWN_RELAYED = re.compile(r"^\s*-- Process (\d{1,5}) terminated with the following error:")
#: how far above a line the spawn header may stand (a traceback's frames lie between)
RELAY_LOOKBACK = 60


def relayed_rank(text: str) -> RankInfo | None:
    """The spawn index of a child whose traceback the parent prints below this line, or None."""
    m = _SPAWN_RELAYED.match(strip_delivery(text[:200]))
    return RankInfo(None, int(m.group(1))) if m else None


def reported_rank(text: str) -> RankInfo | None:
    """A launcher line that reports another process's failure (torchrun's elastic agent), or None; under
    srun's label (one launcher per task) the label is kept as the reporting task."""
    task = None
    if (lab := _SRUN_LABEL.match(text, 0, 12)) is not None:
        task, text = int(lab.group(1)), text[lab.end() :]
    m = _AGENT_FAILED.search(text[:1000])
    if m:
        return RankInfo(None, int(m.group(1)), task)
    m = BLOCK_RANK.match(text[:200])
    if m:
        return RankInfo(int(m.group(1)), int(m.group(2)), task)
    return None
