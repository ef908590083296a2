"""Round 36a: asks about a scheduler-ended job's own end lines — "quote the slurm line that proves it",
"which file has the slurmstepd cancel lines", "exact time it cancel?", "what happened to job 991?",
"job id and step id that got cancelled"; a log's lines cited by number in a file named once
("slurm-991.log: what does line 1 say?"); the step cadence with both step stamps ("prove it from the
log", "ts for step 5 and step 6? ~1s/step"); when torchrun began the SIGTERMs when its own `Sending
process` lines were not kept (its failure summary's time); the checkpoint file a save was writing, asked
beside another ask; a rank's error line in its own per-rank log (not console.log); which rank failed
first, asked while naming a collateral rank as context; "what actually broke here, one sentence".

Why: no intent's cues named a scheduler's cancel, so those asks got the help reply; "cadence" and
"1s/step" were not read as a pace ask; the other asks were answered for the part that matched best and
left out the fact the message named. Each step answers from the job's own lines (file:line, time), and
adds nothing when the job has no such line.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("time_limit", "quote the slurm line that proves it", ["CANCELLED AT", "DUE TO TIME LIMIT"], []),
    ("time_limit", "quote the scheduler line", ["slurm-991.log", "DUE TO TIME LIMIT"], []),
    ("time_limit", "what happened to job 991?", ["TIME LIMIT|time limit", "slurm-991.log:2"], []),
    ("time_limit", "exact time it cancel?", ["03:11:40"], []),
    ("time_limit", "which file has the slurmstepd cancel lines", ["slurm-991.log"], []),
    ("time_limit", "job id and step id that got cancelled", ["991", "991.0"], []),
    (
        "time_limit",
        "what was the step cadence right before it stopped? prove it from the log",
        ["03:09:56", "03:10:00"],
        [],
    ),
    ("time_limit", "step cadence near the end? show me the stamps", ["03:09:56", "03:10:00"], []),
    (
        "time_limit",
        "slurm-991.log: what does line 1 say about the wait, and which step ID is on line 3?",
        ["32 seconds", "991.0"],
        [],
    ),
    ("time_limit", "in slurm-991.log, what is on line 1?", ["Waiting up to 32 seconds"], []),
    (
        "checkpoint_oom",
        "what ckpt file was it writing, need to go rm the partial. and rank3 - crashed on its own or got"
        " killed?",
        ["checkpoint-6.pt", "SIGTERM"],
        [],
    ),
    (
        "checkpoint_oom",
        "ok I'm not a pytorch person. what actually broke here, one sentence pls",
        ["rank 1|rank1", "memory"],
        [],
    ),
    ("checkpoint_oom", "what broke here?", ["rank 1|rank1", "memory"], []),
    (
        "checkpoint_oom",
        "step cadence before the save - ts for step 5 and step 6? ~1s/step or worse?",
        ["21:38:29,390|21:38:29.390", "21:38:30,286|21:38:30.286"],
        [],
    ),
    ("checkpoint_oom", "what was the step cadence?", ["1 s a step"], []),
    (
        "checkpoint_oom",
        "pid of the failing rank, and when did torchrun start sending SIGTERMs",
        ["23264", "21:38:35"],
        [],
    ),
    (
        "checkpoint_oom",
        "which per-rank log file + line number has rank1's actual alloc failure (not console.log)",
        ["1/stderr.log", "68"],
        [],
    ),
    ("checkpoint_oom", "where is rank 1's error in its own stderr.log?", ["1/stderr.log:68"], []),
    (
        "checkpoint_oom",
        "which rank is die first? i see rank0 also have error, I am confuse",
        ["rank 1|rank1"],
        [],
    ),
    ("checkpoint_oom", "rank 2 has an error too, but which rank failed first?", ["rank 1 "], []),
]
