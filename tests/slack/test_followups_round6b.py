"""Follow-ups of held-out batches 22 and 23 (answers side), answered by class in new phrasings.

Where the collateral ranks were when the first one failed (the collective and the user's line their
tracebacks stop in); what a rank's own log said (its own error line, or that it printed none); a
rank's batch when asked about its batch or what set it apart; whether the checkpoint a failed save
was writing exists; a time answer that also names what failed; what a job that never started lost
(nothing); the step rate from the step lines' timestamps; a time limit the logs never print.
Each answer must state the job's fact, and never the opposite.
"""

from __future__ import annotations

from bot.slack.answers import Answerer

CASES = [
    ("zero3_save", "does the ckpt exist", ["step 100 checkpoint is not complete"], ["was saved"]),
    ("time_limit", "step time?", ["every 4 s"], []),
    ("time_limit", "how many seconds per step were we doing", ["every 4 s"], []),
    # (job, question, must, must_not)
    (
        "disk_full_save",
        "rank 2 was only waiting, so why did it go down?",
        ["`barrier`", "train.py line 177", "rank 0"],
        [],
    ),
    ("hang_before_collective", "why did rank 1 die", ["`all_reduce`", "train.py line 144"], []),
    (
        "disk_full_save",
        "give me our file:line for rank 0 and where the other ranks were sitting when it happened",
        ["line 166", "torch.save", "ranks 1-3 in `barrier`"],
        [],
    ),
    (
        "hang_before_collective",
        "who stalled, and where were the others stuck?",
        ["rank 3", "`all_reduce`"],
        [],
    ),
    (
        "xid",
        "which rank was on the failing gpu and what did its log say",
        ["rank 5", "unspecified launch failure", "rank5.log:207"],
        [],
    ),
    (
        "segfault",
        "which rank went first and what did its log say",
        ["rank 3", "no error of its own"],
        ["own log says"],
    ),
    ("gpu_oom", "what was the sequence length of that batch and which step", ["16384", "2001"], []),
    ("gpu_oom", "how come rank 5 ran out and not rank 3 with the same settings", ["16384"], []),
    (
        "zero3_save",
        "cuda oom in the middle of saving. is the step 100 checkpoint there at all?",
        ["step 100", "did not finish"],
        ["was written"],
    ),
    (
        "zero3_save",
        "CUDA out of memory, tried to allocate 2.00 GiB mid-save. does the step 100 ckpt exist?",
        ["step 100", "not complete", "rank0.log:101"],
        ["was written"],
    ),
    (
        "zero3_save",
        "when did it go down, for the incident ticket",
        ["03:08:20", "out of memory"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "did anything train at all",
        ["nothing was lost", "54661"],
        ["step 1"],
    ),
    ("rendezvous_port_in_use", "what did we lose here", ["nothing was lost"], []),
    ("time_limit", "seconds per step? how far did it get", ["every 4 s", "150"], []),
    (
        "time_limit",
        "which node was it on, what walltime did it have",
        ["gpu-01", "not in the logs", "Timelimit"],
        ["limit was 48"],
    ),
]


def test_the_time_limit_is_said_once_when_asked_with_another_fact(answerers: dict[str, Answerer]) -> None:
    text = answerers["time_limit"].answer("what limit was it given, and which node was it on").text
    assert text.count("is not in the logs") == 1
