"""Round 14a: the facts of each rank, asked the way a reviewer checks the verdict (blind batches 35, 36).

Classes, and why each needs its own answer:
- A borrowed failure time: a rank's failure line with no time of its own carries the nearest earlier
  line's, so every "when did it fail" answer (which rank, when, the timeline) says "at or after <time>
  (its line has no time of its own)", never "at", and no gap is stated as exact.
- Ranks named bare as what they logged ("0 and 2 show …, 1 nothing: need attention?", "what did 1, 2
  and 3 report?"), also inside a message whose asks the splitter cut from those words: each one's own
  error or signal, where its traceback stopped, and the rank they echo.
- Each rank's first error side by side: the first to fail with its own words and figures, then the
  others grouped, not the launcher's summary.
- Which GPU of which node a rank used: the launch line's local rank, or the node's block of ranks, or
  the OOM line's index, each with its source; a node no line names is said to be not recorded.
- Whether it still made progress up to the scheduler's kill: the last step line, its time, the cancel
  time (a "last step line" is no Slurm job step).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # a borrowed time is never stated as the rank's own
    ("desync", "when exactly did rank 3 go down?", ["at or after", "no time of its own"], []),
    ("nan_loss", "what time did the nan rank blow up?", ["at or after", "no time of its own"], []),
    (
        "dataloader_worker_killed",
        "give me the timeline of this failure",
        ["at or after", "how long after is not known"],
        [],
    ),
    ("checkpoint_oom", "when did rank 0 die, relative to the first one?", ["at most"], []),
    # ranks named bare as what they logged
    (
        "nan_loss",
        "0 and 2 printed connection closed, 3 printed nothing. anything wrong with them?",
        ["Connection closed by peer", "SIGTERM", "collateral"],
        [],
    ),
    ("disk_full_save", "what did 1, 2 and 3 report?", ["barrier", "line 177"], []),
    (
        "checkpoint_oom",
        "why did rank 1 go down? and 0 and 2 printed gloo errors, what happened to them",
        ["Connection closed by peer"],
        [],
    ),
    # each rank's first error, side by side
    ("gpu_oom", "show me every rank's first error", ["3.91 GiB", "Watchdog caught"], []),
    ("nan_loss", "first exception from each rank pls", ["Loss is nan", "Connection closed by peer"], []),
    # which GPU of which node
    ("gpu_oom", "which gpu was rank 6 using?", ["local_rank 2", "cuda:2", "gpu-02"], []),
    ("host_oom_kill", "what card did rank 2 run on", ["local_rank 2", "cuda:2"], []),
    ("zero3_save", "which machine did rank 3 run on?", ["not recorded"], []),
    # progress up to the scheduler's kill
    (
        "time_limit",
        "was training still progressing before slurm cancelled it? last step line and the cancel time",
        ["150", "03:10:00", "03:11:40"],
        [],
    ),
]
