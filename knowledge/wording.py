"""Sentences the engine adds to a diagnosis (about ranks, clocks and missing evidence).

They describe *how* the engine attributed the failure, never *what* the failure is: that text comes
from the knowledge entries. Kept in one place so the tone stays consistent across outputs.
"""

from __future__ import annotations

from collections.abc import Iterable

from denpex.core.ranks import ranges as ranges  # re-exported: the engine's wording spells ranges so

#: Used when no entry matched at all: the job died without logging an error we know, which most
#: often means it hung (or was killed) silently. Reported with a low confidence and missing evidence.
FALLBACK_CATEGORY = "hang_no_error"

KERNEL_GREP = "dmesg -T | grep -iE 'xid|nvrm|oom|killed process'"


def waited_on(rank: int | None) -> str:
    return f"waited on rank {rank}" if rank is not None else "waited on the initiating failure"


#: a collateral rank of a scheduler's kill with no rank failing first: there is no failure to wait on
STOPPED_BY_SCHEDULER = "stopped by the scheduler with the rest of the job"


def failed_after(rank: int | None) -> str:
    return f"failed after rank {rank}" if rank is not None else "failed after the initiating failure"


def reported_by_launcher() -> str:
    return "reported by the launcher's failure summary (likely a victim, not the cause)"


def desync(odd: dict[int, tuple[str, int]], majority: tuple[str, int]) -> str:
    parts = ", ".join(f"rank {r} ran {op} (SeqNum={seq})" for r, (op, seq) in sorted(odd.items()))
    return (
        f"The ranks disagree on the collective: {parts} while the others ran {majority[0]} "
        f"(SeqNum={majority[1]}). The ranks named here took a different code path."
    )


def rank0_absent(timed_out: Iterable[int]) -> str:
    return (
        f"Ranks {ranges(timed_out)} timed out waiting in a collective and rank 0 logged nothing: work only "
        "rank 0 does (saving a checkpoint, evaluating, logging) is the usual reason; rank 0's own log "
        "would confirm it."
    )


def store_binder() -> str:
    return (
        "The port was taken when the rendezvous store started listening, which only rank 0 does (the "
        "other ranks connect to it as clients): the failure is rank 0's, though its line carries no rank."
    )


def silent_rank(rank: int, timed_out: Iterable[int]) -> str:
    return (
        f"Ranks {ranges(timed_out)} timed out waiting in a collective; rank {rank} never reported a "
        f"timeout, so it is most likely the rank that stalled or died silently."
    )


def silent_ranks(silent: list[int], timed_out: Iterable[int]) -> str:
    named = ", ".join(str(r) for r in silent[:-1]) + f" and {silent[-1]}"
    return (
        f"Ranks {ranges(timed_out)} timed out waiting in a collective; ranks {named} never reported a "
        "timeout. One of them stalled or died silently, but a launcher stopping the job can cut a waiter "
        "off before its own timeout fires, so the logs do not tell which (a py-spy dump or a Flight "
        "Recorder trace of those ranks does)."
    )


def enqueued_behind(rank: int, enqueued: dict[int, int]) -> str:
    others = ", ".join(f"rank {r} {n}" for r, n in sorted(enqueued.items()) if r != rank)
    return (
        f"Rank {rank}'s watchdog says it had enqueued collectives only up to #{enqueued[rank]} while the "
        f"others had reached further ({others}): it was behind, so the others waited for it."
    )


def straggler(rank: int, step: int, others: int) -> str:
    return f"Rank {rank}'s last logged step is {step} while the other ranks reached {others}: it lagged."


def xid_note(code: int, name: str | None, node: str | None, pci: str, rank: int | None) -> str:
    where = f" on {node}" if node else ""
    who = f" (rank {rank})" if rank is not None else ""
    meaning = f" — {name}" if name else ""
    return f"Kernel log: Xid {code}{meaning}{where}, GPU at PCI {pci}{who}."


def implicated(node: str, ranks: Iterable[int]) -> str:
    return (
        f"The logs do not say which GPU each rank used, so every rank on {node} is implicated: "
        f"ranks {ranges(ranks)}."
    )


def clock_fallback() -> str:
    return (
        "Timestamps were missing or not comparable across sources, so the order of failures was "
        "inferred from causal rules; confidence is lowered."
    )


def no_match() -> str:
    return (
        "No known failure signature was found in the logs. The job most likely hung or was killed "
        "without logging an error."
    )


def no_match_last_error(line: str, name: str, firsthand: bool) -> str:
    """No entry matched, but the log ended on a fatal line: the class is read from that line alone."""
    how = "" if firsthand else " (a launcher's report; the failing process's own output is not in the logs)"
    return (
        f"No known failure mode matched; the last error line was `{line}`{how}. The category follows "
        f"from what that line is ({name}) alone, so the confidence is low."
    )


def no_match_waiting(line: str) -> str:
    return (
        f"No known failure signature and no error line was found; the log stops while waiting: `{line}`. "
        "The job most likely hung until it was killed."
    )


def no_match_stopped(line: str) -> str:
    return (
        f"No known failure signature was found; the job was stopped from outside (`{line}`) without an "
        "error of its own, which most often means it hung and someone or something ended it."
    )


def missing_kernel(node: str | None) -> tuple[str, str]:
    if node:
        return f"kernel log of {node}", f"run `{KERNEL_GREP}` on {node}"
    return "kernel logs of the job's nodes", f"run `{KERNEL_GREP}` on every node of the job"


def missing_scheduler() -> tuple[str, str]:
    return (
        "scheduler record of the job (state, exit codes, memory)",
        "run `sacct -j <jobid> --format=JobID,State,ExitCode,DerivedExitCode,MaxRSS,NodeList` (Slurm) "
        "or `kubectl describe pod <pod>` (Kubernetes)",
    )


def missing_ranks(ranks: Iterable[int]) -> tuple[str, str]:
    return (
        f"logs of ranks {ranges(ranks)}",
        "collect every rank's output (Slurm: `srun --output=%j_%t.out`; torchrun: `--log-dir` / `--tee 3`)",
    )


def missing_stalled_rank() -> tuple[str, str]:
    return (
        "a stack of the rank that stalled",
        "rerun with `TORCH_NCCL_DUMP_ON_TIMEOUT=1` and `TORCH_DISTRIBUTED_DEBUG=DETAIL`, or run "
        "`py-spy dump --pid <pid>` on each rank while the job hangs",
    )


def missing_logs() -> tuple[str, str]:
    return (
        "an error message from the job",
        "collect stdout/stderr of every rank and the scheduler record; check `dmesg -T` on the nodes",
    )


def stalled(gap_seconds: float, last_progress: str | None, entry_title: str) -> str:
    gap = f"{gap_seconds / 60:.0f} min" if gap_seconds >= 120 else f"{gap_seconds:.0f} s"
    since = f" (last at {last_progress})" if last_progress else ""
    return (
        f"No rank logged progress for {gap} before this{since}: the job had stopped making progress "
        f"long before it was ended, so the end ({entry_title}) is a consequence, not the cause."
    )


def quiet_before(gap_seconds: float, last_progress: str, every: float) -> str:
    """Progress stopped before the end, but not long enough to call it a hang: say so with the numbers."""
    return (
        f"The last progress line is at {last_progress}, {gap_seconds:.0f} s before this, where steps had come"
        f" every {every:.0f} s: check whether the job was still making progress at the end (if it had"
        " hung, the hang is the cause and more time will not help)."
    )


PHASE_WORDS = {
    "startup": "starting up",
    "model_load": "loading the model weights",
    "rendezvous": "forming the process group",
    "data": "setting up or reading the data",
    "train": "training",
    "eval": "evaluating",
    "checkpoint_save": "saving a checkpoint",
    "checkpoint_load": "loading a checkpoint",
    "finished": "finishing (final save, export or merge)",
    "teardown": "shutting down after another rank failed",
}


def phase_words(phase: str) -> str:
    return PHASE_WORDS.get(phase, phase)


def silent_end(phase: str) -> str:
    """Why a log that just stops in `phase` points where it does (a wait at set-up, a kill elsewhere)."""
    why = (
        "A job that stops there is usually waiting for a peer that never connected (a rank that did not "
        "start, a wrong MASTER_ADDR or port, a proxy or firewall between the pods)."
        if phase == "rendezvous"
        else "A process that vanishes without a traceback there was most likely killed by the kernel "
        "(SIGKILL from the OOM killer leaves no Python error)."
    )
    return f"No error was logged: the log stops while the job was {phase_words(phase)}. {why}"


def peer_vanished(phase: str) -> str:
    """Why lost connections while saving or loading point at a silent death rather than the network."""
    return (
        f"The ranks only lost their connection to a peer while the job was {phase_words(phase)}, and no "
        "rank logged an error of its own: the peer vanished without a traceback, which a kill by the "
        "kernel (the OOM killer's SIGKILL, while a full state dict fills host RAM) leaves and a network "
        "fault does not. The node's kernel log (`dmesg -T | grep -i 'killed process'`) decides it."
    )


def phase_undecided(when: str | None, phases: list[str]) -> tuple[str, str]:
    """Missing evidence when the phase would decide between two classes and nothing says it."""
    at = f" at {when}" if when else ""
    what = " or ".join(phase_words(p) for p in phases)
    return (
        f"what the job was doing{at}: was it {what}? The lines before the failure don't say",
        "look at the training script's output just before the failure (the last progress, save or load "
        "line), or the checkpoint folder's timestamps, to tell which",
    )


# The phases that best characterise an entry when naming them to a user: an entry declared for
# start-up, data, training and teardown is "training or setting up the data", not "starting up".
_TELLING = (
    "train",
    "checkpoint_save",
    "checkpoint_load",
    "model_load",
    "data",
    "eval",
    "finished",
    "startup",
)


def entry_phases(phases: list[str]) -> str:
    """The one or two telling phases of an entry, in words."""
    telling = [p for p in _TELLING if p in phases][:2] or phases[:1]
    return " or ".join(phase_words(p) for p in telling)


def alternative_why(phases: list[str], phase: str | None, score: float | None, best: float) -> str:
    """Why another entry lost: the phase it needs, or weaker evidence."""
    if phases and phase is not None and phase not in phases:
        return f"it happens while {entry_phases(phases)}; this failure came while {phase_words(phase)}"
    if phases and phase is None:
        return f"it fits if the job was {entry_phases(phases)} at the time; the logs don't say"
    if score is not None and best > 0 and round(score, 1) >= round(best, 1):
        return f"evidence as strong (score {score:.1f} against {best:.1f}): the logs don't tell the two apart"
    if score is not None and best > 0:
        return f"weaker evidence (score {score:.1f} against {best:.1f})"
    return "found on another rank or source, not on the one that failed first"


def desync_report(ranks: list[int]) -> str:
    named = ", ".join(str(r) for r in ranks)
    return (
        f"The other ranks name rank{'s' if len(ranks) > 1 else ''} {named} as the one"
        f"{'s' if len(ranks) > 1 else ''} they were waiting for (PyTorch's desync report, or the wait for "
        "the communicator's id): it was slow, stuck or gone."
    )


def shadowed(module: str, path: str) -> str:
    """Why the version entry lost to the code entry for an import found in the project's own folder."""
    return f"'{module}' was found in the project's own folder ({path}), not among the installed packages"


def shadowed_note(module: str, path: str) -> str:
    return (
        f"Python found '{module}' in the project's own folder ({path}), not the installed library: a "
        f"folder or file of the project named '{module}' hides it (the script's folder comes first on "
        "sys.path), or the project's own module lacks the name. No installed version is at fault."
    )


DESYNC_NOT_SLOW = (
    "the ranks were in different collectives, so no rank was merely slow: a longer timeout would not "
    "have let the collective finish"
)


def odd_collective(odd: list[int], odd_calls: list[str], others: list[int], other_calls: list[str]) -> str:
    """Ranks found in another collective than the rest (their tracebacks or watchdog lines), with no
    desync report naming them: what each side was in, as the logs show it."""
    who = f"Rank{'s' if len(odd) > 1 else ''} {', '.join(str(r) for r in odd)}"
    if not odd_calls:
        return f"{who} {'were' if len(odd) > 1 else 'was'} in a different collective from the other ranks."
    rest = f"rank{'s' if len(others) > 1 else ''} {', '.join(str(r) for r in others)}"
    return (
        f"{who} {'were' if len(odd) > 1 else 'was'} in `{'`/`'.join(odd_calls)}` while {rest} "
        f"{'were' if len(others) > 1 else 'was'} in `{'`/`'.join(other_calls)}`."
    )


def no_content(files: int) -> str:
    return (
        f"No log content found: the {files} file{'s' if files != 1 else ''} given "
        f"{'are' if files != 1 else 'is'} empty or not text, so nothing can be said about this job yet."
    )


def missing_content() -> tuple[str, str]:
    return (
        "the job's log text (every file given was empty or binary)",
        "point Denpex at the ranks' stdout/stderr files (Slurm `--output`, torchrun `--log-dir`, "
        "`kubectl logs`), not at checkpoints or core dumps",
    )


def all_at_once(ranks: list[int]) -> str:
    named = ", ".join(str(r) for r in ranks)
    return (
        f"Ranks {named} failed the same way within the same second (the launcher's summary): a call every "
        "rank makes together crashed, so no single rank started it."
    )


def only_rank_seen(rank: int) -> str:
    return (
        f"Only rank {rank}'s output is in the logs, and it waited on a peer: rank {rank} is named for "
        "lack of the others' logs; the rank it waited for is the likelier start."
    )


def unsignalled_child(rank: int, stopped: list[int], hole: int) -> str:
    return (
        f"The launcher stopped pids {', '.join(map(str, stopped))} but not {hole}: that child, local rank "
        f"{rank} by its place among the pids, had already died."
    )


def busy_elsewhere(rank: int, waiting: Iterable[int]) -> str:
    return (
        f"Rank {rank} was still loading or preparing data while ranks {ranges(waiting)} waited in a "
        f"collective: it is the rank the others were waiting for."
    )


def failed_command(rank: int) -> str:
    return f"The launcher printed the failed child's command line: it ran with `--local_rank={rank}`."


def phase_inferred(step: int | None) -> tuple[str, str]:
    """Missing evidence when the save was inferred from a progress bar frozen on a round step."""
    at = f"step {step}" if step is not None else "a round step"
    return (
        f"whether a checkpoint was being saved: the progress bar stopped at {at}, where trainers save, "
        "but no line says a save had started",
        "compare the step with the run's save interval (`save_steps`, `--save-interval`, "
        "`every_n_train_steps`) and look for a half-written checkpoint folder of that step",
    )


def unreadable_file(message: str) -> tuple[str, str]:
    """Missing evidence for a log file that exists but could not be read (the rest was diagnosed)."""
    return (
        f"a log file Denpex could not read ({message})",
        "check the file's permissions (`ls -l`) and run Denpex as a user who can read it, or copy it "
        "somewhere readable",
    )


def npu_rank(rank: int) -> str:
    return (
        f"The failure is rank {rank}'s: torch_npu tagged its error code with `RankID:{rank}` in the same "
        "log, and no other rank is named there."
    )


def lone_worker(rank: int) -> str:
    return (
        f"Processes that print no rank timed out waiting on the c10d store mid-run, while rank {rank}, the "
        "only rank the log names, was still entering the collective: it is most likely the rank they "
        "waited for (slow, e.g. evaluating or saving alone), not a network fault."
    )


def launcher_saw_first(rank: int, started: int) -> str:
    return (
        f"torchrun's failure summary gives rank {rank} as its Root Cause (first observed failure): the "
        f"first process it saw exit, not the one that started it (rank {started})."
    )


def root_cause_rank(rank: int, shown: int) -> str:
    return (
        f"torchrun's failure summary gives rank {rank} as its Root Cause (first observed failure); the "
        f"traceback in the logs is rank {shown}'s, and no line has a time to order them otherwise, so "
        f"rank {rank} is named."
    )
