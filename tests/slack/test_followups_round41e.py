"""Round 41e: compound and comparative asks in one message, where one part was answered and the other
dropped: "how many steps ran, and how long from 'Starting training' to the save line?", "how many steps
and how long after 'Starting training' did it die?", "last step logged, and how long from that to the
launcher catching the segfault?", "what time did it fail and did any rank come up before it?", "how
long would 1000 steps take at this rate?", "did all four ranks time out or only three?", "how far did
it get out of the planned steps?".

Why: a sub-second span was written "0.1 s" (79 ms read as 100 ms); a failure line with no time of its
own was bounded from the last step line only, never from the start of training the message counted
from; "the launcher catching it" named no event; a projection of N steps at the step rate was never
made (the rate was given, the asked total was not); a choice between "all" and "only three" got each
rank's line but no count; and a step line that reports its own step's failure ("training step 2001
failed") was given as the furthest step reached, never saying the step before was the last to finish.
Now spans under a second carry their milliseconds, the bound is counted from the named start too,
"catching/detecting/declaring" names the launcher's report, a time-of-failure part beside another
part is asked on its own when the answer gives no time, the pace answer leads with the asked projection, a
count step leads with how many of the world failed with the same line, and the how-far answer says
which step last finished.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "disk_full_save",
        "how many steps ran before the checkpoint attempt, and how long from 'Starting training' to the save line?",  # noqa: E501
        ["step 4|checkpoint-4|4/10", "79 ms|70 ms"],
        [],
    ),
    (
        "disk_full_save",
        "how long between the 'Starting training' line and the checkpoint save line, and at which step?",
        ["step 4|checkpoint-4|4/10", "79 ms|70 ms"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "how many steps did it get through and how long after 'Starting training' did it die?",
        ["step 1|1/10", "0.4 s|399 ms|4.1 s"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "which step was it on, and how long after training started did rank 2 crash?",
        ["step 1|1/10", "0.4 s|399 ms|4.1 s"],
        [],
    ),
    (
        "segfault",
        "how far in was it - last step logged, and how long from that to the launcher catching the segfault?",
        ["step 1|1/10", "662 ms|0.7 s"],
        [],
    ),
    (
        "segfault",
        "last step logged and the time from it until torchrun detected the crash?",
        ["step 1|1/10", "662 ms|0.7 s"],
        [],
    ),
    (
        "time_limit",
        "at the rate it was going, how long would 1000 steps take? need to size --time",
        ["4000 s|67 min"],
        [],
    ),
    ("time_limit", "how much time do 5000 more steps need at this pace?", ["20000 s|5 h 33 min"], []),
    (
        "desync",
        "did all four ranks time out or only three? and which one did torchrun report first?",
        ["All 4 ranks", "rank 0"],
        ["only three ranks timed out"],
    ),
    ("desync", "was it every rank that hit the timeout or just some of them?", ["All 4 ranks"], []),
    (
        "desync",
        "how long between the last step log and the launcher declaring failure, and does that line up with the 15s timeout?",  # noqa: E501
        ["18.4 s", "15000|15 s"],
        [],
    ),
    (
        "desync",
        "time from the last step line to torchrun declaring the job failed, vs the 15 s timeout?",
        ["18.4 s", "15000|15 s"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "what time did it fail and did any rank come up before it did?",
        ["doesn't say|don't say|no timestamp|no time", "No worker|no rank|never ran"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "when did the job die, and did any of the ranks start before that?",
        ["doesn't say|don't say|no timestamp|no time", "No worker|no rank|never ran"],
        [],
    ),
    ("gpu_oom", "How far did it get out of the planned steps?", ["step 2000", "6000"], []),
    ("gpu_oom", "how far did training get before it died, out of the total?", ["step 2000", "6000"], []),
]
