"""Round 38c: asks for per-rank figures and records read from the ranks' own lines and the Flight
Recorder dumps: a value every rank logged at one step ("loss on each rank at step 2000, in sync?"), the
other ranks' memory against the failing one ("others use as much memory as rank 5?"), what a rank
logged right before its OOM ("step and batch just before it died"), what the ranks printed at the very
end, whether the per-rank files differ, how often steps were logged, each rank's last dump entry and
its state, and the timeout asked in minutes ("timeout how many min").

Why they failed: the step-value answer quoted the first line logged at the step (rank 0's) only; the
memory answer gave the failing rank's allocation without the others'; the "before the failure" answer
quoted the failure line itself, not the batch line above it; "at the very end" and "do the files
differ" matched no fitting intent (the help text, or the scheduler's line); "how often were steps
logged" got a note that the logs cannot show other incidents; the dumps' per-rank state was only given
to asks about a `#N`; and "how many minute" was no figure ask. Now each is read from the kept tails or
the dumps' per-rank activity (`answer_rank_figures`, `answer_rank_tails`, `answer_dump_states`).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # a value every rank logged at one step
    (
        "host_oom_kill",
        "loss on every rank at step 2000? want to see if they matched",
        ["1.5235", "1.5199", "1.4844", "1.4703"],
        [],
    ),
    ("host_oom_kill", "per-rank grad_norm at step 2000 pls", ["1.278", "1.068", "1.242", "0.984"], []),
    ("gpu_oom", "show me the loss each rank logged at step 2000", ["1.5235", "1.4978", "1.4799"], []),
    ("host_oom_kill", "were all ranks in sync on loss at step 1990?", ["rank 0", "rank 3"], []),
    # the other ranks' memory against the failing one
    ("gpu_oom", "did the other ranks use the same memory as rank 5?", ["69", "61"], []),
    ("gpu_oom", "rank 5 mem vs the rest, same or different?", ["69.4", "60.8"], []),
    ("gpu_oom", "others memory like rank5 or lower?", ["69", "61"], []),
    # what a rank logged right before it failed
    ("gpu_oom", "what step and batch was rank 5 on just before the oom?", ["2001", "16384"], []),
    ("gpu_oom", "rank5 right before it crashed - what batch was it processing?", ["16384"], []),
    ("gpu_oom", "last step # and batch size before the OOM?", ["2001", "16384"], []),
    ("host_oom_kill", "what was rank 2 doing right before it got killed? which step", ["2000"], []),
    # what the ranks printed at the very end
    ("time_limit", "what did each rank print last?", ["death signal|Received 15"], []),
    ("time_limit", "final output from the ranks?", ["death signal|Received 15"], []),
    ("time_limit", "what was the very last thing printed by the ranks", ["death signal|Received 15"], []),
    ("gpu_oom", "what did the ranks print at the very end", ["exiting with code 1", "DistBackendError"], []),
    # whether the per-rank files differ
    ("time_limit", "are the per-rank .out files identical?", ["identical|same"], []),
    ("time_limit", "any difference between the four ranks' output files?", ["identical|same"], []),
    ("time_limit", "do the rank logs differ at all, like different losses per rank?", ["identical|same"], []),
    # how often steps were logged
    ("time_limit", "how often were steps logged?", ["4 s|4s|every 4|4 sec"], ["cannot show other incidents"]),
    ("time_limit", "step + loss when it stopped, and how frequently did it log?", ["150", "2.44", "4 s"], []),
    ("gpu_oom", "how often were the step lines logged?", ["10 steps", "21 s"], []),
    # each rank's last Flight Recorder entry and its state
    (
        "flight_recorder",
        "in the FR dumps what state is each rank's last entry in?",
        ["started", "completed"],
        [],
    ),
    (
        "flight_recorder",
        "how many collectives did each rank record in the dumps, and the last one's status?",
        ["started", "completed", "#5", "#4"],
        [],
    ),
    ("flight_recorder", "flight recorder: last recorded collective per rank?", ["started", "completed"], []),
    # the timeout asked in minutes
    ("flight_recorder", "timeout how many mins", ["600000|600 s|10 min"], []),
    ("flight_recorder", "the nccl timeout, how many seconds?", ["600000|600 s|10 min"], []),
]
