"""What happened to one collateral rank, in its own terms, read from its own lines.

Why: a collateral group's `category` is the taxonomy class of the entry its lines matched best, and
as a row label it told another story than the rank's own line. A gloo job's rank that lost its peer
(`[../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:12345`)
matched the communication-error entry and read `nccl_comm_error` in a job with no NCCL at all; a rank
torchrun stopped after another rank failed (`Sending process 40213 closing signal SIGTERM`, its summary's
`exitcode : -15`) matched the launcher-teardown entry, whose category is `hang_no_error`, and read as
if it had hung. The category stays (it is the taxonomy's, and the JSON's); the row's words come from
here: the rank's earliest line of its own (a launcher's report of it only when it has none), said the
way that line says it.

The formats, from the sources that print them:
- gloo (pytorch/gloo gloo/common/error.h GLOO_ERROR_MSG prefixes `[file:line] `): pair.cc's
  `Connection closed by peer <peer>`, `Read error <peer>: <strerror>`, `writev <peer>: <strerror>`,
  `Read timeout <peer>` / `Write timeout <peer>`, pair.h's `Connect timeout <peer>`, unbound_buffer.cc's
  `Timed out waiting <N>ms for recv|send operation to complete`, context's `Application timeout caused
  pair closure`.
- torch.distributed.elastic (multiprocessing/api.py, errors/__init__.py): `Sending process <pid> closing
  signal SIGTERM`, `failed (exitcode: <n>) local_rank: ...`, the summary's `exitcode  : -15 (pid: N)` and
  `Signal 15 (SIGTERM) received by PID N`.
- Slurm: srun/launch.c `<hosts>: tasks <ids>: Terminated` (strsignal) or `Exited with exit code <n>`,
  slurmstepd/req.c `*** STEP <id> ON <node> CANCELLED AT <time>[ DUE TO <reason>] ***`.
- Lightning's SignalConnector: `[rank: N] Received SIGTERM: 15`.
- ProcessGroupNCCL: `Watchdog caught collective operation timeout: WorkNCCL(SeqNum=.., OpType=..,
  ... Timeout(ms)=..)`, `ProcessGroupNCCL's watchdog got stuck for ...`.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Sequence
from typing import NamedTuple

from denpex.core.texts import collateral as t
from knowledge.signals import Signal

#: a line of gloo's own: its errors name their source file (`third_party/gloo/gloo/transport/tcp/...`)
_GLOO = re.compile(
    r"gloo/(?:transport|common|rendezvous)/|ProcessGroupGloo|\[gloo\]|Gloo connectFullMesh", re.I
)
_GLOO_WAIT = re.compile(r"Timed out waiting (\d+) ?ms for (recv|send) operation to complete")
_GLOO_SOCKET_TIMEOUT = re.compile(r"\b(Read|Write|Connect) timeout\b")
_GLOO_APP_TIMEOUT = re.compile(r"Application timeout caused pair closure")
_GLOO_CLOSED = re.compile(r"Connection closed by peer")
_GLOO_IO = re.compile(r"\b(Read error|writev) [^:\s]*(?::\d+)?: ([A-Z][A-Za-z ]+[a-z])")
_PEER_WORDS = re.compile(r"Connection (?:reset by peer|refused)|Broken pipe")

#: ProcessGroupNCCL's watchdog: the op and the timeout it gave up after
_WATCHDOG = re.compile(r"Watchdog caught collective operation timeout")
_OPTYPE = re.compile(r"OpType=(\w+)")
_TIMEOUT_MS = re.compile(r"Timeout\(ms\)=(\d+)")
_STUCK = re.compile(
    r"watchdog got stuck|Heartbeat monitor timed out|watchdog thread got stuck|detected no heartbeat", re.I
)
#: ProcessGroupWrapper's check (TORCH_DISTRIBUTED_DEBUG=DETAIL): the ranks called different collectives
_MISMATCH = re.compile(r"Detected mismatch between collectives on ranks")
#: monitored_barrier (c10d, over gloo): `Ranks 2 failed to pass monitoredBarrier in 30000 ms`
_BARRIER = re.compile(r"Ranks? ([0-9][0-9, ]*) failed to pass monitoredBarrier in (\d+) ?ms")
_BARRIER_PEER = re.compile(
    r"reached monitoredBarrier, but received errors while waiting for send/recv from rank (\d+)"
)
#: Horovod's background loop stopped after another rank's exception (horovod/common/operations.cc)
_HOROVOD = re.compile(r"Horovod has been shut down")
#: NCCL's communicator setup waiting on the store for rank 0's id (ProcessGroupNCCL::broadcastUniqueNCCLID)
_UNIQUE_ID = re.compile(r"retrieving ncclUniqueId from \[(\d+)\]")
_NCCL = re.compile(r"\bNCCL\b|ProcessGroupNCCL|WorkNCCL|\bnccl[A-Z]\w*Error\b")
_NCCL_DETAIL = re.compile(
    r"\b(nccl(?:Remote|System|Internal|InvalidUsage|InvalidArgument|UnhandledCuda)Error)\b"
    r"|(unhandled system error|unhandled cuda error|remote process exited or there was a network error"
    r"|invalid usage|internal error)",
    re.I,
)

#: stopped from outside: torch elastic's teardown and summary, srun, slurmstepd, Lightning
_ELASTIC_TERM = re.compile(
    r"closing signal SIG(TERM|KILL)|exitcode\s*:\s*-(15|9)\b"
    r"|Signal (15|9) \(SIG(?:TERM|KILL)\) received by PID|died with <Signals\.SIG(TERM|INT|HUP): \d+>"
)
_SRUN_TERM = re.compile(r"srun: error: .*: tasks? [0-9,-]+: (Terminated|Killed)\b")
_STEP_CANCELLED = re.compile(
    r"\*\*\* (?:STEP|JOB) \S+ ON \S+ CANCELLED AT \S+(?: DUE (?:TO|to) ([A-Za-z ]+?))? \*\*\*"
)
_RECEIVED_SIGTERM = re.compile(r"Received SIGTERM")
#: slurmstepd's reasons that are the scheduler's own decision, not another task's failure
_SCHEDULER_REASONS = {"TIME LIMIT": "time limit", "PREEMPTION": "preemption", "NODE FAILURE": "node failure"}

#: a launcher's report of how the process ended
_SIGNAL_DEATH = re.compile(
    r"exitcode\s*:\s*-(\d+)\b|failed \(exitcode: -(\d+)\)|Signal (\d+) \(SIG[A-Z]+\) received by PID"
)
_EXIT_CODE = re.compile(
    r"failed \(exitcode: (\d+)\)|exitcode\s*:\s*(\d+)\b|Exited with exit code (\d+)"
    r"|exits with return code = (\d+)|returned non-zero exit status (\d+)"
)
_SRUN = re.compile(r"\bsrun: ")


class Label(NamedTuple):
    #: gloo_peer | gloo_timeout | gloo_error | nccl_timeout | timeout | nccl_error | comm_error | stuck
    #: | mismatch | terminated | scheduler | signalled | exited | reported | error
    kind: str
    what: str


#: kinds that say how the process was ended from outside or reported, not what it ran into itself
_ENDINGS = {"terminated", "scheduler", "signalled", "exited", "reported"}


def label(sigs: Sequence[Signal], category: str, after: bool, backend: str | None) -> Label:
    """The rank's row: its earliest line of its own that says what it ran into; a line of its own that
    only says it was stopped (a SIGTERM, a cancelled step) when it has no other; the launcher's report
    of it when it wrote nothing. `after`: another rank failed first (else the whole job was stopped)."""
    own = _one_a_line(
        sorted((s for s in sigs if not s.hit.secondhand and not s.demoted), key=Signal.order), category
    )
    labels = [_classify(s, after, backend) for s in own]
    firsthand = [lb for lb in labels if lb.kind not in _ENDINGS]
    if firsthand:
        return firsthand[0]
    ended = [lb for lb in labels if lb.kind != "reported"]
    if ended:
        return ended[0]
    reported = sorted((s for s in sigs if s.hit.secondhand), key=Signal.order)
    ranked = sorted(
        (_classify(s, after, backend) for s in reported), key=lambda lb: _REPORT_ORDER.get(lb.kind, 9)
    )
    if ranked:
        return ranked[0]
    return labels[0] if labels else Label("error", t.own_error(category, ""))


def _one_a_line(sigs: list[Signal], category: str) -> list[Signal]:
    """One signal a line (a line can match several entries): the one of the group's category, if any."""
    out: dict[tuple[int, int], Signal] = {}
    for s in sigs:
        key = (s.source, s.hit.line)
        if key not in out or (s.entry.category == category and out[key].entry.category != category):
            out[key] = s
    return list(out.values())


#: of a launcher's lines about a rank, the one that says most: a termination, a signal, an exit code
_REPORT_ORDER = {"terminated": 0, "scheduler": 0, "signalled": 1, "exited": 2}


def _classify(s: Signal, after: bool, backend: str | None) -> Label:
    text = s.hit.text
    gloo = _GLOO.search(text) is not None
    if m := _BARRIER.search(text):
        return Label("timeout", t.barrier_timeout(m.group(1).strip(" ,"), m.group(2)))
    if m := _BARRIER_PEER.search(text):
        return Label("timeout", t.barrier_peer(m.group(1)))
    if _HOROVOD.search(text):
        return Label("comm_error", t.horovod_shut_down())
    if gloo or _GLOO_WAIT.search(text) or _GLOO_APP_TIMEOUT.search(text):
        return _gloo(text)
    if m := _UNIQUE_ID.search(text):
        return Label("timeout", t.nccl_setup_timeout(m.group(1)))
    if _MISMATCH.search(text):
        return Label("mismatch", t.mismatch())
    if _WATCHDOG.search(text):
        op, ms = _OPTYPE.search(text), _TIMEOUT_MS.search(text)
        detail = ", ".join(x for x in (op.group(1) if op else "", f"{ms.group(1)} ms" if ms else "") if x)
        return Label("nccl_timeout", t.nccl_watchdog(detail))
    if _STUCK.search(text):
        return Label("stuck", t.watchdog_stuck())
    ending = _ending(text, after)
    if ending is not None:
        return ending
    category = s.entry.category
    if category == "nccl_comm_error":
        if _NCCL.search(text) or (backend == "nccl" and not _PEER_WORDS.search(text)):
            m = _NCCL_DETAIL.search(text)
            return Label("nccl_error", t.nccl_error((m.group(1) or m.group(2)) if m else ""))
        if backend == "gloo":
            return _gloo(text)
        return Label("comm_error", t.comm_error())
    if category == "nccl_timeout":
        if backend == "gloo":
            return _gloo(text)
        return Label("timeout", t.collective_timeout("nccl" if _NCCL.search(text) else None))
    if s.entry.id == "sigterm-elastic-teardown":
        return Label("reported", t.reported_failed())
    return Label("error", t.own_error(category, _exception(text)))


#: the exception a line raised (`FileExistsError: [Errno 17] File exists: ...`): the row names it
_EXCEPTION = re.compile(r"\b((?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt|Exit))(?::|$)")


def _exception(text: str) -> str:
    m = _EXCEPTION.search(text)
    return m.group(1).rsplit(".", 1)[-1] if m else ""


def _gloo(text: str) -> Label:
    if m := _GLOO_WAIT.search(text):
        return Label("gloo_timeout", t.gloo_timeout(f"{m.group(2)}, {m.group(1)} ms"))
    if m := _GLOO_SOCKET_TIMEOUT.search(text):
        return Label("gloo_timeout", t.gloo_timeout(f"{m.group(1)} timeout"))
    if _GLOO_APP_TIMEOUT.search(text):
        return Label("gloo_timeout", t.gloo_timeout("another operation timed out"))
    if _GLOO_CLOSED.search(text):
        return Label("gloo_peer", t.gloo_peer("Connection closed by peer"))
    if m := _GLOO_IO.search(text):
        return Label("gloo_peer", t.gloo_peer(f"{m.group(1)}: {m.group(2)}"))
    if m := _PEER_WORDS.search(text):
        return Label("gloo_peer", t.gloo_peer(m.group(0)))
    return Label("gloo_error", t.gloo_error())


def _ending(text: str, after: bool) -> Label | None:
    """How the process was ended from outside, or a launcher's report of its end."""
    if m := _STEP_CANCELLED.search(text):
        reason = (m.group(1) or "").strip().upper()
        if reason in _SCHEDULER_REASONS:
            return Label("scheduler", t.stopped_by_scheduler(_SCHEDULER_REASONS[reason]))
        how = "step cancelled" + (f" due to {reason.lower()}" if reason else "")
        return Label("terminated", t.terminated(t.SLURM, how, after))
    if m := _SRUN_TERM.search(text):  # strsignal(): SIGTERM is "Terminated", SIGKILL "Killed"
        how = "SIGTERM" if m.group(1) == "Terminated" else "SIGKILL"
        return Label("terminated", t.terminated(t.SRUN, how, after))
    if m := _ELASTIC_TERM.search(text):
        kill = "KILL" in m.group(0) or (m.group(2) or m.group(3)) == "9"
        if not kill:
            return Label("terminated", t.terminated(t.LAUNCHER, "SIGTERM", after))
        if "closing signal" in m.group(0):
            return Label("terminated", t.terminated(t.LAUNCHER, "SIGKILL", after))
    if _RECEIVED_SIGTERM.search(text):
        return Label("terminated", t.terminated(None, "received SIGTERM", after))
    who = t.SRUN if _SRUN.search(text) else t.LAUNCHER
    if m := _SIGNAL_DEATH.search(text):
        number = int(next(g for g in m.groups() if g))
        return Label("signalled", t.signalled(_signal_name(number), number, who))
    if m := _EXIT_CODE.search(text):
        code = int(next(g for g in m.groups() if g))
        if code:
            return Label("exited", t.exited(code, who))
    return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


__all__ = ["Label", "label"]
