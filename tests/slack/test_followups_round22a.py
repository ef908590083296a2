"""Round 22a: broad asks answered with the help reply or a narrow answer, and figures an ask names
that the answer left out.

Why: "what happened to my run?" and "what killed my job?" are the story of the failure, whoever owns
the run ("my", "our", "the"), not a question about one rank or a request for examples; "root cause in
one sentence + who owns it" is the story with how the first rank ended (its exit code and signal, from
its own report), and "who owns it: bad node or our code?" is the owner's question, not the holder of a
port; "how do we make sure it doesn't recur?" is what to change, not a check to run after the fix; "how
much did rank 0 ask for vs what was free?" and "is my model just too big for the GPUs?" are the memory
figures (asked, free, the gap) of this job's out-of-memory error; "what do we need to capture on the next
run so we know what rank 3 was doing?" is what to turn on next time (a stack dump, py-spy), not who
failed first; "what exactly failed to bind, and with what error code?" is the call that tried to listen
(`TCPStore(...)` in the rendezvous) and the OS error on the failing line, from the kept traceback; "how
much RAM was free on the box / were the workers using?" on a host-memory failure is that the kept lines
do not show it, and where it is read (the kernel's OOM report's rss, `free -g`, `sacct` MaxRSS); "last
step before the save and the step time?" is the last step line with the step lines' rate.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the story, asked broadly about "my"/"our" run or job
    (
        "dataloader_worker_killed",
        "what killed my job? I didn't touch the model code",
        ["rank 2", "DataLoader worker", "22194"],
        [],
    ),
    ("host_oom_kill", "what happened to my run?", ["rank 2", "51234", "OOM"], []),
    ("gpu_oom", "what happened to our training job?", ["rank 5", "out-of-memory", "step 2001"], []),
    ("segfault", "what killed our run?", ["rank"], []),
    # a root cause is the story with how the first rank ended
    (
        "host_oom_kill",
        "Root cause in one sentence + who owns it: bad node or our code?",
        ["in-memory index", "rank 2", "SIGKILL"],
        [],
    ),
    (
        "xid",
        "root cause in one sentence, who owns it: bad node or our code?",
        ["Xid", "rank 5", "exit code 1"],
        ["port"],
    ),
    # "make sure it doesn't recur" is the fix
    (
        "rendezvous_port_in_use",
        "Root cause in one sentence, and how do we make sure it doesn't recur on the next launch?",
        ["54661", "--standalone"],
        [],
    ),
    (
        "disk_full_save",
        "what happened, and how do we ensure it doesn't come back next time?",
        ["rank 0", "delete or move old checkpoints"],
        [],
    ),
    # memory asked vs free, and "too big for the GPUs"
    (
        "zero3_save",
        "How much did rank 0 ask for vs what was free during the save? How big was the gap?",
        ["2.00 GiB", "1.02", "0.98"],
        [],
    ),
    (
        "gpu_oom",
        "how much did rank 5 try to allocate compared to how much was free?",
        ["3.91 GiB", "1.21 GiB"],
        [],
    ),  # guard
    (
        "zero3_save",
        "what happened, is my model just too big for the GPUs?",
        ["rank 0", "2.00 GiB", "consolidat"],
        [],
    ),
    ("gpu_oom", "is the model too large for these GPUs or what?", ["3.91 GiB", "79.15"], []),
    # what to capture on the next run
    (
        "hang_before_collective",
        "What do we need to capture on the next run so we actually know what rank 3 was doing?",
        ["py-spy", "rank 3"],
        [],
    ),
    (
        "desync",
        "what should we log on the next launch so we can tell which rank stalled?",
        ["TORCH_DISTRIBUTED_DEBUG"],
        [],
    ),
    # what failed to bind, and its error code
    (
        "rendezvous_port_in_use",
        "what exactly failed to bind, and with what error code? would a plain retry have fixed it?",
        ["TCPStore", "-98"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "what tried to listen on the port and failed? errno?",
        ["TCPStore", "EADDRINUSE", "54661"],
        [],
    ),
    ("host_oom_kill", "what failed to bind?", ["no port"], ["TCPStore"]),  # no port here: says so
    # host RAM free / RSS the logs do not show
    (
        "checkpoint_oom",
        "wait, it only tried to allocate 16777216 bytes?? that's nothing. how much RAM was actually free "
        "on the box when it died and how much more should I request?",
        ["16 MiB", "free -g", "MaxRSS"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "How much RAM were the dataloader workers using when it got killed, and how many workers per rank "
        "were we running?",
        ["dmesg", "RSS"],
        [],
    ),
    (
        "checkpoint_oom",
        "what was rank 1's rss when it died, and how much --mem do we need?",
        ["MaxRSS", "rss"],
        [],
    ),
    (
        "host_oom_kill",
        "what was the rss of the killed process",
        ["61.25 GiB"],
        ["No kept line shows"],
    ),  # guard
    # the last step asked with the step time
    (
        "zero3_save",
        "Last step before the save and the step time? How much work is lost if the step-100 save never "
        "completed?",
        ["step 100", "4 s a step"],
        [],
    ),
    ("disk_full_save", "last step before the save, and the step time?", ["step was 4", "12 ms a step"], []),
    ("checkpoint_oom", "last step before the save, and the step time?", ["step was 6", "1 s a step"], []),
]
