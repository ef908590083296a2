"""Round 36d: asks that cite one line of the job by file:line ("What does rank5.log:207 say at
03:14:03,518?") or want a rank's own error line ("rank 5: what error + exit code", "what line ties the
xid to rank 5?"); "which train.py line raised the ValueError"; the losses each named rank logged at a
step, and the whole logged series ("list the losses that were logged", "loss trajectory step 0 -> step
6"); "did the crashing one leave an error msg we can google?"; "the last training step before the oom".

Why: the answer for the message's first ask quoted the kernel's or the launcher's line, the last few
values, or fell back to help; each step now quotes the job's own line the message points at (file:line,
time, value), and nothing when the job has no such line.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("xid", "What does rank5.log:207 say at 03:14:03,518?", ["unspecified launch failure"], []),
    ("xid", "quote rank5.log:207 for me", ["unspecified launch failure"], []),
    ("xid", "what does rank5.log:208 say", ["exiting with code 1"], []),
    (
        "xid",
        "rank 5: what error + exit code",
        ["unspecified launch failure", "exiting with code 1|code 1"],
        [],
    ),
    ("xid", "what error did rank 5 hit?", ["unspecified launch failure"], []),
    (
        "xid",
        "what line ties the xid to rank 5? dmesg only gives pid 45121",
        ["unspecified launch failure", "rank 5|rank5"],
        [],
    ),
    ("nan_loss", "line in train.py that raised", ["207"], []),
    ("nan_loss", "which train.py line raised the ValueError", ["207"], []),
    (
        "host_oom_kill",
        "Could you tell me the losses each rank logged at step 2000, especially rank 2 and rank 0?",
        ["1.4844", "1.5235"],
        [],
    ),
    ("host_oom_kill", "losses of rank 2 and rank 0 at step 2000?", ["1.4844", "1.5235"], []),
    (
        "segfault",
        "Could you please list the losses that were logged before the crash?",
        ["1.1507", "1.0193"],
        [],
    ),
    (
        "nan_loss",
        "loss trajectory step 0 -> step 6? any upward trend before the nan",
        ["1.1507", "1.0358"],
        [],
    ),
    ("segfault", "did the crashing one leave an error msg we can google, or nothing?", ["-11|SIGSEGV"], []),
    ("host_oom_kill", "before oom happen last training step was?", ["2000/6000|step 2000"], []),
    ("nan_loss", "last finite step index logged before the nan guard fired?", ["6/10|step 6"], []),
    (
        "host_oom_kill",
        "what was the thing that got killed actually doing right before? is this our data code",
        ["in-memory index|1.2B"],
        [],
    ),
    (
        "flight_recorder",
        "The footer says 4 files were scanned, but there are rank logs plus nccl_trace_rank_* dumps. How"
        " many Flight Recorder dumps did you parse, and what comm lib version do they report?",
        ["4 Flight Recorder dumps", "2.21.5"],
        [],
    ),
    ("flight_recorder", "how many dumps did denpex parse?", ["4 Flight Recorder dumps"], []),
    (
        "flight_recorder",
        "which trace dump file shows rank 2 never entering the collective",
        ["nccl_trace_rank_2"],
        [],
    ),
    ("flight_recorder", "which dump file is rank 2's missing all_reduce in?", ["nccl_trace_rank_2"], []),
    ("flight_recorder", "pg timeout and which ProcessGroupNCCL.cpp line logged it", ["600000", "616"], []),
    (
        "flight_recorder",
        "env vars the bot wants set on the rerun",
        ["TORCH_NCCL_DUMP_ON_TIMEOUT=1", "TORCH_NCCL_DESYNC_DEBUG=1"],
        [],
    ),
    ("flight_recorder", "which env vars should I set for the next run?", ["TORCH_NCCL_DESYNC_DEBUG=1"], []),
    ("segfault", "gdb cmd to grab a backtrace next time", ["gdb -batch", "PYTHONFAULTHANDLER=1"], []),
    ("segfault", "what gdb command should I run on the rerun?", ["gdb -batch"], []),
    (
        "nan_loss",
        "step 0 and step 6 timestamps? want per-step ms",
        ["21:36:34,124|21:36:34.124", "21:36:34,184|21:36:34.184"],
        [],
    ),
    ("nan_loss", "timestamps of step 0 and step 3?", ["21:36:34,124", "step 3"], []),
    (
        "segfault",
        "ts of last step and of the agent's 'failed' line",
        ["21:39:04,067|21:39:04.067", "21:39:04.729|21:39:04,729"],
        [],
    ),
    ("segfault", "when was the launcher's failed line stamped?", ["21:39:04.729"], []),
    (
        "desync",
        "torchrun's Root Cause block (console.log:121-128) names a rank and PID. Which ones, and do you"
        " agree with it? Which rank did you name instead?",
        ["20603", "rank 3|rank3"],
        [],
    ),
    ("desync", "the root cause block in console.log names which pid?", ["20603"], []),
    (
        "host_oom_kill",
        "how do you know it was the kernel OOM killer and not the process crashing on its own? quote it",
        ["Killed process 51234|oom-killer", "-9"],
        [],
    ),
    ("host_oom_kill", "proof it was an oom kill and not a crash?", ["Killed process 51234", "-9"], []),
    ("nan_loss", "which train.py line did the nan guard raise from?", ["207"], []),
    ("segfault", "did the crashed rank leave an error msg i can google?", ["-11|SIGSEGV"], []),
    ("desync", "can u give me a one-liner on what went wrong", ["rank 3|rank3", "broadcast"], []),
    ("desync", "one liner for the incident channel pls", ["broadcast", "all_reduce"], []),
]
