"""Round 20b: premises to confirm or correct with this job's facts, and asks that got the help reply.

Why: "is the barrier the bug I need to fix?" about the call the collateral ranks died in, and "is my
backward pass broken?" about the call the first rank was in when a killed DataLoader worker reached it,
were answered with the fix or the traceback, never with no and the call that did fail (rank 0's
`torch.save` at line 166; the worker, pid 22194, and `num_workers`); "did ranks 1-3 fail before rank
0?" got the rank count, not no and rank 0's failure first; "did the network between them break?" was
not read as a guess to check; "torch or my own code?" and "bug or infra?" about a loss guard missed
that the script's own `raise` at line 207 stopped the run; "if I raise the timeout to 30 min will it
get through?", "was it actually hung before the limit hit?" after a sentence of context, "was it still
training right up until the kill?" and "how much compute lost?" got the help reply; "did train.py
crash or did something fail before it even ran?" got the launcher's line without saying that the
rendezvous failed before any worker ran.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the call named as the bug: where the collaterals waited, or where the first rank was when it failed
    (
        "disk_full_save",
        "Ranks 1, 2 and 3 all blew up in dist.barrier() at train.py:177. Is the barrier the bug I need "
        "to fix?",
        ["rank 0", "torch.save", "line 166", "waiting"],
        ["barrier is the root cause"],
    ),
    (
        "hang_before_collective",
        "ranks 0-2 all died inside dist.all_reduce() on line 144, so is all_reduce the culprit here?",
        ["rank 3", "all_reduce", "waiting"],
        ["all_reduce is the culprit"],
    ),
    (
        "nan_loss",
        "ranks 0 and 2 crashed in loss.backward(). is the backward pass the problem?",
        ["rank 1", "line 207", "backward"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "rank 2 traceback ends in loss.backward() at train.py line 209. is my backward pass broken or what?",
        ["22194", "dataloader worker", "num_workers"],
        [],
    ),
    (
        "disk_full_save",
        "rank 0 was inside torch.save when it blew up - is torch.save broken?",
        ["disk-full", "line 166"],
        [],
    ),
    # the order of failures put as a claim
    (
        "disk_full_save",
        "ranks 1, 2 and 3 all crashed with 'Connection closed by peer' — did they fail before rank 0?",
        ["no: rank 0 failed first", "line 166", "ranks 1-3 failed after it"],
        ["yes, they failed first", "yes, ranks 1"],
    ),
    (
        "dataloader_worker_killed",
        "did ranks 1 and 3 go down before rank 2 did?",
        ["no: rank 2 failed first", "killed dataloader worker", "after it"],
        ["yes"],
    ),
    # a cause read into the others' lines, put as a question
    (
        "dataloader_worker_killed",
        "rank 1 and rank 3 both say 'Connection closed by peer' — did the network between them break?",
        ["rank 2", "dataloader worker"],
        ["the network between rank 1 and rank 3 broke"],
    ),
    (
        "disk_full_save",
        "ranks 1-3 lost their connection. did the network between the ranks fail?",
        ["rank 0", "disk-full"],
        [],
    ),
    # whose code raised it, asked as a choice
    (
        "nan_loss",
        "Where does 'Loss is nan, stopping training' come from — torch or my own code?",
        ["train.py", "207", "your own"],
        [],
    ),
    (
        "nan_loss",
        "bug or infra?",
        ["207", "valueerror", "not infra"],
        [],
    ),
    (
        "disk_full_save",
        "bug or infra?",
        ["disk"],
        ["your own training code raised it"],
    ),  # guard: no guard of the script raised here, so not the own-raise answer
    # a longer timeout put as the way through
    (
        "hang_before_collective",
        "timeout is tiny. if I raise it to 30 min will the job get through?",
        ["10 s", "rank 3"],
        [],
    ),
    (
        "hang_before_collective",
        "the gloo timeout is super short, what if we push it to 60 min, would it finish then?",
        ["10 s", "rank 3"],
        [],
    ),
    # a hang or progress asked after a sentence of context, or in other words
    (
        "time_limit",
        "Steps were coming every 4s, last one at 03:10:00, cancel at 03:11:40. Was it actually hung "
        "before the limit hit?",
        ["03:10:00", "03:11:40", "100 s"],
        [],
    ),
    (
        "time_limit",
        "the loss was still going down at the end. did it stall before slurm cancelled it?",
        ["03:10:00", "100 s"],
        [],
    ),
    (
        "time_limit",
        "was it still training right up until the kill?",
        ["step 150", "03:10:00"],
        [],
    ),
    (
        "time_limit",
        "still stepping up to the moment it got cancelled?",
        ["step 150", "03:10:00", "03:11:40"],
        [],
    ),
    # what the failure cost, asked in few words
    (
        "rendezvous_port_in_use",
        "how much compute lost?",
        ["rendezvous", "before any worker started"],
        [],
    ),
    (
        "disk_full_save",
        "how much work lost?",
        ["step"],
        [],
    ),
    # a failure before the script ran, asked as a choice with a crash of the script
    (
        "rendezvous_port_in_use",
        "I don't see any rank traceback. Did train.py crash or did something fail before it even ran?",
        ["tcpstore", "launcher"],
        ["train.py line"],
    ),
    (
        "nan_loss",
        "did something blow up before training even started, or did my script crash?",
        ["rank 1", "step"],
        [],
    ),
]
