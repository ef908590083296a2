"""Round 35b: audit asks about what Denpex scanned and how sure it is — "how many files and ranks did
you scan?", "the confidence, the alternative and its confidence", "(0.36?) what's the other thing it
might be", "what time did the launcher log the failure?", "did it never get going?".

Why: the answer about the failure left out the scan's own counts (files, ranks), the runner-up cause
with its figure, and the time the launcher's summary records for the failure; with no rank started,
"never got going" is said in those words.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "rendezvous_port_in_use",
        "How many files and ranks did Denpex actually scan for this one?",
        ["1 files|1 file|one file", "0 ranks|no ranks|zero ranks"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "What's the earliest timestamp in this packet, and how many files and ranks did you scan?",
        ["1 files|1 file|one file", "0 ranks|no ranks|zero ranks|no rank"],
        [],
    ),
    (
        "desync",
        "how much log did you actually read for this — files, ranks?",
        ["9 files", "4 ranks"],
        [],
    ),
    (
        "flight_recorder",
        "how many files did the scan cover?",
        ["4 files"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "did we lose any training at all or did it never get going?",
        ["before any rank|0 ranks|no rank|never started|did not start"],
        [],
    ),
    (
        "desync",
        "ugh how long was it stuck before it crashed out, and what time did it finally die",
        ["15000|15 seconds|15s", "21:36:22"],
        [],
    ),
    (
        "desync",
        "List the pids torchrun recorded and the time the agent logged the failure.",
        ["20603", "21:36:22"],
        [],
    ),
    (
        "desync",
        "did the ranks really sit there the whole timeout? how long from the last step log to the"
        " launcher failing",
        ["21:36:04", "21:36:22"],
        [],
    ),
    (
        "hang_before_collective",
        "what time does torchrun's summary give for the failure?",
        ["21:44:00"],
        [],
    ),
    (
        "hang_before_collective",
        "the bot seems kinda unsure (0.36?) whats the other thing it might be",
        ["sigterm-elastic-teardown|teardown|torn down", "0.36"],
        [],
    ),
    (
        "flight_recorder",
        "State the confidence, the alternative and its confidence, and the NCCL version recorded in"
        " the dumps.",
        ["0.45", "0.15|nccl-desync-report", "2.21.5"],
        [],
    ),
    (
        "flight_recorder",
        "what was the runner-up diagnosis and how confident was it?",
        ["0.15", "desync"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "0.89 with zero alternatives. Why does missing evidence list only dmesg rather than a check"
        " of what owns the port?",
        ["0.89", "dmesg", "ss -ltnp|lsof"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "what call actually blew up and with what error code",
        ["TCPStore", "-98|EADDRINUSE"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "how do you know no rank ever ran? where exactly in torchrun did it fail?",
        ["next_rendezvous|_rendezvous|_initialize_workers"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "why that port and not the default? who would have set it?",
        ["54661", "29500"],
        [],
    ),
    (
        "hang_before_collective",
        "why not call it a desync like the other job? were ranks 0-2 all in the same op?",
        ["all_reduce", "144|reduce_metric"],
        [],
    ),
    (
        "desync",
        "were ranks 0 to 2 all stuck in the same collective?",
        ["all_reduce", "144|reduce_metric"],
        [],
    ),
    (
        "hang_before_collective",
        "what did rank 0 print last on stdout?",
        ["1.1026|step 3"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "is 54661 the default port? what's torchrun's default?",
        ["29500"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "how do I check which process holds that port?",
        ["ss -ltnp|lsof"],
        [],
    ),
    (
        "hang_before_collective",
        "compare rank 0's and rank 3's last stdout lines",
        ["1.1026|step 3", "Starting training|21:43:47,355"],
        [],
    ),
]
