"""What happened to a collateral rank, in its own terms: the "what happened" of each row of the
collateral table (terminal, Slack thread, evidence file, web page).

A row used to show the taxonomy category of the entry the rank's lines matched, and that told another
story: a gloo job's ranks that lost their peer read `nccl_comm_error` (no NCCL in the job), ranks the
launcher stopped after another rank failed read `hang_no_error` (they never hung). The category stays
in the JSON; a person reads these words, built from the rank's own line (`knowledge/collateral_label.py`).
"""

from __future__ import annotations

from denpex.core.texts.thread import category_words


def row(what: str, category: str) -> str:
    """A collateral row's words on every surface: what happened to the ranks; the category only for a
    group built without them (a diagnosis stored before they existed)."""
    return what or category


#: the end of a terminated rank's row: it was stopped because another rank failed, or with the job
AFTER_FAILURE = "after another rank failed"
WITH_THE_JOB = "when the job was stopped"


def gloo_peer(detail: str) -> str:
    """gloo's pair.cc: `Connection closed by peer`, `Read error <peer>: Connection reset by peer`."""
    return f"lost its gloo connection to a peer ({detail})"


def gloo_timeout(detail: str) -> str:
    """gloo's unbound_buffer.cc `Timed out waiting 1800000ms for recv operation to complete`, pair.cc's
    `Read timeout`."""
    return f"timed out waiting for a peer in a gloo collective ({detail})"


def gloo_error() -> str:
    return "failed in a gloo collective"


def nccl_watchdog(detail: str) -> str:
    """ProcessGroupNCCL's `Watchdog caught collective operation timeout: WorkNCCL(... OpType=ALLREDUCE,
    ... Timeout(ms)=600000)`."""
    return f"timed out waiting in a collective (NCCL watchdog{': ' + detail if detail else ''})"


def collective_timeout(backend: str | None) -> str:
    """A timeout line that names neither backend's watchdog (a monitored barrier, a store wait)."""
    return "timed out waiting in a collective" + (" (NCCL)" if backend == "nccl" else "")


def barrier_timeout(ranks: str, ms: str) -> str:
    """c10d's monitored_barrier: `Ranks 2 failed to pass monitoredBarrier in 30000 ms`."""
    return f"timed out in monitored_barrier waiting for rank(s) {ranks} ({ms} ms)"


def barrier_peer(rank: str) -> str:
    """monitored_barrier's `Rank 2 successfully reached monitoredBarrier, but received errors while
    waiting for send/recv from rank 0`."""
    return f"reached monitored_barrier, then lost rank {rank} while waiting for it"


def horovod_shut_down() -> str:
    """Horovod's `Horovod has been shut down. This was caused by an exception on one of the ranks`."""
    return "Horovod shut down after an exception on another rank"


def nccl_setup_timeout(rank: str) -> str:
    """ProcessGroupNCCL's `retrieving ncclUniqueId from [0] via c10d key-value store ... wait timeout`."""
    return f"timed out setting up NCCL, waiting for rank {rank}'s ncclUniqueId"


def mismatch() -> str:
    """ProcessGroupWrapper's `Detected mismatch between collectives on ranks` (TORCH_DISTRIBUTED_DEBUG)."""
    return "reported that the ranks called different collectives"


def nccl_error(detail: str) -> str:
    return f"NCCL communication error ({detail})" if detail else "NCCL communication error"


def comm_error() -> str:
    return "communication error in a collective"


def watchdog_stuck() -> str:
    return "stuck: its NCCL watchdog stopped making progress"


def terminated(who: str | None, how: str, after: bool) -> str:
    """torchrun's `Sending process N closing signal SIGTERM` / `exitcode : -15`, srun's `tasks 0-3:
    Terminated`, slurmstepd's `*** STEP ... CANCELLED AT ...`, Lightning's `Received SIGTERM: 15`."""
    by = f" by {who}" if who else ""
    return f"terminated{by} ({how}) {AFTER_FAILURE if after else WITH_THE_JOB}"


def stopped_by_scheduler(reason: str) -> str:
    """slurmstepd's `CANCELLED AT ... DUE TO TIME LIMIT` (or preemption, node failure) on this rank."""
    return f"stopped by the scheduler ({reason})"


def signalled(name: str, number: int, who: str) -> str:
    """A launcher's report that the rank died of a signal (`exitcode : -11`, `Signal 6 (SIGABRT)`)."""
    return f"died of {name} (signal {number}, reported by {who})"


def exited(code: int, who: str) -> str:
    """A launcher's report of an exit code with no error line of the rank's own before it."""
    return f"exited with code {code} (reported by {who})"


def reported_failed() -> str:
    return "reported failed by the launcher, with no error line of its own in these logs"


def own_error(category: str, exception: str) -> str:
    """A rank's own error line of any other class, with the exception it raised when the line names one."""
    if category == "hang_no_error":
        words = "stopped making progress, with no error of its own"
    elif category == "scheduler_kill":
        words = "stopped by the scheduler"
    else:
        words = f"failed with {category_words(category)}"
    return f"{words} ({exception})" if exception else words


#: who reported a rank's end, as the row names it
LAUNCHER = "the launcher"
SRUN = "srun"
SLURM = "Slurm"
