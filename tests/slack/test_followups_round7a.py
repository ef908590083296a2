"""Follow-ups of held-out batches 24 and 25 (routing side), answered by class in new phrasings.

How far the run got reaches the last step logged; a doubt that the logs print a named message is told
whether any kept line says it, with what the failing rank printed instead; "us or the cluster, who do
I ping" gets whose move it is; "config or bigger machines" gets the config change; a network or
firewall guess at a job where nothing failed on the wire is answered no, with the line that decides;
"is the timeout too tight" gets the timeout and why raising it would not help; "only the save blew
up? did we lose the weights" gets the phase and whether the save completed; an exit code put to be
confirmed gets yes or no first; "would rank N have failed anyway" gets no for a collateral rank, with
its own line; a second ask of a message is answered too.
Each answer must state the job's fact, and never the opposite.
"""

from __future__ import annotations

from bot.slack.answers import Answerer

CASES = [
    # (job, question, must, must_not)
    # 1. how far the run got
    ("nan_loss", "how far along was the run", ["step 6"], []),
    ("gpu_oom", "how many iterations did we get through", ["2001 of 6000"], []),
    ("segfault", "what step had training reached when it crashed, out of the 10?", ["step 1"], []),
    # 2. a named message the logs may not print
    (
        "disk_full_save",
        "i grepped the logs for ENOSPC and got nothing, so what does it really say",
        ["no: `enospc` is not in any line", "unexpected pos 1088 vs 982", "inferred"],
        ["yes:"],
    ),
    (
        "host_oom_kill",
        "any line that actually says killed process? grepped and only saw the launcher error",
        ["yes: node-gpu-01.dmesg:2 says `killed process`"],
        ["no:"],
    ),
    (
        "gpu_oom",
        "i grepped for 'CUDA out of memory' and got nothing",
        ["yes: rank5.log:222"],
        ["is not in any line"],
    ),
    # 3. whose move it is; config or capacity
    ("xid", "our code or the platform? who do we escalate to", ["cluster admins", "gpu-02", "xid 79"], []),
    ("gpu_oom", "who should we page, infra or us?", ["job owner", "no sign of hardware"], ["cluster admins"]),
    ("fsdp_cpu_save", "do we just ask for bigger nodes or change a setting in the code", ["rank0_only"], []),
    # 4. a network guess where nothing failed on the wire
    (
        "rendezvous_port_in_use",
        "could an iptables rule between the hosts have blocked it?",
        ["no, not a firewall", "54661", "eaddrinuse"],
        ["yes, it points at the network"],
    ),
    (
        "segfault",
        "rank 0 and rank 2 show connection reset by peer, bad network?",
        ["not the network", "rank 3", "segmentation fault"],
        [],
    ),
    (
        "hang_before_collective",
        "is the 10000ms gloo timeout too short for this cluster?",
        ["the timeout was 10 s", "would not help", "rank 3"],
        ["it may:"],
    ),
    # 5. only the save failed: the phase and the checkpoint's state
    (
        "checkpoint_oom",
        "so only the checkpoint failed, training itself was fine? did we lose step 6",
        ["saving a checkpoint", "did not finish", "checkpoint-6.pt"],
        [],
    ),
    # 6. confirmations and hypotheticals
    ("nan_loss", "rank 1 exited with code 1, correct?", ["yes: rank 1 ended with exit code 1"], ["no:"]),
    ("desync", "exit code for rank 3 was 1 right?", ["yes: rank 3 ended with exit code 1"], ["no:"]),
    (
        "segfault",
        "rank 3 died with sigkill right?",
        ["no: rank 3 ended with exit code -11 (sigsegv)"],
        ["yes:"],
    ),
    (
        "fsdp_cpu_save",
        "the one that got killed exited with 137, right?",
        ["yes: rank 2 ended with exit code -9", "128 + signal 9"],
        ["i can answer"],
    ),
    (
        "desync",
        "would ranks 0 to 2 have timed out regardless?",
        ["no: ranks 0-2 were collateral, waiting on rank 3", "15000ms"],
        [],
    ),
    (
        "host_oom_kill",
        "would rank 3 still have died on its own? it has a watchdog error too",
        ["no: rank 3 was collateral, waiting on rank 2", "allgather"],
        [],
    ),
    # 7. both asks of a message
    (
        "rendezvous_port_in_use",
        "what port collided, and did training ever begin?",
        ["54661", "no worker started"],
        [],
    ),
    ("hang_before_collective", "did it print any error at all", ["no error of its own"], []),
]


def test_a_confirmation_leads_with_yes_or_no(answerers: dict[str, Answerer]) -> None:
    """The figure the reader checks is confirmed or corrected in the first word."""
    text = answerers["segfault"].answer("rank 0 exited with -9 right?").text
    assert text.startswith("No: rank 0 ended with exit code -15 (SIGTERM)")


def test_the_rank_that_started_it_is_not_called_collateral(answerers: dict[str, Answerer]) -> None:
    """ "Would rank N have failed anyway" about the rank that started it is not answered "No: collateral"."""
    text = answerers["host_oom_kill"].answer("would rank 2 have failed anyway?").text
    assert "was collateral, waiting on" not in text
