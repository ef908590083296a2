"""Round 18a: facts asked beside another fact (a reviewer filling in the incident's numbers).

Why: "total runtime?" or "wall clock + rank count" tacked onto another ask (how long the others hung,
how far it got) is the run's own length, first to last log line, and its world size, said after the
other answer when that answer does not say it; a span question that quotes a line cut short with
"..." ("from the 'Saving checkpoint to ...' line until the SIGTERMs") is one ask, not two halves; "how
big was the tensor in the stuck collective" is the watchdog line's NumelIn, in elements (the bytes only
per dtype, which the line does not print); an exit code asked about without "mean" ("what's exit code
-11", "is -11 like -9?") is whose process exited with it, read against the other code named; "did the
loss climb / blow up gradually" is answered no or yes first from the logged values, even when the
message also states a step to be checked.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the run's wall-clock length and size, beside another ask
    (
        "xid",
        "after the gpu dropped how long did everyone else wait, and whats the total runtime",
        ["83 min", "02:00:42", "600 s"],
        [],
    ),
    (
        "zero3_save",
        "ranks 1-7 sat there how long? also the total wall clock on how many gpus",
        ["1096 s", "8 ranks"],
        [],
    ),
    (
        "segfault",
        "wall clock + rank count pls? rerun as is?",
        ["8.7 s", "4 ranks"],
        [],
    ),
    # a quoted line cut short with "..." inside a span question: one ask
    (
        "checkpoint_oom",
        "at what step did the save begin, and how long from the 'Saving checkpoint to ...' line to "
        "the first SIGTERM?",
        ["step 6", "about 5 s"],
        [],
    ),
    # the stuck collective's tensor size, from the watchdog's own line
    (
        "flight_recorder",
        "numel of the allreduce that never finished? and what nccl version",
        ["1,048,576 elements", "2.21.5"],
        ["4 MiB of"],
    ),
    # an exit code asked without "mean", read against another code
    (
        "segfault",
        "-11 vs -9, same thing?",
        ["rank 3", "pid 24103", "SIGKILL", "not a kill from outside"],
        [],
    ),
    # did the loss climb before the NaN: no or yes first, from the logged values
    (
        "nan_loss",
        "was the loss creeping up before it went nan? step 6 had 1.0358 for me",
        ["no, not gradual", "1.2771", "1.0358"],
        ["yes, it climbed"],
    ),
]
