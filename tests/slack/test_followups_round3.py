"""Follow-ups of the third fix round (held-out batch 19's classes), in new phrasings, answered by class.

A later ask of a message that once got "ask it on its own" (how long it had been running, does that
mean the network broke, can the job go back on now, how big was it, how do I find out); a guess with
no question word ("hang maybe?") checked against the last step's time or the failing rank's own
error; a fix put forward as a question ("cant we just set expandable_segments?") checked against the
OOM's figures; a debug ask that is not the repro command; a how-to that is not the FAQ's fix time;
a term explained with this job's save; ranks that only waited asked about the cause's share; a port
never read from `UID:1000`; "lr or data?" read from the logged losses. Each answer must state the
job's fact, and never the opposite.
"""

from __future__ import annotations

import pytest

from bot.slack.answers import Answerer
from knowledge.answer_quote import _PORT
from knowledge.intents import IntentMatcher, asks

CASES = [
    # (job, question, intent or None, must, must_not)
    # 1. later asks answered, each with its fact
    (
        "gpu_oom",
        "for my report: how many ranks died vs got dragged along, and how long had it been up?",
        "ranks_count",
        ["rank 5 first", "7 collateral", "73 min", "02:00:41"],
        ["You also asked"],
    ),
    ("gpu_oom", "for the postmortem: how long was the job up before rank 5 blew up?", "when", ["73 min"], []),
    ("checkpoint_oom", "how long had it been running", "when", ["18 s", "rank 1 failed"], []),
    ("time_limit", "how long had it been running", "when", ["11 min 36 s", "time limit"], []),
    (
        "gpu_oom",
        "the NCCL timeouts on the other ranks, did those mean the interconnect failed?",
        "alternatives",
        ["Not the network", "rank 5", "collateral"],
        ["Yes, it points"],
    ),
    (
        "zero3_save",
        "what is the watchdog? and do those lines imply the network went down?",
        None,
        ["`watchdog`", "Not the network", "collateral"],
        ["You also asked"],
    ),
    (
        "xid",
        "can we put the job back on right away?",
        "restart",
        ["drain gpu-02", "--exclude=gpu-02"],
        ["drain gpu-01", "--exclude=gpu-01"],
    ),
    (
        "host_oom_kill",
        "what is anon-rss, and how big was it",
        "explain",
        ["`anon-rss`", "61.25 GiB"],
        ["You also asked"],
    ),
    ("host_oom_kill", "ok and how large was it", "memory", ["61.25 GiB", "pid 51234"], []),
    (
        "nan_loss",
        "which layer produced the inf first? how do i find out",
        "debug",
        ["set_detect_anomaly"],
        ["You also asked"],
    ),
    (
        "desync",
        "one-off, or will it break every run? and should we drain the box",
        "restart",
        ["not a fluke", "every run", "broadcast", "No need to drain"],
        [],
    ),
    (
        "gpu_oom",
        "so at what step did rank 5 die, forward or backward pass? and why just rank 5",
        "phase",
        ["2001", "backward", "16384"],
        [],
    ),
    # 2. a guess with no question word, checked
    (
        "time_limit",
        "stalled maybe? last step was at 03:10",
        "alternatives",
        ["Not a hang", "150", "100 s", "time limit"],
        ["it was a hang", "the job hung"],
    ),
    (
        "gpu_oom",
        "i think it hung maybe",
        "alternatives",
        ["Not a hang", "rank 5", "collateral"],
        ["Yes, it hung"],
    ),
    (
        "desync",
        "probably just a hang?",
        "alternatives",
        ["hung in a collective", "rank 3", "broadcast"],
        ["Not a hang"],
    ),
    ("flight_recorder", "hang maybe?", "alternatives", ["rank 2", "py-spy", "dmesg"], ["Not a hang"]),
    # a fix put forward, checked against the OOM's figures, then the entry's fix
    (
        "gpu_oom",
        "what if we just turn on expandable_segments and resubmit",
        "fix",
        ["Not on its own", "2.41 GiB", "2.70 GiB", "micro-batch"],
        ["It may", "expandable_segments will fix"],
    ),
    (
        "zero3_save",
        "couldnt we just set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
        "fix",
        ["Not on its own", "0.98 GiB", "step 100", "stage3_gather_16bit_weights_on_model_save"],
        ["It may"],
    ),
    # debug, not the repro command; the step the words point at first
    (
        "flight_recorder",
        "what should we run to understand why rank 2 got stuck",
        "debug",
        ["py-spy dump", "dmesg", "sacct"],
        ["reproduces"],
    ),
    (
        "dataloader_worker_killed",
        "how can we monitor worker rss while it trains",
        "debug",
        ["first: Watch the workers' resident memory", "ps -o pid,rss"],
        [],
    ),
    # the fix in the sbatch, never the FAQ's fix time; a command said once
    (
        "time_limit",
        "what should we add to the sbatch script so it saves before the kill",
        "fix",
        ["time limit", "--signal", "--requeue"],
        ["Minutes to resubmit"],
    ),
    ("time_limit", "eta on the fix?", "fix_time", ["Minutes"], []),
    # 3. content: a term with this job's save; ranks that only waited
    (
        "disk_full_save",
        "so how does unexpected pos say the disk is full?",
        "explain",
        ["fewer bytes", "short write", "checkpoint-4.pt", "df -h"],
        [],
    ),
    (
        "disk_full_save",
        "ranks 1-3 show barrier errors, do they have storage problems too?",
        "alternatives",
        ["No, not of their own", "`barrier`", "rank 0"],
        ["Yes, it points"],
    ),
    (
        "desync",
        "the launcher blames rank 0 in its summary, so rank 0 is the culprit right?",
        "rank_why",
        ["No: rank 0 was collateral", "rank 3 started it", "`broadcast`"],
        ["Yes: rank 0"],
    ),
    (
        "fsdp_cpu_save",
        "rank0 has the traceback, rank 2 was oom-killed. which one of them is the culprit?",
        "which_rank",
        ["Rank 2 is the one", "8 ranks", "each building its own full copy"],
        ["Rank 0 is the one"],
    ),
    (
        "checkpoint_oom",
        "is `get_state_dict(model, optim, options=StateDictOptions(full_state_dict=True))` the line to fix?",
        None,
        ["train.py line 174"],
        [],
    ),
    (
        "disk_full_save",
        "what should i inspect on the node first, and is checkpoint-4.pt any good",
        "command",
        ["df -h", "partial"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "the exact command to find the process on the port? and how do i launch it so they dont conflict",
        "port",
        ["ss -ltnp", "--master_port"],
        [],
    ),
    # 4. leftovers: no port read from a key:value; lr or data from the losses
    ("host_oom_kill", "which port was it", "port", ["No port"], ["Port 1000", "Port 14"]),
    (
        "nan_loss",
        "learning rate too high? or a bad sample?",
        "loss",
        ["More likely one batch", "1.0358", "set_detect_anomaly"],
        ["Yes, it points at the data pipeline", "hardware"],
    ),
]


@pytest.mark.parametrize(
    "question",
    ["how do I look up what time limit it had", "how do we verify the fix", "what do i run to check it"],
)
def test_a_command_is_said_once(answerers: dict[str, Answerer], question: str) -> None:
    text = answerers["time_limit"].answer(question).text
    assert text.count("sacct -j") == 1, text


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("exact command to check the mount, and can we resume?", 2),  # a request put as a noun
        ("cant we just rerun it? and which node", 2),  # a negative question asks
        ("lr too high? or bad data?", 1),  # "or …" continues the choice
        ("rank 0 has the stack, rank 2 the kill?? which one is it", 1),  # the choice needs both sides
    ],
)
def test_asks_are_split_where_the_asks_are(question: str, want: int) -> None:
    matcher = IntentMatcher()
    assert len(asks(matcher.text(question))) == want, asks(matcher.text(question))


@pytest.mark.parametrize(
    ("line", "port"),
    [
        ("Killed process 51234 (python) anon-rss:64223412kB, UID:1000 pgtables:130000kB", None),
        ("[Fri Nov 20 03:14:05 2026] python invoked oom-killer", None),
        ("connect to 10.0.0.5:29500 failed", "29500"),
        ("rendezvous at gpu-01:29400 timed out", "29400"),
        ("port: 54661, useIpv6: false", "54661"),
    ],
)
def test_a_port_is_read_only_from_a_host_or_a_port_field(line: str, port: str | None) -> None:
    found = _PORT.search(line)
    assert (found.group(1) or found.group(2) if found else None) == port
