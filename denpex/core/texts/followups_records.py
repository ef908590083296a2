"""Texts of the record answers: the lines a message cites by file:line, the kernel's kill record, the
launcher's record of the failed process and whom it sent SIGTERM, the values logged at named steps,
the last step before the save, and the full path of a cited code frame."""

from __future__ import annotations

CITED = "{ref} says{at}: `{text}`."
CITED_SPAN = "{ref} say{at}: {texts}."
KILL = (
    "The kernel's kill record ({ref}{at}): `{text}`: it killed pid {pid} ({comm}), total-vm {vm} kB "
    "({vm_gib}), anon-rss {rss} kB ({rss_gib}) resident in host RAM{uid}."
)
KILL_UID = ", UID {uid}"
KILL_HOST = (
    "That is the host's OOM killer ending a process for host (CPU) RAM, not a CUDA out-of-memory error, "
    "which a rank raises itself as `torch.OutOfMemoryError` and which no kernel log records."
)
LAUNCHER = (
    "The launcher's record ({ref}{at}): `{text}`: local_rank {local} (pid {pid}) ended with exit "
    "code {code}{sig}."
)
LAUNCHER_SAME_PID = " That is pid {pid}, the process the kernel killed ({ref})."
SIGTERM = "The launcher sent {sig} to pid(s) {pids} ({ref}{at}){who}."
SIGTERM_WHO = ": {ranks}"
STEP_VALUE = "step {step}: `{text}` ({ref}{at})"
STEP_VALUES = "Logged at the steps asked: {rows}."
LAST_BEFORE_SAVE = (
    "Rank {rank}'s last training step line was step {step} ({ref}{at}); its save started {save_at} "
    "({save_ref}: `{save_text}`), {gap} after that step."
)
FULL_PATH = "The file is `{path}`, line {line}, in `{func}` ({ref})."
EMPTY_FILE = (
    "`{path}` is the empty one: rank {rank}'s other file has lines, and it is the only one of the {files} "
    "files scanned that gave no line, so rank {rank} printed no error of its own there."
)
EMPTY_STOPPED = (
    "That is expected, not a bad sign: rank {rank} was stopped from outside — the launcher's summary gives"
    " it exitcode {code} ({sig}{pid}, {ref}): a signal ended it, so it had no error of its own to"
    " print."
)
ERR_FILE = "Rank {rank}'s stderr.log has the failure: `{text}` ({ref})."
