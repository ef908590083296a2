"""Follow-ups answered by class after blind batch 20 (new phrasings, not the batch's questions).

What the initiating rank was doing, in words, from its own last line (or the job's phase line) in
every answer that describes it; a timeline with every event the facts have; later asks of a message
that were dropped (a trailing "and how", slashed rank lists, a command after "in Slurm:"); a
challenge of the verdict answered with why the named alternative does not fit; a quoted pid or PCI
id mapped to its rank and node; and a save the failure cut short. Each answer must state the job's
fact, and never the opposite.
"""

from __future__ import annotations

import pytest

from knowledge.intents import IntentMatcher, asks, named_ranks

CASES = [
    # (job, question, intent, must, must_not)
    # what the rank was doing, in words
    (
        "host_oom_kill",
        "how much RAM did rank 2 have when the kernel killed it",
        "memory",
        ["61.25 GiB", "building in-memory index of 1.2B samples", "rank2.log:206"],
        [],
    ),
    ("fsdp_cpu_save", "which rank died first", "which_rank", ["Rank 2", "saving checkpoint at step 50"], []),
    ("zero3_save", "why did rank 0 fail", "rank_why", ["Saving model checkpoint to out/", "03:08:20"], []),
    (
        "segfault",
        "r3 died with no python trace, what was it in the middle of",
        None,
        ["in a training step"],
        [],
    ),
    # a timeline: every event, in order, with times
    (
        "fsdp_cpu_save",
        "walk me through the timeline",
        "when",
        ["03:03:20 last good step 50", "03:05:00", "saving checkpoint at step 50", "03:05:38", "138 s"],
        [],
    ),
    (
        "host_oom_kill",
        "sequence of events please",
        "when",
        ["03:13:52", "building in-memory index", "03:14:05", "03:24:06"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "how long after the last good step did it die",
        "when",
        ["138 s", "combined.log:407"],
        [],
    ),
    # later asks kept
    (
        "xid",
        "which node has the bad gpu, and should i drain it now",
        "which_rank",
        ["gpu-02", "state=drain"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "when did it start, who else failed and how",
        "when",
        ["rank 2 failed", "SIGTERM", "collateral"],
        [],
    ),
    (
        "host_oom_kill",
        "what was rank 2 up to, and why did 0/1/3 wait 10 minutes",
        "rank_why",
        ["building in-memory index", "ALLGATHER", "Rank 3 was collateral"],
        [],
    ),
    # a challenge: why the named alternative does not fit
    (
        "segfault",
        "are you sure it wasn't killed for using too much ram?",
        None,
        ["exit -9", "exit -11", "SIGSEGV"],
        [],
    ),
    ("disk_full_save", "are you sure its not just a flaky nfs mount?", None, ["short write", "df -h"], []),
    (
        "rendezvous_port_in_use",
        "we launch on 29400, are you sure it's a port clash?",
        None,
        ["54661", "not 29400"],
        [],
    ),
    (
        "nan_loss",
        "are you sure? losses look fine to me, could be one bad batch",
        None,
        ["only rank 0 logs its loss", "rank 1 whose loss was NaN"],
        [],
    ),
    # whose pid / PCI id
    ("host_oom_kill", "whose process is pid 51234", "which_rank", ["rank 2's process", "gpu-01"], []),
    (
        "dataloader_worker_killed",
        "which rank owns worker pid 22194",
        "which_rank",
        ["rank 2's DataLoader worker", "dmesg"],
        [],
    ),
    ("xid", "which node is PCI 0000:3b:00 on", "which_rank", ["rank 5's", "gpu-02"], ["rank 1's"]),
    (
        "xid",
        "rank 3 has busId 3b000 too, so how do you know it's rank 5's gpu",
        "which_rank",
        ["rank 5's", "gpu-02", "Rank 3 runs on gpu-01"],
        [],
    ),
    # how to check a node has the host RAM for a relaunch
    (
        "host_oom_kill",
        "before we relaunch, how do i make sure gpu-01 has enough ram",
        None,
        ["free -g", "MaxRSS"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "is it safe to restart, and how do we see the memory left on that node",
        None,
        ["free -g", "gpu-01"],
        [],
    ),
    ("gpu_oom", "how do i check the box has headroom", None, [], ["free -g"]),
    # a save the failure cut short
    (
        "checkpoint_oom",
        "did the checkpoint-6 file ever land on disk",
        "phase",
        ["checkpoint-6", "may be missing or partial"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "can we resume from the step 50 save or is it partial",
        None,
        ["may be missing or partial", "previous completed checkpoint"],
        [],
    ),
]


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("who else died and how", ["who else died and how"]),
        ("who crashed and why, and when", ["who crashed and why", "when"]),
        ("`pid 4411` whose is that, and what killed it", ["pid 4411: whose is that", "what killed it"]),
    ],
)
def test_a_trailing_question_word_stays_with_its_ask(question: str, parts: list[str]) -> None:
    assert asks(IntentMatcher().text(question)) == parts


def test_slashed_ranks_are_ranks_but_a_step_fraction_is_not() -> None:
    assert named_ranks("why did 0/1/3 hang on") == (0, 1, 3)
    assert named_ranks("it was at step 6/10") == ()
