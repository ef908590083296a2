"""Round 34b: facts of flight_recorder, hang_before_collective and desync asked in a word or two beside
another ask — the timeout's exact figure ("10s?? confirm", "exact value pls", "where is it set"), the
backend and launcher, the worker pids and exit codes of torchrun's summary, the one env var that makes
PyTorch report the mismatch, the stuck collective's element count, each rank's step-40 stamp, the line
the waiting ranks were blocked on, the command to run on the node and the pid to look for.

Why: each of these is a verbatim fact of the job (the watchdog's `Timeout(ms)=600000`, gloo's `Timed
out waiting 10000ms`, `NumelIn=1048576`, torchrun's `exitcode : 1 (pid: 20603)`, the verify command's
`TORCH_DISTRIBUTED_DEBUG`), yet the answer went to a neighbouring intent (the verify command, the rank
table, the verdict) and left the asked figure out.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the timeout's figure, as the line prints it
    ("hang_before_collective", "timeout was 10s?? thats tiny, confirm", ["10000ms"], []),
    ("hang_before_collective", "timeout is only 10 sec?? exact value pls", ["10000"], []),
    (
        "hang_before_collective",
        "The timeout is 10000ms. Where would that be configured, and what value should I set?",
        ["10000ms", "timeout", "init_process_group"],
        ["Timeout(ms)=10000"],
    ),
    (
        "hang_before_collective",
        "what's the exact timeout figure the logs print?",
        ["Timed out waiting 10000ms"],
        ["Timeout(ms)=10000"],
    ),
    (
        "flight_recorder",
        "What is the process-group timeout set to here, and would increasing it help?",
        ["600000|600012"],
        [],
    ),
    ("flight_recorder", "timeout in ms pls, exact", ["Timeout(ms)=600000"], []),
    # backend and launcher
    ("hang_before_collective", "backend + timeout value in use?", ["gloo", "10000|10 s|10s|10 seconds"], []),
    (
        "desync",
        "backend + launcher for this one? trying to build the same repro locally",
        ["gloo", "torchrun"],
        [],
    ),
    ("hang_before_collective", "comm backend and launcher?", ["gloo", "torchrun"], []),
    ("desync", "backend / timeout for this run?", ["gloo", "15000ms"], []),
    # the code to change, the line the waiters were blocked on
    (
        "desync",
        "How should I rewrite reduce_metric so every rank issues the same collective? Show me the code"
        " change.",
        ["all_reduce", "reduce_metric"],
        [],
    ),
    (
        "desync",
        "what should reduce_metric look like after the fix?",
        ["all_reduce", "reduce_metric", "line 142"],
        [],
    ),
    ("hang_before_collective", "exact line of code ranks 0-2 were blocked on?", ["144", "all_reduce"], []),
    (
        "hang_before_collective",
        "which line of train.py were the waiting ranks sitting in?",
        ["line 144", "all_reduce"],
        [],
    ),
    # the launcher's pids and exit codes
    (
        "desync",
        "Blast radius: give me every worker pid and exit code from the torchrun failure summary. Did"
        " the launcher have to kill anyone, or did they all exit by themselves?",
        ["20603", "20606", "exitcode: 1|exit code 1|code 1|exitcode  : 1"],
        [],
    ),
    ("desync", "launcher pid and the child pid torchrun flagged as root cause?", ["20603"], []),
    ("desync", "pid of the rank torchrun calls root cause?", ["20603", "exitcode 1"], []),
    (
        "desync",
        "list the worker pids with their exit codes from torchrun's summary",
        ["20603", "20604", "20605", "20606"],
        [],
    ),
    (
        "hang_before_collective",
        "which pids did torchrun report, and with what exit codes?",
        ["32026", "32029", "-15"],
        [],
    ),
    # the one env var asked for
    (
        "desync",
        "Before we kick off another run I want to make sure we'll catch this properly next time instead"
        " of just staring at timeouts again. You mentioned a way to verify the fix. What's the"
        " environment variable we should set so PyTorch reports the mismatch for us?",
        ["TORCH_DISTRIBUTED_DEBUG"],
        [],
    ),
    (
        "flight_recorder",
        "I'm going to ask the team to rerun this with extra debugging on so that next time we get"
        " something more definitive. I don't want a wall of settings, just the one that produces the"
        " desync report naming the missing rank. Which environment variable is it?",
        ["TORCH_NCCL_DESYNC_DEBUG"],
        [],
    ),
    ("desync", "which env var makes pytorch flag the collective mismatch?", ["TORCH_DISTRIBUTED_DEBUG"], []),
    ("flight_recorder", "single env var for the desync report?", ["TORCH_NCCL_DESYNC_DEBUG"], []),
    # the stuck collective's element count
    (
        "flight_recorder",
        "which collective (seq number + op) were the other ranks stuck in, and how many elements was it?",
        ["SeqNum=5|#5|seq 5|seq_id 5", "1048576"],
        [],
    ),
    (
        "flight_recorder",
        "So the vendor support person wants details of the operation that hung. I think they mean how"
        " big it was? They asked for 'the element count of the stuck all-reduce'. I can't find it"
        " myself. Could you pull the element count for that collective from the logs?",
        ["1048576"],
        [],
    ),
    ("flight_recorder", "number of elements in the hung op?", ["1048576"], []),
    # each rank's step-40 line and its stamp
    (
        "flight_recorder",
        "Loss was 1.2 at step 40 of 100 on all ranks. Was training otherwise healthy, or was rank 2"
        " already behind?",
        ["40/100|step 40", "03:00:02"],
        [],
    ),
    (
        "flight_recorder",
        "the step 40 lines are stamped a second apart on each rank. clock skew between the hosts, or"
        " just log order? what are the stamps",
        ["03:00:00|03:00:03"],
        [],
    ),
    (
        "flight_recorder",
        "How do you know rank 2 didn't just crash? Its log has nothing after step 40. What's the last"
        " thing it's known to have done?",
        ["#4|seq 4|collective 4|4 (completed)", "03:00:02|step 40"],
        [],
    ),
    ("flight_recorder", "when did each rank log step 40?", ["03:00:00", "03:00:02", "03:00:03"], []),
    ("flight_recorder", "was rank 2 lagging the others before it hung?", ["03:00:02", "03:00:03"], []),
    # the node, the command to run there, the pid to look for
    (
        "flight_recorder",
        "which node is rank 2 on? I need to go look at the box",
        ["rank 2|rank2", "dmesg|kernel log|hostname"],
        [],
    ),
    ("flight_recorder", "what host was rank 2 on? want to ssh in and check", ["rank 2", "dmesg"], []),
    (
        "hang_before_collective",
        "no dmesg in the bundle. what should I run on the node and which pid am I looking for?",
        ["dmesg", "32029"],
        [],
    ),
    (
        "hang_before_collective",
        "what do I grep the kernel log for, and for which pid?",
        ["dmesg", "32029"],
        [],
    ),
    # the tied runner-up named
    (
        "hang_before_collective",
        "the teardown alternative has exactly the same confidence as your answer. couldn't it just be that?",
        ["0.36", "sigterm-elastic-teardown|teardown"],
        [],
    ),
    (
        "hang_before_collective",
        "scores are tied with the launcher-teardown one, why not go with that?",
        ["0.36", "teardown"],
        [],
    ),
    # the rank to blame, in a mixed-language message
    ("flight_recorder", "who is the guilty rank? um só", ["rank 2|rank2"], []),
    ("flight_recorder", "guilty rank pls, só um", ["rank 2|rank2"], []),
]
