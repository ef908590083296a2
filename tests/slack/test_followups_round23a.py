"""Round 23a: how far a job got and how fast, what the failing step's own lines logged, a failed
write's error text, the line proving the scheduler's kill, and a silent rank's activity.

Why: "how far did it get and how fast?" and "how many steps in did this die, vs a full 10-step run?"
are the furthest step line ("step 6 of 10 (6/10)") with the step rate, then what it was doing, not the
rank count or a phase that says "was 150"; "what's different about the step that died?" / "why OOM on
step 2001 when 2000 steps were fine?" is the failing rank's own line about that step's batch (`4 x 16384
tokens, packing disabled`), or that no such line was kept; "the actual error text from the write, ENOSPC
or something else?" is the rank's error lines as printed, and whether the named errno is in them;
"where's the line proving slurm killed it for time and not a crash?" is the scheduler's own line,
quoted; "what exactly was rank 3 doing: a python loop, I/O, a deadlock?" for a rank that printed no
stack is that its lines cannot tell, with what would (py-spy).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # how far it got (of how many), how fast, what it was doing
    (
        "checkpoint_oom",
        "my last run got through all 10 steps fine. how far did this one get before it blew up, "
        "and what was it doing at that moment?",
        ["6/10", "checkpoint-6"],
        [],
    ),
    ("segfault", "how many steps in did this die, vs a full 10-step run?", ["1/10"], []),
    (
        "time_limit",
        "how far did it get and how fast? I need to know what time limit to ask for",
        ["step 150", "4 s"],
        [],
    ),
    ("nan_loss", "how far did training get, and how fast were the steps?", ["6/10", "10 ms"], []),  # guard
    ("xid", "how far along was it when it died?", ["2000/6000"], []),  # guard
    ("dataloader_worker_killed", "how many steps in did it crash, out of the 10?", ["step"], []),
    # what set the failing step apart: its own batch line, or that none was kept
    (
        "gpu_oom",
        "we ran 2000 steps last week without a problem. what's different about the step that died?",
        ["2001", "16384"],
        [],
    ),
    (
        "gpu_oom",
        "why did rank 5 OOM on step 2001 when it was fine for 2000 steps?",
        ["16384", "packing"],
        [],
    ),
    (
        "host_oom_kill",
        "what was different about the step it died on?",
        ["don't show", "rank 2"],
        ["16384"],
    ),
    # a failed write's error text, as printed, and the errno asked about
    (
        "disk_full_save",
        "what's the actual error text from the write? I want to see if it's ENOSPC or something else",
        ["unexpected pos 1088 vs 982", "basic_ios::clear", "none of these lines says `ENOSPC`"],
        [],
    ),
    ("disk_full_save", "what was the exact error message?", ["unexpected pos 1088 vs 982"], []),
    (
        "disk_full_save",
        "did it literally say No space left on device?",
        ["unexpected pos 1088 vs 982", "none of these lines says"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "what's the raw exception text? is it EIO or something?",
        ["DataLoader worker (pid 22194) is killed by signal: Killed", "EIO"],
        [],
    ),
    # the scheduler's own line as proof
    (
        "time_limit",
        "where's the line proving slurm killed it for time and not a crash?",
        ["slurm-991.log:2", "DUE TO TIME LIMIT", "03:11:40"],
        [],
    ),
    (
        "time_limit",
        "show me the evidence it was the time limit, not our code",
        ["slurm-991.log", "TIME LIMIT"],
        [],
    ),  # guard
    # a silent rank: its lines cannot tell what it was doing
    (
        "hang_before_collective",
        "what exactly was rank 3 doing — stuck in a python loop, in I/O, a deadlock?",
        ["don't show", "py-spy"],
        [],
    ),
    (
        "flight_recorder",
        "what exactly was rank 2 doing? deadlock?",
        ["don't show", "py-spy"],
        [],
    ),
]
