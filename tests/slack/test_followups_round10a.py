"""Round 10 (false premises and routing, held-out batch 30), answered by class in new phrasings.

A yes/no check that names the wrong rank as the one that started it ("rank 0 went down first,
correct?", "the one that got OOM-killed was rank 0?") gets no first, then the rank that did, what it
hit, where in the code and its pid; the right rank gets yes, and "got killed" is corrected when no
process was killed. A step put as the failure's ("it crashed on step 8?") is checked against the last
step any rank logged. "Which rank … and at which step" gets the step too. A desync put as the cause is
yes only when ranks were seen in different collectives. "sacct command?" gets the command, with the
job's id when a log names it.
Each answer must state the job's fact, and never the opposite.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # 1. the wrong rank put as the one that started it: no, then the rank that did, what and where
    ("checkpoint_oom", "so rank 0 crashed first, yeah?", ["no", "rank 1 started it", "line 174"], []),
    (
        "host_oom_kill",
        "rank 0 was the first to die, correct?",
        ["no", "rank 2 started it", "51234"],
        ["yes"],
    ),
    ("gpu_oom", "rank 3 started this right?", ["no", "rank 5 started it", "out-of-memory"], []),
    (
        "disk_full_save",
        "so rank 2 went down first in the barrier?",
        ["no", "rank 0 started it", "save_checkpoint"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "rank 0 was first to go down, right? its traceback is at the top",
        ["rank 2", "3312"],
        [],
    ),
    # ... a rank named from the others' wait: most likely, with what the traces say
    ("flight_recorder", "rank 0 kicked it off right?", ["no", "rank 2 most likely", "all_reduce #5"], []),
    # ... the right rank: yes; "killed" corrected when nothing killed it
    ("host_oom_kill", "did rank 2 kick this off?", ["yes", "rank 2", "51234"], []),
    ("checkpoint_oom", "rank 1 is the one that got oom killed?", ["nothing killed it", "rank 1"], []),
    # 2. a step put as the failure's: the last step any rank logged
    ("disk_full_save", "it crashed on step 8 right?", ["no", "step 4 of 10"], []),
    ("gpu_oom", "it blew up around step 2500 right?", ["no", "step 2001"], []),
    ("time_limit", "it got killed at step 150?", ["yes", "step 150"], []),
    # 3. which rank and at which step: the step too
    ("segfault", "which rank segfaulted around which step", ["rank 3", "step 1 of 10"], []),
    # 4. a desync put as the cause
    ("gpu_oom", "i'm guessing it's a desync like last week?", ["not a desync", "out-of-memory"], []),
    ("desync", "one rank took a different code path, right?", ["yes", "broadcast"], []),
    (
        "flight_recorder",
        "so this is a collective mismatch, one rank on a different branch?",
        ["no evidence of a desync", "rank 2 never entered"],
        [],
    ),
    # 5. the accounting command
    ("time_limit", "sacct line for job?", ["sacct -j 991", "timelimit"], []),
    ("host_oom_kill", "gimme the sacct command", ["sacct -j", "maxrss"], []),
]
