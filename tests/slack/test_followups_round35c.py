"""Round 35c: audit asks on host_oom_kill, xid, dataloader_worker_killed, segfault and disk_full_save —
"which line did the time come from?", "highest-precision timestamp and from which line?", "first
I/O error rank 0 hit?", "how much was the killed proc using?", "did it get past step 0?", "rank 1 and
3 threw errors too, broken?", "what did each log?", "how do I get a real backtrace next time?".

Why: each ask names a fact of this job's own lines (a line's file:line and whether its time is its
own, the launcher's millisecond stamps, the first exception of a chain, the kernel's anon-rss, the
last step logged, a collateral rank's own error); the answer must carry it, not a generic reply.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("dataloader_worker_killed", "did it even get past step 0?", ["step 1|1/10"], []),
    ("dataloader_worker_killed", "how many steps did it manage before dying?", ["step 1|1/10"], []),
    (
        "dataloader_worker_killed",
        "ok so what actually died here, my dataloader?? which worker",
        ["22194", "Killed|killed by signal"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "which worker process died, pid?",
        ["22194", "Killed|killed by signal"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "rank 1 and 3 also threw errors, are those broken too or nah",
        ["rank 2|rank2", "Connection closed by peer|gloo"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "Quote the line that identifies the killed DataLoader worker with file:line, and state its"
        " timestamp and whether that timestamp is native to the line.",
        ["console.log:27|stderr.log:17|line 27|line 17", "21:37:12"],
        [],
    ),
    (
        "disk_full_save",
        "Quote the first I/O error rank 0 hit, with file:line. The Evidence block starts at the"
        " enforce-fail; what preceded it?",
        ["basic_ios::clear|iostream error", "console.log:20|line 20|stderr.log:6|line 6"],
        [],
    ),
    (
        "disk_full_save",
        "what error came before the enforce fail on rank 0? give file:line",
        ["basic_ios::clear|iostream error", "console.log:20|line 20|stderr.log:6|line 6"],
        [],
    ),
    (
        "disk_full_save",
        "Initiating time 21:36:52.032 is marked not borrowed, but rank 0's RuntimeError line carries"
        " no timestamp. Which line did the time actually come from?",
        [
            "step 4|Saving checkpoint|stdout.log:7|stdout.log:8|console.log:13|console.log:14",
            "21:36:52",
        ],
        [],
    ),
    (
        "disk_full_save",
        "Give torchrun's failure record for rank 0 (pid, exit code, time) and list what evidence is"
        " still missing for a confident disk-full call.",
        ["21749", "dmesg|df -h"],
        [],
    ),
    (
        "segfault",
        "whats the easiest way to get a real backtrace next time this happens",
        ["PYTHONFAULTHANDLER|faulthandler|gdb"],
        [],
    ),
    (
        "segfault",
        "Initiating time is 21:39:04.000, second resolution. What is the highest-precision timestamp"
        " tied to rank 3's crash, and from which line?",
        ["21:39:04.729|21:39:04,729", "console.log:44|line 44"],
        [],
    ),
    (
        "segfault",
        "SIGTERMs went out at 21:39:04.331-.339, before the .729 SIGSEGV record. Does that ordering"
        " undermine rank 3 being first? Cite the lines.",
        ["21:39:04.331|21:39:04.33", "-11|SIGSEGV"],
        [],
    ),
    (
        "segfault",
        "Is there any native backtrace or faulthandler output from rank 3 anywhere in the packet?"
        " Which file did you check?",
        ["3/stderr.log|stderr.log"],
        [],
    ),
    (
        "host_oom_kill",
        "do i need infra to give us more RAM? how much was the killed proc using",
        ["64223412|61 gib|61.2|64 gb|64.2"],
        [],
    ),
    (
        "host_oom_kill",
        "When exactly did rank 2 log the in-memory index line, relative to its step 2000 line? I want"
        " to know whether this was at startup or mid-run.",
        ["03:14:04", "03:13:52"],
        [],
    ),
    (
        "host_oom_kill",
        "why would anything build an in-memory index at step 2000, mid-training? compare rank 2 and"
        " rank 0 around 03:14",
        ["03:14:04|1.2B", "03:13:52|step 2000"],
        [],
    ),
    (
        "host_oom_kill",
        "Confidence 0.75: list the alternatives with their confidences, the collective seq the"
        " survivors hung on, and what's missing to confirm.",
        ["0.64|0.5", "9120", "sacct"],
        [],
    ),
    (
        "xid",
        "compare rank 5's error with rank 4's — same node, what did each log?",
        ["unspecified launch failure", "48213|Watchdog"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "the initiating time — is it rank 2's own timestamp or borrowed from another line? which one?",
        ["21:37:12", "stdout.log:4|console.log:10|step 1/10"],
        [],
    ),
    (
        "segfault",
        "give me the millisecond timestamps for the launcher's records around rank 3's crash",
        ["21:39:04.729", "console.log:44"],
        [],
    ),
    (
        "host_oom_kill",
        "how much RAM was the killed process using when it got shot?",
        ["64223412|61.25 gib|61 gib"],
        [],
    ),
    (
        "disk_full_save",
        "what evidence is still missing before we call it disk full for sure?",
        ["dmesg|df -h"],
        [],
    ),
    (
        "xid",
        "ranks 5 and 4: what did each of them log?",
        ["unspecified launch failure", "48213|Watchdog"],
        [],
    ),
    (
        "segfault",
        "what would get us a native stack trace next time it segfaults?",
        ["PYTHONFAULTHANDLER|faulthandler|gdb"],
        [],
    ),
]
