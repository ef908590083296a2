"""Follow-ups of held-out batches 22 and 23 (doubts side), answered by class in new phrasings.

A rank blamed by the reader or by the launcher's "root cause" gets a plain no (or yes) first, then why;
a doubt that offers another cause (the network, the usual port) gets the line that decides it; a doubt
of which rank it was gets the evidence that named it (the OOM victim's pid and the launcher's line for
it, the others' timeouts); a line asked for by what it says is quoted, or said not to be printed; a
one-liner for a ticket is one sentence, with the loss when asked.
Each answer must state the job's fact, and never the opposite.
"""

from __future__ import annotations

from bot.slack.answers import Answerer

CASES = [
    # (job, question, must, must_not)
    # 1. a rank blamed, by the reader or the launcher
    (
        "desync",
        "the elastic agent's summary names rank 0 as root cause. is rank 0 the bad one?",
        ["no: rank 0 was collateral", "rank 3 started it", "first rank to exit"],
        ["yes: rank 0"],
    ),
    (
        "hang_before_collective",
        "should I trust torchrun's root cause of rank 0?",
        ["no:", "rank 3"],
        ["yes:"],
    ),
    (
        "segfault",
        "0 and 2 logged read errors, are they to blame?",
        ["no: ranks 0 and 2 were collateral", "rank 3 started it"],
        [],
    ),
    (
        "segfault",
        "1 and 3 show errors, are they the culprits",
        ["rank 3 is the one", "rank 1 was collateral"],
        [],
    ),
    ("segfault", "is rank 3 the root cause", ["yes: rank 3"], ["no:"]),
    # 2. another cause offered in the verdict's place
    ("desync", "sounds like a network blip to me", ["not the network", "`broadcast`", "`all_reduce`"], []),
    ("rendezvous_port_in_use", "is it the same old 29500 clash again?", ["not 29500", "54661"], []),
    # 3. what named the rank
    (
        "hang_before_collective",
        "its stderr is blank, so how do you blame rank 3?",
        ["timed out after 10 s waiting on rank 3", "no timeout or error of its own", "sigterm"],
        [],
    ),
    (
        "host_oom_kill",
        "what ties pid 51234 to rank 2?",
        ["killed pid 51234", "local_rank: 2 (pid: 51234)", "launcher.log:1"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "rank 0 has the traceback yet you blame rank 2 -- which one is it?",
        ["rank 2 is the one", "3312", "local_rank: 2"],
        [],
    ),
    # 4. a setting the logs never print
    (
        "zero3_save",
        "show me the line that says stage3_gather_16bit_weights_on_model_save, quote it",
        ["nothing to quote", "_zero3_consolidated_16bit_state_dict", "rank0.log:109"],
        [],
    ),
    (
        "zero3_save",
        "which line says overlap_comm is true? quote it",
        ["nothing to quote", "don't say"],
        ["infers"],
    ),
    # 5. a line asked for by what it says; a one-liner, with the loss
    (
        "time_limit",
        "what line shows the cancellation? paste it",
        ["slurm-991.log:2", "due to time limit"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "one-liner for the incident ticket, and what did we lose",
        ["no rank failed", "nothing was lost", "54661"],
        [],
    ),
    ("zero3_save", "give me a one-liner", ["rank 0", "out-of-memory"], ["its last line before that"]),
]


def test_a_doubt_of_the_rank_leads_with_what_named_it(answerers: dict[str, Answerer]) -> None:
    """The evidence comes first, before the usual answer, so the doubt is answered at the top."""
    text = answerers["host_oom_kill"].answer("how can you tell pid 51234 is rank 2's process?").text
    assert text.startswith("The kernel's OOM killer killed pid 51234")
