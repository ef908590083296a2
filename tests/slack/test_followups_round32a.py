"""Round 32a: asks for a log line's own text, place, rank or port — "quote the launcher.log line",
"whats the srun line in slurm-991.log say?", "which ranks printed 'Connection closed by peer' and what
port did each show?", "first line with ERROR in rank5.log", "what did each rank's .out print as its
very last line?", "what line number in console.log is the DistNetworkError on?".

Why: the answers paraphrased the failure (or fell back to help, or said no port appears while gloo's
lines name the peer's `[127.0.0.1]:port`); `knowledge.answer_loglines` finds the kept lines the
message names (a fragment it quoted, an exception name, srun / slurmstepd / the launcher's failure
line, a rank's error line), narrows them to the rank and file it names and to the first or last one,
and quotes each with its place, its rank and the port it names.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "checkpoint_oom",
        "which rank printed the 'Saving checkpoint to' line and at what time",
        ["rank 0|rank0|default0", "21:38:30,286|21:38:30.286"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "which ranks printed 'Connection closed by peer' and what port did each show?",
        ["34470", "11928"],
        ["No port appears"],
    ),
    (
        "disk_full_save",
        "what peer port did ranks 1-3 report in their Connection closed by peer errors?",
        ["2459"],
        ["No port appears"],
    ),
    (
        "nan_loss",
        "which ranks printed Connection closed by peer and which port each?",
        ["23686", "18345"],
        [],
    ),
    (
        "nan_loss",
        "what port did each rank show in the connection closed by peer line",
        ["23686", "18345"],
        [],
    ),
    (
        "gpu_oom",
        "whats the first line with ERROR in rank5.log?",
        ["training step 2001 failed", "03:14:02,123|03:14:02.123"],
        [],
    ),
    ("host_oom_kill", "quote the launcher.log line", ["exitcode: -9", "local_rank: 2", "51234"], []),
    ("host_oom_kill", "can you paste the exact launcher line", ["exitcode: -9", "51234"], []),
    ("segfault", "quote the launcher line that names the failed process", ["exitcode: -11", "24103"], []),
    ("time_limit", "quote the slurmstepd line", ["DUE TO TIME LIMIT", "03:11:40"], []),
    (
        "time_limit",
        "what did each rank's .out print as its very last line?",
        ["Received 15 death signal"],
        [],
    ),
    ("time_limit", "whats the srun line in slurm-991.log say?", ["Waiting up to 32 seconds"], []),
    ("xid", "quote rank 5's error line", ["unspecified launch failure", "03:14:03,518|03:14:03.518"], []),
    (
        "rendezvous_port_in_use",
        "what line number in console.log is the DistNetworkError on?",
        ["console.log:40"],
        [],
    ),
    (
        "disk_full_save",
        "what's the first RuntimeError rank 0 printed, before the 'During handling' bit?",
        ["basic_ios::clear: iostream error"],
        [],
    ),
    ("nan_loss", "quote the ValueError line rank 1 printed", ["Loss is nan", "rank 1|rank1"], []),
    (
        "dataloader_worker_killed",
        "which rank printed 'is killed by signal' and what does the line say?",
        ["rank 2|rank2", "22194"],
        [],
    ),
]
