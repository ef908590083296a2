"""Round 40b: skeptical challenges of who started it, and spans between two named events.

Challenges: "prove rank 1 went first and they're just victims", "all 8 ranks died. prove rank 0 started
it", "r0 n r2 say 'connection reset by peer' on port 1931, related or separate prob", "prove rank 3
crashed first and the gloo errors on 0/2 aren't the real failure", "could it be Xid or hardware
instead? be honest", "the FR dump says timeout_ms 3000 but the watchdog line says 600000, which one?".
Why: the answers named the initiating rank and a time (or, for "prove", the verify intent's command),
never its own error line next to each other rank's own line with why that line is a consequence;
`answer_started_proof` adds both. The dumps' `timeout_ms` is not read into the diagnosis:
`answer_dump_timeout` says which timeout fired, names a figure the reader quotes as theirs, and gives
the command that prints the field.

Spans: "time from the last logged training step to the launcher's SIGTERM", "from 'Saving model
checkpoint' to the watchdog kills", "how long did the job run (in total)", "how many step intervals of
silence before the kill", "gloo timeout + how long from last step to launcher giving up", "at what
times did the launcher SIGTERM 0-2 and record rank 3's failure".
Why: the span answer did not read "last logged training step", "at last log", "at what times" or
"record rank 3's failure"; the launcher's report, when not kept as its own line, is the logs' last
line; a `[rank1]:[E1120 03:18:20…` watchdog line had no time for it (the rank prefix hid the glog
stamp); a message whose two events sit in two asks had no ask naming both (`answer_span_whole`);
"how long did the job run in total" (and German "wie lange") missed the run length; the silence was
never counted in step intervals (`answer_silence`).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # proving who started it: the initiating rank's own error line, the others' lines as consequences
    (
        "checkpoint_oom",
        "Ranks 0 and 2 have tracebacks too. Prove rank 1 went first and they're just victims.",
        ["closed by peer", "can't allocate memory|Cannot allocate memory|DefaultCPUAllocator|Error code 12"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "ranks 1 and 3 also have tracebacks. prove rank 2 went first and they are just victims",
        ["DataLoader worker", "closed by peer"],
        [],
    ),
    (
        "nan_loss",
        "rank 0 and 2 crashed too. prove rank 1 hit the NaN first",
        ["Loss is nan", "closed by peer"],
        [],
    ),
    ("nan_loss", "how do you prove rank 1 started it and not rank 0?", ["Loss is nan", "closed by peer"], []),
    (
        "zero3_save",
        "all 8 ranks died. prove rank 0 started it",
        ["OutOfMemoryError|out of memory|OOM", "03:18:20|600000|timed out|timeout"],
        [],
    ),
    ("gpu_oom", "all 8 died. prove rank 5 started it", ["OutOfMemoryError|out of memory", "03:24:02"], []),
    (
        "segfault",
        "prove rank 3 crashed first and the gloo errors on 0/2 aren't the real failure",
        ["SIGSEGV|-11|signal 11", "reset by peer|Connection reset"],
        [],
    ),
    (
        "segfault",
        "prove it was rank 3 first; aren't the gloo resets the real failure?",
        ["SIGSEGV|-11", "reset by peer"],
        [],
    ),
    (
        "segfault",
        "r0 n r2 say 'connection reset by peer' on port 1931, related or separate prob",
        ["rank 3|rank3|rank-3|r3 "],
        [],
    ),
    (
        "segfault",
        "the 'connection reset by peer' errors on ranks 0 and 2: separate problem or the same one?",
        ["rank 3", "SIGSEGV|-11"],
        [],
    ),
    (
        "nan_loss",
        "are the closed by peer errors on 0 and 2 related to rank 1?",
        ["Loss is nan", "closed by peer"],
        [],
    ),
    ("hang_before_collective", "prove rank 1 started it", ["rank 3", "10000ms|10 s"], ["rank 1 started it"]),
    (
        "zero3_save",
        "Could it be Xid or hardware instead? Por favor be honest.",
        ["OutOfMemoryError|out of memory|OOM"],
        [],
    ),
    ("gpu_oom", "could it be a bad GPU instead? be honest", ["OutOfMemoryError|out of memory"], []),
    (
        "flight_recorder",
        "the FR dump says timeout_ms 3000 but the watchdog line says 600000. which one is it?",
        ["600000", "3000"],
        [],
    ),
    (
        "flight_recorder",
        "dumps show timeout_ms=3000 yet the watchdog says Timeout(ms)=600000, which is right?",
        ["600000", "3000"],
        [],
    ),
    # spans between two named events, from this job's own lines
    (
        "desync",
        "gloo timeout value? + how long from last step to launcher giving up",
        ["15000|15 s|15s|15 sec", "18 s|18s|18.4|~18|18 sec|18 seconds"],
        [],
    ),
    (
        "desync",
        "what's the timeout, and how long between the last step and torchrun giving up?",
        ["15000|15 s|15s", "18.4"],
        [],
    ),
    (
        "zero3_save",
        "step/loss at last log and gap to the save",
        ["step 100|100 ", "2.46", "100 s|100s|1m40|100 seconds|1 min 40|100 sec|1:40"],
        [],
    ),
    ("zero3_save", "last step line, and the gap until the save started?", ["step 100", "100 s"], []),
    (
        "dataloader_worker_killed",
        "What was the elapsed time between the last logged training step and the launcher sending SIGTERM "
        "to the surviving ranks?",
        ["21:37:12", "21:37:15"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "time from the last training step to torchrun's SIGTERM?",
        ["21:37:12", "21:37:15"],
        [],
    ),
    (
        "segfault",
        "Ranks 0 and 2 report 'Read error [127.0.0.1]:1931: Connection reset by peer' during "
        "loss.backward(). At what times did the launcher send SIGTERM to ranks 0-2 and record "
        "rank 3's failure?",
        ["21:39:04.33", "21:39:04.729|04.729|04,729"],
        [],
    ),
    (
        "segfault",
        "at what times did torchrun SIGTERM the others and record rank 3's exit?",
        ["21:39:04.33", "21:39:04.729"],
        [],
    ),
    (
        "zero3_save",
        "time from 'Saving model checkpoint' to the watchdog kills?",
        ["10 min|600 s|600s|600000|10 minutes|ten minutes"],
        [],
    ),
    ("gpu_oom", "time from rank 5's OOM to the watchdog timeouts?", ["600 s|10 min"], []),
    (
        "time_limit",
        "Steps came every 4 s through step 150 at 03:10:00. Given the kill at 03:11:40, how many step "
        "intervals of silence is that, and can the logs tell whether it was a hang or unlogged work such as "
        "a checkpoint save?",
        ["100 s|100s|100 seconds|1m40|1 min 40|100 sec", "25"],
        [],
    ),
    ("time_limit", "how many steps' worth of silence before the kill?", ["25", "100 s"], []),
    (
        "time_limit",
        "wie lange did the job run in total?",
        ["11.6|11 min|11m|~12 min|12 min|03:00:04|03:00|11.5"],
        [],
    ),
    ("time_limit", "how long did the job run in total?", ["12 min|696 s", "03:00:04"], []),
]
