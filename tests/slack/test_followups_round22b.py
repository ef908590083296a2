"""Round 22b: premises and challenges answered with this job's facts (is the box/node/GPU bad, whose
fault, a network ticket, a second bug, the same as last week, is the silent rank healthy, was it memory).

Why: a challenge is settled by the job's own lines, not by a verdict restated. "is the box broken?" /
"is it the node?" / "bad GPU?" names the node's kernel log (`dmesg`) to read and the failing rank's own
fact (its RSS at the kill, the line that raised, the pid that crashed); "whose fault?" / "network flake?"
/ "second bug?" / "network ticket?" names where the other ranks waited (barrier, all_reduce, the first
rank's broadcast or torch.save) and what they printed (`Connection closed by peer`, SIGTERM); "same as
last week?" / "how often?" says these logs hold only this job, then this job's facts (the silent rank's
last line, the port really taken and how to see its holder); "rank 2 printed nothing, so it's healthy?"
is its last line's time and what to capture; "was it a memory problem?" on an Xid is the CUDA error the
rank raised; "where does it say the disk is full?" adds `df -h`; "what has to change before we
relaunch?" adds the change, not only the check.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # is the box / node / GPU bad: the node's kernel log and the failing rank's own fact
    (
        "checkpoint_oom",
        "it only failed to allocate 16 MB — how is that an OOM? is the box itself just broken?",
        ["16 MiB", "full_state_dict", "dmesg"],
        [],
    ),
    ("flight_recorder", "is it the node? which host was rank 2 on?", ["rank 2", "dmesg"], ["gpu-01"]),
    ("disk_full_save", "could the machine itself be faulty here?", ["rank 0", "dmesg"], []),  # guard
    ("host_oom_kill", "is gpu-01 bad? should we drain it?", ["64223412 kB", "in-memory index"], []),
    ("xid", "is gpu-02 bad, should we drain it?", ["gpu-02", "Xid 79"], []),  # guard
    (
        "segfault",
        "is it the node? any kernel log? how often do we get segfaults on this host?",
        ["24103", "dmesg"],
        [],
    ),
    ("segfault", "is the host broken or our code?", ["24103", "dmesg"], []),  # guard
    (
        "nan_loss",
        "Is this a bad GPU or a code/data problem? Need to know who owns it.",
        ["Loss is nan", "train.py"],
        [],
    ),  # guard
    ("desync", "bad gpu or is it our code?", ["rank 3", "train.py"], []),  # guard
    (
        "dataloader_worker_killed",
        "is the node broken, or a code problem?",
        ["rank 2", "dmesg", "train.py"],
        [],
    ),
    # whose fault / network flake / second bug / network ticket: where the others waited, what they printed
    (
        "desync",
        "all 4 ranks show timeouts, so whose fault is it?",
        ["rank 3", "broadcast", "all_reduce"],
        ["rank 0 caused"],
    ),
    ("disk_full_save", "everyone timed out, who is to blame?", ["rank 0", "barrier", "line 166"], []),
    (
        "disk_full_save",
        "ranks 1-3 show 'Connection closed by peer'. network flake on the node, or something else?",
        ["rank 0", "barrier", "line 166"],
        ["a network flake caused"],
    ),
    (
        "checkpoint_oom",
        "Ranks 0 and 2 died with gloo 'Connection closed by peer'. Do I need to open a network"
        " ticket as well?",
        ["rank 1", "Connection closed by peer"],
        ["rank 0 ran out of memory", "rank 2 ran out of memory"],
    ),
    (
        "dataloader_worker_killed",
        "rank 1 and rank 3 both blew up inside all_reduce in reduce_metric. is that a second bug we"
        " need to chase?",
        ["rank 2", "closed by peer"],
        [],
    ),
    ("desync", "ranks 0-2 errored too, is that a separate bug?", ["rank 3", "all_reduce"], []),
    # another incident the logs cannot show: say so, then this job's facts
    (
        "flight_recorder",
        "is this the same NCCL timeout we had last week? how often do we see this class, and what would"
        " have caught it before the 10-minute watchdog?",
        ["600", "rank 2", "03:00:02"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "is this the classic two-jobs-on-29500 collision like last week?",
        ["54661", "ss -ltnp"],
        ["port 29500 was in use"],
    ),
    (
        "rendezvous_port_in_use",
        "We launch with the default 29500, so someone else's job was sitting on 29500?",
        ["54661"],
        [],
    ),
    ("host_oom_kill", "same thing as last week's crash on this node?", ["64223412 kB", "last week"], []),
    # the silent rank is not healthy: its last line, and what to capture
    (
        "flight_recorder",
        "Rank 2 didn't print any error, so it's healthy, right? Can we just relaunch with the same 4 ranks?",
        ["rank 2", "03:00:02", "py-spy"],
        [],
    ),
    ("flight_recorder", "rank 2 has no traceback at all, so it was fine?", ["03:00:02"], []),  # guard
    # was it a memory problem: the error the rank raised
    (
        "xid",
        "rank 5 was at 69.4GiB mem_alloc vs ~61 on the others — was this actually a memory problem?",
        ["fallen off the bus", "unspecified launch failure"],
        [],
    ),
    ("segfault", "was it a memory problem?", ["24103"], []),  # guard
    ("desync", "was this actually a memory problem?", ["rank 3", "train.py"], []),
    # where does it say the disk is full: the lines, and the check
    (
        "disk_full_save",
        "Where does it actually say the disk was full? I grep'd for 'No space left on device' and got"
        " nothing.",
        ["unexpected pos", "df -h"],
        [],
    ),
    # what to check and what to change before relaunching on the node
    (
        "host_oom_kill",
        "Before we relaunch on the same node, what do we check and what has to change so this doesn't"
        " happen again?",
        ["gpu-01", "memory-map"],
        [],
    ),
]
