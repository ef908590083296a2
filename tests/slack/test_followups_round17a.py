"""Round 17a: per-rank facts for a ticket, each counted or quoted from its own line (an on-call
engineer filling in an incident ticket).

Why: "how many ranks printed a traceback, which", "how many got SIGTERM", "exit codes per rank",
"how many hit the watchdog and when, as printed" are counts over each rank's own saved lines and the
launcher's summary, not the verdict's roles; a job whose lines carry no time is told so, never given
one; "any ckpt saved?" is the last save logged (or none); "deepspeed + torch versions" is one ask; a
clause that names the figures it wants ("OOM numbers, what step") is an ask; "where in train.py were
the others" is each rank's call and line; the launcher's `failed (exitcode: -9) local_rank: 2 (pid:
3312)` line is the event a timeline and a span name, and the line that ties a pid to its rank; the
rank's own error is quoted verbatim (with its file:line when asked); a setting the logs never print
is said to be inferred, from the line that implies it; host memory "per rank" is the kernel's kill
line for the one process it names, the others said to be missing; a rank outside the world is named
as not there; a bare "step?" is the step ask, and "b4" reads "before".
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # which ranks printed a traceback of their own, and how the others ended
    (
        "segfault",
        "which ranks actually threw a python traceback? how many",
        ["ranks 0 and 2", "exitcode -11"],
        ["ranks 0, 1"],
    ),
    (
        "nan_loss",
        "how many tracebacks were printed, and by whom? rank 3 too?",
        ["ranks 0, 1 and 2", "rank 3 printed no traceback", "SIGTERM"],
        [],
    ),
    # how many the launcher stopped with SIGTERM; none, when every rank exited on its own
    (
        "desync",
        "how many ranks did torchrun SIGTERM?",
        ["no rank got SIGTERM", "all 4 exited"],
        ["3 rank(s) got SIGTERM"],
    ),
    (
        "checkpoint_oom",
        "how many workers got sigterm'd by the launcher",
        ["ranks 0, 2 and 3", "pid 23264"],
        [],
    ),
    # the watchdog count and its time as the line prints it
    (
        "flight_recorder",
        "which ranks caught the watchdog timeout, and the timestamp exactly as logged?",
        ["ranks 0, 1 and 3", "03:10:01,004", "rank 2 logged no timeout"],
        [],
    ),
    # the first rank's pid and exit code asked beside "which rank died first"
    (
        "checkpoint_oom",
        "who went down first + its pid and exit code please",
        ["rank 1", "23264"],
        [],
    ),
    # no time on any line: said so, not a time
    (
        "rendezvous_port_in_use",
        "what's the failure timestamp? the ticket wants one",
        ["no line of this job has a timestamp", "sacct"],
        ["UTC"],
    ),
    # any checkpoint saved: none logged
    (
        "time_limit",
        "final step before slurm ended it? any checkpoint saved?",
        ["step 150", "no checkpoint save is logged"],
        [],
    ),
    # "X + Y versions" is one ask
    (
        "gpu_oom",
        "torch + deepspeed versions?",
        ["2.5.1", "0.16.2"],
        [],
    ),
    # a clause naming the figures it wants, before another ask
    (
        "zero3_save",
        "oom numbers for rank 0 (requested vs free), and which step?",
        ["2.00 GiB", "1.02 GiB", "step 100"],
        [],
    ),
    # where in the code the others waited
    (
        "hang_before_collective",
        "where in train.py were ranks 0-2 sitting?",
        ["all_reduce", "train.py line 144"],
        [],
    ),
    (
        "segfault",
        "file:line for every rank please",
        ["loss.backward()", "train.py line 209"],
        [],
    ),
    # the launcher's own failure line in a timeline, with its signal
    (
        "fsdp_cpu_save",
        "give me the timeline with the launcher's failure line and its exit code",
        ["03:05:40", "exitcode -9 (SIGKILL)"],
        [],
    ),
    # a span to the launcher's `failed (exitcode: …)` line, from its own time
    (
        "segfault",
        "time from the last step line to torchrun's 'failed (exitcode: -11)' line?",
        ["0.7 s", "21:39:04.729"],
        ["at most"],
    ),
    # the line that ties a pid to its rank
    (
        "fsdp_cpu_save",
        "which line links pid 3312 with a rank?",
        ["local_rank: 2", "3312", "SIGKILL", "node-gpu-01.dmesg:2"],
        [],
    ),
    # the rank's own error, verbatim, and where in the code when asked
    (
        "xid",
        "what did rank 5 print exactly, with the timestamp?",
        ["unspecified launch failure", "03:14:03,518"],
        [],
    ),
    (
        "disk_full_save",
        "what exactly did rank 0 print? file:line too",
        ["unexpected pos 1088 vs 982", "train.py line 166"],
        [],
    ),
    # a setting printed or inferred
    (
        "zero3_save",
        "is stage3_gather_16bit_weights_on_model_save logged anywhere, or did you infer it?",
        ["not printed", "inferred", "_zero3_consolidated_16bit_state_dict"],
        [],
    ),
    # the span to the SIGTERMs, timed by the launcher's own teardown line (kept with its summary)
    (
        "disk_full_save",
        "how long between the save line and the SIGTERMs?",
        ["2.5 s", "21:36:54.537"],
        [],
    ),
    # host memory per rank: only the killed process's, from the kernel's line
    (
        "fsdp_cpu_save",
        "per-rank host memory at the time of the kill?",
        ["251234120 kB", "239.6 GiB", "local_rank 2", "No kept line gives rank(s) 0,1,3-7"],
        [],
    ),
    # a rank the job never had
    (
        "flight_recorder",
        "what was rank 6 doing in the last collective?",
        ["ranks 0-3", "there is no rank 6"],
        [],
    ),
    # a bare "step?" before another terse ask, and "b4" for "before"
    (
        "desync",
        "step?? how long b4 rank 3 went down",
        ["step 2", "15000ms"],
        [],
    ),
]
