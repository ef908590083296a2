"""Follow-ups of held-out batch 21's classes, answered by class (new phrasings, not the batch's words).

A how-to-change, which-flag, which-command or what-to-grep ask reaches the fix, debug or command answer
whatever topic word or quoted line comes with it; a terse list of facts ("pids, exit codes, time of
failure") is answered item by item; "what did the rest do afterwards" is the others' answer; a guess
about an unrelated line is checked against the verdict, and "does the node need draining" gets the
hardware verdict; "training or saving?" is the phase; "why did ranks 1-3 die" is the collateral's
story; "how much do we lose" gives the last step reached against the last save logged.
Each answer must state the job's fact, and never the opposite.
"""

from __future__ import annotations

import pytest

from knowledge.intents import IntentMatcher, asks

GATHER = "stage3_gather_16bit_weights_on_model_save"
DRAIN = "state=drain"

CASES = [
    # (job, question, intent, must, must_not)
    ("zero3_save", "what setting in the deepspeed json should we change", "fix", [GATHER], []),
    ("zero3_save", "which option in our ds config do I need to set", "fix", [GATHER], []),
    ("fsdp_cpu_save", "what would the corrected call look like", "fix", ["rank0_only=True", "line 301"], []),
    ("fsdp_cpu_save", "whats missing from that line", "fix", ["rank0_only"], []),
    ("host_oom_kill", "how can we verify memory remains stable on the next run", "verify", ["MaxRSS"], []),
    ("nan_loss", "what env var catches the first nan", "debug", ["set_detect_anomaly"], []),
    ("nan_loss", "which pytorch mode detects the bad op", "debug", ["set_detect_anomaly"], []),
    ("segfault", "any core dump i can look at?", "debug", ["ulimit -c"], []),
    ("segfault", "where's the core file", "debug", ["gdb"], []),
    ("dataloader_worker_killed", "what do we search for in dmesg", "command", ["dmesg -T", "oom-kill"], []),
    ("checkpoint_oom", "what do we run on the node to prove it was host ram", "command", ["dmesg -T"], []),
    ("xid", "how do i stop new jobs landing on gpu-02", "fix", [DRAIN], []),
    ("xid", "command to keep slurm off that box", "fix", [DRAIN], []),
    ("dataloader_worker_killed", "what did the other ranks do after that", "others", ["SIGTERM"], []),
    (
        "disk_full_save",
        "exit codes, pids and failure time",
        "rank_why",
        ["pid 21749", "exitcode -15 (SIGTERM)", "21:36:52"],
        [],
    ),
    ("segfault", "pids, exit codes", "rank_why", ["pid 24103", "-11 (SIGSEGV)"], []),
    (
        "gpu_oom",
        "did the checkpoint sync kill it or is that unrelated?",
        "alternatives",
        ["rank 5", "CUDA Out of Memory"],
        [],
    ),
    ("gpu_oom", "does gpu-02 need to be drained", "hardware", ["No need to drain"], []),
    ("xid", "does gpu-02 need draining", "hardware", ["Yes, likely hardware", DRAIN], ["No need to drain"]),
    ("host_oom_kill", "did it die at startup or mid-training", "phase", ["step 2000 of 6000"], []),
    ("zero3_save", "was it saving or training when it went", "phase", ["saving a checkpoint"], []),
    ("gpu_oom", "during training or while loading?", "phase", ["training at step 2001"], []),
    (
        "disk_full_save",
        "why did rank 1 and 3 fail at all, only rank 0 saves",
        "others",
        ["collateral of rank 0", "`barrier`"],
        [],
    ),
    ("time_limit", "how many steps did we lose", "restart", ["step 150", "No checkpoint save"], []),
    (
        "disk_full_save",
        "how much progress is lost",
        "restart",
        ["checkpoint-4.pt", "cut short", "step 4 of 10"],
        ["a restart resumes from it"],
    ),
]


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("pids, exit codes, time of failure", ["pids?", "exit codes?", "time of failure?"]),
        ("node, gpu and xid code", ["node?", "gpu?", "xid code?"]),
        ("rank 3 died, what happened", ["what happened"]),
    ],
)
def test_a_terse_list_is_one_ask_per_item(question: str, parts: list[str]) -> None:
    assert asks(IntentMatcher().text(question)) == parts


def test_a_need_to_know_is_an_ask() -> None:
    parts = asks(IntentMatcher().text("the upload is noise? I need to know if gpu-02 gets drained"))
    assert parts[-1].startswith("i need to know if")
