"""Round 38d: asks for one event of the job or one source line, with its time or its value — when the
job fell over (besides the timeout), when the checkpoint save started (its file and step), the last
training step before that save (the job's, or a named rank's) and its time, which rank logged the save
line, which pids the torchrun agent sent SIGTERM to and when, whether a flag (`rank0_only`) was set
("rank0_only is set or no?"), where in DeepSpeed a rank ran out of memory (the function and the
operation on the parameters), whether a rank ran on another host than the others, and the exact line
of a named script ("show me the exact line in train.py").

Why they failed: a terse message ("last train step + ts before the save", "exact save start ts,
filename, step") got the help reply; the phase answer quoted the save line ("saving checkpoint at step
50", 03:05:00) as the last step, so the step's own time (03:03:20) was never said; the other ask of a
message (the timeout, the failing rank's part) took the answer and the asked event was left out; the
agent's `Sending process … SIGTERM` lines were not kept, so the pids came without a time; the setting's
value was told only for "is rank0_only set?"; the DeepSpeed frames only for "which function in
deepspeed"; the code line only for "which line". Each is now added from the job's own lines: the last
completed step line (no save line), the first save line after it, the rank whose own log holds the
save line, the launcher's failure report or summary time, the ranks' nodes.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("desync", "the time it fell over, and the timeout in ms", ["21:36:22", "15000|15 s|15s"], []),
    ("checkpoint_oom", "time the job fell over + the error it hit", ["21:38:35"], []),
    ("segfault", "time it fell over + which signal", ["21:39:04"], []),
    (
        "fsdp_cpu_save",
        "what was the last training step, and its timestamp, before the checkpoint save began",
        ["03:03:20", "step 50"],
        [],
    ),
    ("fsdp_cpu_save", "last train step + time b4 saving", ["step 50", "03:03:20"], []),
    ("zero3_save", "last train step + ts before the save", ["03:06:40", "step 100"], []),
    (
        "disk_full_save",
        "save start ts + ckpt filename + step",
        ["21:36:52", "checkpoint-4", "step 4|4/10"],
        [],
    ),
    (
        "checkpoint_oom",
        "save start: exact ts, filename, step",
        ["21:38:30", "checkpoint-6", "step 6|6/10"],
        [],
    ),
    ("zero3_save", "when exactly did the save start and into which dir", ["03:08:20", "out/"], []),
    ("fsdp_cpu_save", "save start time and step?", ["03:05:00", "step 50"], []),
    (
        "host_oom_kill",
        "rank 2's last train step + ts of its 'building in-memory index' line",
        ["2000", "03:14:04"],
        [],
    ),
    ("host_oom_kill", "last training step on rank 2 and the time it was logged", ["2000", "03:13:52"], []),
    ("xid", "rank 5's last training step + its timestamp?", ["2000", "03:13:52"], []),
    (
        "checkpoint_oom",
        "which rank printed the checkpoint-6 save line, and what time",
        ["rank 0|rank0", "21:38:30"],
        [],
    ),
    ("disk_full_save", "who logged the checkpoint-4 save and when", ["rank 0|rank0", "21:36:52"], []),
    (
        "checkpoint_oom",
        "the agent (pid 23211) SIGTERMed which pids, and when",
        ["23263", "23265", "23266", "21:38:35"],
        [],
    ),
    (
        "disk_full_save",
        "agent sent sigterm to which pids + when",
        ["21750", "21751", "21752", "21:36:54"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "was rank0_only passed or not?",
        ["rank0_only", "not passed|not set|is not set|without"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "rank0_only - set in our code?",
        ["rank0_only", "not passed|not set|is not set|without"],
        [],
    ),
    (
        "zero3_save",
        "where in deepspeed did it OOM: which function, what op on the params",
        ["_zero3_consolidated_16bit_state_dict", "clone"],
        [],
    ),
    (
        "zero3_save",
        "where in DeepSpeed was rank 0 when memory ran out, and what operation on the tensors?",
        ["_zero3_consolidated_16bit_state_dict", "clone"],
        [],
    ),
    (
        "hang_before_collective",
        "was rank 3 running on a different node from ranks 0-2?",
        ["localhost"],
        ["gpu-01", "gpu-02"],
    ),
    ("xid", "rank 5 on a different node than the others?", ["gpu-02", "4,6,7|4, 6, 7"], ["alone"]),
    ("xid", "is rank 0 on the same host as rank 5?", ["gpu-01", "gpu-02"], []),
    ("fsdp_cpu_save", "paste the exact line from train.py", ["301", "offload_to_cpu=True"], []),
    ("checkpoint_oom", "show me the exact line in train.py", ["174"], []),
]
