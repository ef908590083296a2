"""Follow-ups an SRE and the job's own researcher ask (held-out batches 15 and 16), answered by class.

An exit code the failing rank printed after its traceback, a node whose ranks only timed out, a guess
made in passing ("smells like a network blip") next to a real ask, the command to run on the box, the
others' place in the user's code, a job whose workers never started (nothing ran, nothing to resume,
no rank to blame), a hand-set port that was taken, a kind of crash guessed wrong ("did it segfault?")
and a practice put forward as the cause ("I use full_state_dict: is that the problem?"). Each answer
must state the job's fact, and never the opposite.
"""

from __future__ import annotations

import pytest

from knowledge.intents import IntentMatcher, asks, named_ranks

CASES = [
    # (job, question, intent, must, must_not)
    ("gpu_oom", "what exit code did rank 5 return", "rank_why", ["exit code 1", "rank5.log:223"], []),
    ("checkpoint_oom", "how far did it get", "phase", ["step 6"], []),
    (
        "xid",
        "all 4 ranks on gpu-01 errored too. is gpu-01 also bad?",
        "hardware",
        ["Not by this job's evidence", "gpu-01's rank(s) 0-3", "collateral", "Xid 79"],
        ["Yes, likely hardware: Xid 79 (GPU has fallen off the bus) on gpu-01"],
    ),
    (
        "flight_recorder",
        "3 ranks timed out at once, smells like a network blip. whats the timeout they hit?",
        "alternatives",
        ["Not the network", "600 s"],
        [],
    ),
    ("nan_loss", "which pid should i hand to the user", "which_rank", ["pid 21428", "console.log:107"], []),
    ("disk_full_save", "what do i run to check the mount", "command", ["df -h"], []),
    ("rendezvous_port_in_use", "how do i find out what's holding it", "port", ["54661", "ss -ltnp"], []),
    (
        "xid",
        "after the reboot how do i validate the node before i put it back in the pool",
        "fix",
        ["dcgmi diag"],
        [],
    ),
    (
        "disk_full_save",
        "the other three ranks died with gloo connection closed errors. related or separate problem?",
        "others",
        ["collateral of rank 0", "`barrier`", "a peer process went away"],
        ["Not the network"],
    ),
    ("segfault", "other 3 got -15. did our scheduler send that", "others", ["SIGTERM", "launcher"], []),
    (
        "hang_before_collective",
        "where were the other ranks waiting in my code",
        "code",
        ["rank(s) 0-2", "line 144, in `reduce_metric`", "`all_reduce`"],
        ["rank(s) 3 at"],
    ),
    (
        "desync",
        "quickest way to repro this locally?",
        "command",
        ["To reproduce it", "--nproc_per_node 4"],
        [],
    ),
    ("gpu_oom", "quickest way to repro this locally?", None, [], ["To reproduce it"]),  # no relaunch command
    (
        "segfault",
        "where in my code did rank 3 crash? theres no traceback in its stderr",
        "code",
        ["no traceback", "PYTHONFAULTHANDLER"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "did my code even run?",
        "phase",
        ["forming the process group", "never ran"],
        [],
    ),
    ("rendezvous_port_in_use", "can i resume", "restart", ["Nothing to resume from"], []),
    ("rendezvous_port_in_use", "is it rank 0's fault?", "rank_why", ["No rank", "before any worker"], []),
    (
        "rendezvous_port_in_use",
        "i hardcode the master port in my launch script (54661). is that it?",
        "port",
        ["Yes, that is it", "EADDRINUSE", "per-job port"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "did my dataset code segfault inside the worker?",
        "alternatives",
        ["Not a segmentation fault", "killed by signal: Killed"],
        ["Yes, it points"],
    ),
    ("segfault", "did rank 3 segfault?", "alternatives", ["Yes, it points at a segmentation fault"], []),
    (
        "checkpoint_oom",
        "im calling get_state_dict with full_state_dict=True on save. is that the problem, and what should "
        "i use instead",
        "explain",
        ["FULL_STATE_DICT", "save sharded"],
        [],
    ),
    (
        "nan_loss",
        "does rank 1's nan guard take everyone down? why do rank 0 and 2 show connection closed",
        "rank_why",
        ["Rank 1 started it", "Rank 0 was collateral", "Rank 2 was collateral", "rank 1 stopped"],
        [],
    ),
    (
        "gpu_oom",
        "is there a ckpt i can resume from? whats the last step that actually finished",
        "restart",
        ["Not as is", "was 2000 (rank5.log:205)"],
        [],
    ),
]


def test_number_words_are_not_typos() -> None:
    matcher = IntentMatcher()
    assert "other three ranks" in matcher.text("the other three ranks died")


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # a guess made in passing is checked, as a question would be
        (
            "3 ranks timed out, smells like a network blip. whats the timeout",
            ["3 ranks timed out, smells like a network blip", "whats the timeout"],
        ),
        # `and do i …`, `and at which …` start a second ask
        (
            "what host was this on and do i need to pull dmesg",
            ["what host was this on", "do i need to pull dmesg"],
        ),
        ("which rank stalled and at which step", ["which rank stalled", "which step"]),
        # "is that …" points back at the statement before it
        ("i hardcode the port. is that the problem", ["i hardcode the port: is that the problem"]),
    ],
)
def test_asks_are_split_and_keep_what_they_point_at(question: str, parts: list[str]) -> None:
    assert asks(IntentMatcher().text(question)) == parts


def test_a_list_after_singular_rank_names_every_rank() -> None:
    assert named_ranks("why do rank 0 and 2 show connection closed") == (0, 2)
    assert named_ranks("rank 5 and 10 minutes later") == (5,)
