"""Round 33b: "how do I get the tools to tell me X" asks and a timeout the message names — "how do I
find the op that makes the first nan", "how do I rerun so torch tells me the mismatch", "how do I get
slurm to warn me so I can save before the kill", "did my 10s timeout cause this? should I raise it".

Why: these asks name the thing to reveal rather than a debug topic, so they reached the restart or
help answer, which never named the switch (`set_detect_anomaly`, `TORCH_DISTRIBUTED_DEBUG=DETAIL`,
`--signal=B:USR1@…`); a question about the job's timeout got the verdict without the timeout's value.
`knowledge/answer_howto.py` adds the switch, and the timeout values read from the job's own lines
(with what raising the timeout can and cannot change), or says no line prints one.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("nan_loss", "how do i find the op that makes the first nan", ["detect_anomaly"], []),
    ("nan_loss", "how can we figure out which layer produces the inf?", ["detect_anomaly"], []),
    ("desync", "how do i rerun it so torch tells me the mismatch", ["TORCH_DISTRIBUTED_DEBUG"], []),
    (
        "desync",
        "is there a way to make pytorch report which rank called a different collective?",
        ["TORCH_DISTRIBUTED_DEBUG=DETAIL"],
        [],
    ),
    ("time_limit", "how do i get slurm to warn me so i can save before the kill", ["--signal|USR1"], []),
    ("time_limit", "can the scheduler send a signal before the time limit hits?", ["--signal"], []),
    (
        "hang_before_collective",
        "did my 10s timeout setting cause this? should i raise it",
        ["10000 ms", "10 s", "rank 3", "console.log:28"],
        [],
    ),
    (
        "hang_before_collective",
        "should we bump the timeout for the rerun?",
        ["10000 ms", "only if"],
        [],
    ),
    ("gpu_oom", "was the timeout too short? should i increase it", ["600000 ms", "10 min"], []),
]
