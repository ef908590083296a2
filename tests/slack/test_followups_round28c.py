"""Round 28c: terse asks and a collateral error put as noise — "who first", "job id?", "do the other
ranks' errors mean anything, or are they fallout?".

Why: a two-word ask names the rank that started it; the scheduler's job id is the number its end line
(or a log's name) gives, or the answer says no line gives one and where to read it; "fallout" is the
collateral answer (whom they waited on, how they were stopped), not the help reply.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("nan_loss", "who first?", ["Rank 1", "failed first"], []),
    ("desync", "who was first", ["Rank 3"], []),
    ("time_limit", "job id", ["Job 991", "slurm-991.log:2"], []),
    ("time_limit", "what's the batch job number?", ["991"], []),
    ("gpu_oom", "slurm job id?", ["No line of this job's logs gives its scheduler id", "sacct"], ["Job 991"]),
    (
        "segfault",
        "are the errors on ranks 0-2 just fallout from rank 3?",
        ["collateral", "rank 3"],
        [],
    ),  # guard
    (
        "disk_full_save",
        "do the errors on the other ranks mean anything?",
        ["collateral of rank 0", "barrier"],
        [],
    ),
]
