"""Texts of the run's own figures asked in a word: the timeout as its line prints it and where such a
timeout is set (`knowledge.answer_timeout_figure`), the collective backend (`knowledge.answer_runconf`)."""

from __future__ import annotations

#: the timeout's figure, with the token the line prints (`Timed out waiting 10000ms`, `Timeout(ms)=600000`)
TIMEOUT_FIGURE = "The timeout was {dur}: the line prints `{raw}` ({ref}{who})."
TIMEOUT_WHO = "; {ranks} print it"
#: where a process group's timeout is set; the logs never show where this job set it
TIMEOUT_WHERE = (
    'It is the process group\'s timeout, set in the training script: `dist.init_process_group("{backend}",'
    " timeout=datetime.timedelta(seconds=...))` (a `new_group(..., timeout=...)` for a sub-group; HF"
    " Trainer: `--ddp_timeout`); no kept line shows where this job set it."
)
BACKEND = "The collective backend was {name} ({ref})."
BACKEND_NONE = "The failure lines don't name the collective backend (NCCL or gloo)."

#: the one debug env var asked for (`knowledge.answer_envvar`): the switch, what it shows, where it is
ENV_ONE = "The one to set is `{var}`: {what}{verify}."
ENV_IN_VERIFY = " (it is in this job's verify command: `{command}`)"
#: what each debug switch shows, for the one a message asks by what it should do
ENV_WHAT = {
    "TORCH_DISTRIBUTED_DEBUG=DETAIL": (
        "it checks that every rank calls the same collectives with the same shapes and names the rank"
        " and the call that differ (slower: for a repro run)"
    ),
    "TORCH_NCCL_DESYNC_DEBUG=1": (
        "on a watchdog timeout, NCCL's process group reports which rank(s) never joined the collective"
        " the others wait in (the desync report naming the missing rank)"
    ),
    "TORCH_NCCL_DUMP_ON_TIMEOUT=1": (
        "on a watchdog timeout, each rank writes a Flight Recorder dump of its last collectives"
        " (with TORCH_NCCL_TRACE_BUFFER_SIZE set)"
    ),
    "TORCH_NCCL_ASYNC_ERROR_HANDLING=1": (
        "on a watchdog timeout, NCCL's process group aborts and the rank exits instead of hanging"
    ),
    "NCCL_DEBUG=INFO": "NCCL logs its set-up and errors: the network, transport and peers of each rank",
    "PYTHONFAULTHANDLER=1": "a Python stack of every thread when a rank dies on a signal",
    "CUDA_LAUNCH_BLOCKING=1": "CUDA errors are raised at the kernel that caused them, not a later call",
}

#: the pid of the rank torchrun's summary calls its root cause (`knowledge.answer_agent`)
ROOT_PID = (
    "torchrun's summary names rank {rank} as its root cause (first observed failure): pid {pid}, exitcode"
    " {code} ({ref})."
)
#: every rank in the launcher's summary exited on an error of its own: the launcher stopped none
EXIT_ALL_OWN = (
    "Rank(s) {ranks} each exited with an error of their own; the launcher stopped none of them (no"
    " negative exit code, no signal)."
)

#: each rank's last step line and its stamp (`knowledge.answer_step_stamps`)
STAMPS = "Each rank's last step line, with its own stamp: {rows}."
STAMP_ROW = "rank {rank} `{step}` at {time} ({ref})"
STAMPS_SAME = (
    " All {n} logged {step}, {spread} apart first to last: rank {rank} was not behind the others by step."
)
STAMPS_BEHIND = " Rank {rank} was behind: its last step line is {step}, the others got to {top}."
STAMPS_CLOCK = (
    " Each stamp is from its own rank's log, written by its own process and clock; the stamps alone"
    " cannot tell clock skew from the order the ranks logged in."
)
STAMPS_NONE = "No rank in the kept lines logged a step line with a time, so no stamps can be compared."

#: what to run on the node for the kernel log no bundle has (`knowledge.answer_kernel_cmd`)
KERNEL_CMD = (
    "On {node}, read the kernel log: `dmesg -T | grep -iE 'oom|killed process|xid|nvrm'` (or `journalctl -k"
    " --since '{since}'`), around {time}{pid}."
)
KERNEL_PID = (
    "; the pid to look for is {pid}, rank {rank}'s process by the launcher's summary ({ref}): a `Killed"
    " process {pid}` line is the kernel's OOM kill of it, an Xid/NVRM line a GPU fault"
)

#: the code change a desync asks for, in the function both calls are in (`knowledge.answer_desync_change`)
CHANGE_SAME_CALL = (
    "The change is in `{func}` ({file}): rank{odd_s} {odd} call{odd_v} `{odd_code}` (line {odd_line}) where"
    " rank{rest_s} {rest} call{rest_v} `{rest_code}` (line {rest_line}). Make every rank issue the same"
    " collective: take out the rank-dependent branch so all ranks run `{rest_code}` (line {rest_line}),"
    " or, when rank{odd_s} {odd} must do something else, do it outside the collective (before or after"
    " the same `{rest_op}` every rank calls)."
)
