"""Follow-up sentences for triage asks: the others' collective timeouts, the timeout, a short test run.

"Usual NCCL noise, safe to ignore?", "is 10000ms the default? can we just bump it?", "what do I run to
get its Python stack next time?": each says its verdict first (not noise, not the default, this
command), then the job's facts. `knowledge.answer_triage` and `knowledge.answer_stack` fill them in.
Kept apart from `followups.py`, which is full.
"""

from __future__ import annotations

NOISE_COLLATERAL = (
    "Not noise to ignore, and nothing new in the timeouts themselves: the {kind} on rank(s) {ranks} are "
    "collateral — the ranks waited {timeout} for rank {rank}, then gave up. Rank {rank} is the one to "
    "look at: it {what}{at} ({ref})."
)
NOISE_SILENT = (
    "Not noise to ignore: the {kind} on rank(s) {ranks} say only that they waited {timeout} and gave up. "
    "What matters is who they waited for: rank {rank}{suspect}."
)
NOISE_DESYNC = (
    "Not the usual timeout: the {kind} on rank(s) {ranks} only say the ranks stopped waiting. The cause "
    "is in the code: {note}"
)
KIND_WATCHDOG = "watchdog timeouts"
KIND_ERRORS = "errors"
KIND_TIMEOUTS = "collective timeouts"
TIMEOUT_FIGURE = "the process group's timeout ({timeout})"
TIMEOUT_UNKNOWN = "the process group's timeout"

TIMEOUT_SET = (
    '{figure} is the process group\'s timeout: `init_process_group(backend="{backend}", '
    "timeout=timedelta(seconds={seconds}))` (or your framework's `ddp_timeout` / `dist_timeout`) sets it."
)
TIMEOUT_NOT_DEFAULT = (
    "It is not PyTorch's default ({default} for {backend}): this job's code or config set it."
)
TIMEOUT_IS_DEFAULT = "That is PyTorch's default for {backend} ({default}): nothing in your config changed it."
DEFAULTS = {"nccl": 600, "gloo": 1800}

STACK_NEXT = (
    "To get rank {rank}'s Python stack while it hangs: `py-spy dump --pid {pid}` on {node} (no restart, "
    "prints every thread's stack; `py-spy dump --native` adds C++ frames). To have the rank print it "
    "itself: `import faulthandler, signal; faulthandler.register(signal.SIGUSR1, all_threads=True)` at "
    "start-up, then `kill -USR1 {pid}` when it wedges; or `faulthandler.dump_traceback_later({seconds}, "
    "repeat=True)` to dump every {seconds} s without anyone watching."
)
STACK_NCCL_DUMP = (
    "On NCCL, `TORCH_NCCL_DUMP_ON_TIMEOUT=1` with `TORCH_NCCL_TRACE_BUFFER_SIZE=2000` also writes each "
    "rank's Flight Recorder dump (with its stack) when the watchdog fires."
)
PG_TIMEOUT_DEBUG = (
    "The timeout is the `timeout=` of `init_process_group` (here {timeout}): for a debug run set it short, "
    "e.g. `init_process_group(..., timeout=timedelta(minutes=2))`, so a hang fails in minutes, not after "
    "the full wait."
)
GLOO_INSTEAD = (
    "For gloo set `TORCH_DISTRIBUTED_DEBUG=DETAIL` instead: it checks every collective's type and shape "
    "across ranks and raises on the first mismatch, naming the ranks (slower: for a short repro run, e.g. "
    "5 steps); `TORCH_CPP_LOG_LEVEL=INFO` shows the process group's own log."
)

TRIAL_AT = " at {file} line {line}{code}, where rank {rank} failed"
TRIAL_CHANGE = "The change{at}: {change}"
TRIAL_TEST = "To try it before the relaunch: {test}"
