"""Round 19b: judgement asks (rerun, whose fault, hung or dead, a theory to check) answered with the
wrong kind of fact, or missing the fact that decides them.

Why: "resubmit with the same --time?" got "Maybe: every run that needs more time" and, asked with
"was there a checkpoint", lost its verdict to the save fact (the whole message's answer now keeps the
first ask's yes/no); "where do I restart from" never named the last step reached or the lack of a
save; "rank 1 — did it error at all?" lost the rank to the splitter; "how do I check the port is
free before relaunching" gave only the port, "is GPU/NCCL involved at all" on a launcher failure got
"no rank", "action items" matched nothing; a theory ending "correct me" / "double check me" was not
checked, and the rank that started it was placed in its own function, not in the collective it called
(`broadcast` against the others' `all_reduce`); "is it the network?" did not name the collective the
others sat in; "how do you know it was hung rather than dead?" got the verdict's runner-up, never the
launcher's SIGTERM that shows the rank was still running; "is it my data, one bad batch?" on a NaN got
a flat yes; "is this a bug in my model?" on a disk-full save, a port clash or a time limit got losses
or "no sign of hardware"; ", exit codes?" at a message's end was folded into the ask before it; "how do
we know it's rank 5's GPU" with the Xid named earlier in the message got the verify command; "how long
was it quiet before the others gave up" had no duration; "compute went down the drain" was read as a
node drain; "what's the actual code bug" went to hardware, and on a line every rank runs never said
what to change in it.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # a rerun under the same scheduler time limit: no, and the longer --time
    (
        "time_limit",
        "if i requeue it unchanged with the same --time will it finish?",
        ["Not with the same `--time`", "slurm-991.log:2", "longer `--time`"],
        ["Maybe:"],
    ),
    (
        "time_limit",
        "ok to resubmit with identical --time? did any checkpoint get saved?",
        ["Not with the same `--time`", "No checkpoint save is logged"],
        [],
    ),
    # where a restart starts from: the last save logged (none) against the last step
    (
        "xid",
        "can it go back on? where should we resume from",
        ["No checkpoint save is logged", "step 2000"],
        [],
    ),
    # a rank named alone before the ask that points back at it
    (
        "segfault",
        "rank 1 -- did it throw anything itself? and can we rerun unchanged",
        ["Rank 1 logged no error of its own", "-15", "Not as is"],
        [],
    ),
    # checking a port is free before relaunching; GPU side of a launcher failure; action items
    (
        "rendezvous_port_in_use",
        "before we relaunch, how can i confirm the port is free now?",
        ['ss -ltnp | grep ":54661"', "port free"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "are the gpus or nccl even involved at all here",
        ["No: no GPU, CUDA or NCCL code ran", "before any worker"],
        [],
    ),
    (
        "segfault",
        "postmortem action items pls",
        ["Capture a native backtrace"],
        [],
    ),
    # a theory put up to be checked, without "right?"
    (
        "segfault",
        "my theory: rank 0 failed first with the reset, and rank 3 just died in cleanup. correct me",
        ["No: rank 3 started it", "segmentation fault", "rank 0 was collateral"],
        [],
    ),
    (
        "desync",
        "so rank 0 started it with its all_reduce timeout. double check me",
        ["No: rank 3 started it", "`broadcast`, called from `reduce_metric`"],
        [],
    ),
    # the network guess: the collective the others waited in
    (
        "hang_before_collective",
        "could the interconnect be the problem?",
        ["Not the network", "in `all_reduce` (train.py line 144)"],
        [],
    ),
    # hung or dead, for a rank that printed nothing
    (
        "hang_before_collective",
        "rank 3 was dead rather than stuck, no?",
        ["Hung, not dead", "SIGTERM", "console.log:106", "in `all_reduce`"],
        [],
    ),
    # a NaN's data guess: possible, not shown
    (
        "nan_loss",
        "could a bad sample in my dataset cause it?",
        ["Possibly, but the logs do not show the batch", "learning rate", "sample indices"],
        ["Yes, it points at"],
    ),
    # "is it my model?" for failures outside the model
    (
        "disk_full_save",
        "was it something wrong with my model? losses seemed ok",
        ["Not your model", "writing to disk", "1.2209"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "is it a bug in my code?",
        ["Not your model", "before any worker started"],
        [],
    ),
    # a short topic asked after a comma at the end
    (
        "nan_loss",
        "who started it, exit codes?",
        ["exitcode 1", "-15"],
        [],
    ),
    # the Xid named earlier in the message, the tie asked after
    (
        "xid",
        "the xid pid is 45121 and that pid appears nowhere else. how can we be sure it's rank 5's card",
        ["PCI:0000:3b:00", "bus id"],
        [],
    ),
    # how long the silent rank was quiet before the others gave up
    (
        "flight_recorder",
        "how long was rank 2 silent before the rest timed out?",
        ["wrote nothing for 599 s", "step 40/100", "rank0.log:2"],
        [],
    ),
    # "down the drain" is wasted work, not a node drain
    (
        "host_oom_kill",
        "how much training went down the drain here",
        ["step 2000", "No checkpoint save is logged"],
        ["No need to drain"],
    ),
    # the code bug on a line every rank runs: the line and what to change in it
    (
        "fsdp_cpu_save",
        "ok so whats the actual code bug",
        ["train.py line 301", "The bug is", "rank0_only=True"],
        ["No sign of hardware"],
    ),
]
