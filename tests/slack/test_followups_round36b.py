"""Round 36b: asks about the launcher's own parts and the job's own figures — "which rendezvous file /
class / function blew up", "the 'server socket': which bit of the launcher", "didn't rank 0 host the
store?", "did we lose training or did it die before the workers?"; "the 'unexpected pos' numbers, what vs
what?"; "console.log:37 — which line of the per-rank stderr.log carries the same error?"; "what first time
do you give for the collateral ranks?"; "launcher cmd + alloc env the bot suggests", "slurm way to give
each job its own port, per the bot"; "files, ranks and bytes scanned?"; "list the losses before the hang"
(the hang taken as given, not put forward as a guess); "what were 1-3 doing" (their own end).

Why: the first ask's answer explained the error or named the rank, but left out the fact the message
points at: the rendezvous file, function and TCPStore from the launcher's traceback, the numbers the line
prints, the twin line in the rank's own file, the collateral group's time to the millisecond, the
commands of the diagnosis's own fix, the byte count. Each is read from this job's lines, diagnosis or
fix snippet, and nothing is said when the job has no such fact.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "rendezvous_port_in_use",
        "why not rank 0? didn't rank 0 fail to host the store",
        ["TCPStore", "before any rank started|launcher|torchrun"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "did we lose any training on this one, or did it die before any workers were even up?",
        ["rendezvous"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "the error talks about a 'server socket' - which bit of the launcher was that, in words I can"
        " repeat to my boss",
        ["TCPStore|static_tcp_rendezvous"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "which rendezvous file / class tried to open the socket",
        ["static_tcp_rendezvous.py", "TCPStore"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "which torchrun rendezvous function / file blew up",
        ["next_rendezvous", "static_tcp_rendezvous.py"],
        [],
    ),
    ("rendezvous_port_in_use", "slurm way to give each job its own port, per the bot", ["SLURM_JOB_ID"], []),
    (
        "rendezvous_port_in_use",
        "How many files, ranks and bytes did you scan for this job?",
        ["1 files|1 file", "0 ranks|0 rank", "2658"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "wasn't rank 0 the one hosting the store?",
        ["TCPStore", "before any worker started|launcher"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "did we lose any steps, or did it die before the workers were up?",
        ["rendezvous"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "which part of torchrun owns that server socket?",
        ["TCPStore|static_tcp_rendezvous"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "which rendezvous file tried to open the socket?",
        ["next_rendezvous", "static_tcp_rendezvous.py"],
        [],
    ),
    ("rendezvous_port_in_use", "per the bot, how do I set the port under slurm?", ["SLURM_JOB_ID"], []),
    ("rendezvous_port_in_use", "how many bytes did you scan?", ["2658"], []),
    (
        "disk_full_save",
        "why rank 0 and not the other ranks? what were 1-3 doing",
        ["barrier", "Connection closed by peer"],
        [],
    ),
    (
        "disk_full_save",
        "the 'unexpected pos' numbers in the zip writer error, what were they exactly",
        ["1088", "982"],
        [],
    ),
    (
        "disk_full_save",
        "step timing: ts of step 0 and step 4? these steps look tiny",
        ["21:36:51,980|21:36:51.980", "21:36:52,032|21:36:52.032"],
        [],
    ),
    ("disk_full_save", "what pos numbers did the zip writer complain about", ["1088", "982"], []),
    (
        "disk_full_save",
        "error exact text say unexpected pos what vs what? numbers only ok",
        ["1088", "982"],
        [],
    ),
    (
        "disk_full_save",
        "Your evidence is console.log:37. What exactly does it say, and which line in the per-rank"
        " stderr.log carries the same error?",
        ["unexpected pos 1088|1088 vs 982", "stderr.log:23|stderr.log line 23"],
        [],
    ),
    (
        "disk_full_save",
        "why rank 0 and not 1? what was 1-3 doing then",
        ["barrier", "Connection closed by peer"],
        [],
    ),
    ("disk_full_save", "unexpected pos: which two numbers did it print?", ["1088", "982"], []),
    ("disk_full_save", "what were the pos numbers in the error", ["1088", "982"], []),
    (
        "disk_full_save",
        "console.log:37 - which line of rank 0's stderr.log has the same error?",
        ["stderr.log:23"],
        [],
    ),
    (
        "hang_before_collective",
        "Could you list the losses logged at each step before the hang, please?",
        ["1.1507", "1.1026"],
        [],
    ),
    (
        "hang_before_collective",
        "console.log:28: which timeout value does it show, and what first time do you give for the"
        " collateral ranks?",
        ["10000ms|10000 ms", "21:43:47.443|21:43:47,443"],
        [],
    ),
    (
        "hang_before_collective",
        "could you give me the loss values at each step before the stall?",
        ["1.1507", "1.1026"],
        [],
    ),
    ("hang_before_collective", "what's the exact first time for the collateral ranks?", ["21:43:47.443"], []),
    (
        "gpu_oom",
        "launcher cmd + alloc env the bot suggests for the rerun",
        ["--num_nodes 2", "expandable_segments:True"],
        [],
    ),
    ("gpu_oom", "what deepspeed command did the bot suggest for the rerun?", ["--num_nodes 2"], []),
    ("gpu_oom", "which alloc env var does the bot recommend?", ["expandable_segments:True"], []),
]
