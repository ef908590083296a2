"""Round 21a: facts an ask names that the answer left out (a file, a command, a step's time, a signal's
grace, an Xid's time, the backend against an `nccl_*` tag, the call the others were in, a credential).

Why: each class below is answered from this job's own lines, but the answer of the ask's kind did not
carry the fact. "how i find which process use the port?" is the command that shows the port's holder;
"which volume do I clean up, and the command to check it?" is `df -h` of the save's directory; "which
file was it writing?" is the path of the save line, never a library's source file named in an error;
"nan at which step? rank0 log dont show any nan" names a rank that only failed after the first, so that
clause is answered (who failed first, with what) and the rest asked without it; "HF token printed in
rank5 log, is it problem?" is the masked credential's line and to rotate it, not a verdict on rank 5;
"which backend was it really, does that change who you blame?" on gloo says the `nccl_*` tag is a kind
of failure and names the first rank; "inside which collective?" / "which call were they blocked in?"
is each other rank's call from its own traceback (a functional collective's `wait_tensor` when only
the tail was kept) with its error line; "did they time out or fail immediately?" is the others' answer;
"last step logged and when?" is the furthest step line and its time; "how long was the grace period
before the kill?" is srun's `Waiting up to N seconds`; "driver, PCI bus id and Xid timestamp" adds the
Xid line's time (or that no Xid was logged).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the command that shows what holds the port
    ("rendezvous_port_in_use", "how i find which process use the port?", ["ss -ltnp", "54661"], []),
    ("rendezvous_port_in_use", "what program is holding port 54661, how to check", ["ss -ltnp"], []),  # guard
    # the volume to clean and its check
    (
        "disk_full_save",
        "Which path/volume do I need to clean up, and what's the exact command to check it?",
        ["/tmp/realjob-disk_full_save-cmzq89u_", "df -h"],
        [],
    ),
    (
        "checkpoint_oom",
        "what command checks the volume it was saving to, so I can clean it up?",
        ["df -h /tmp/realjob-cpu_oom_checkpoint_gather-hg2uj_w5/checkpoints"],
        [],
    ),
    # the file the save was writing, never a library's source file
    ("disk_full_save", "which file it was writing when fail?", ["checkpoint-4.pt"], []),
    ("checkpoint_oom", "what file was being saved when it died", ["checkpoint-6.pt"], []),  # guard
    ("checkpoint_oom", "which file it was writing when fail?", ["checkpoint-6.pt"], []),
    ("desync", "where was it writing to?", [], ["unbound_buffer.cc`"]),
    # a collateral rank named as where the symptom is not: who failed first, and the step
    ("nan_loss", "nan at which step? rank0 log dont show any nan", ["step 6", "rank 1 failed first"], []),
    (
        "gpu_oom",
        "oom at which step? rank 2 log doesn't show any oom",
        ["rank 5 failed first", "step 2001"],
        [],
    ),
    # a credential seen in a log: its masked line and to rotate it
    (
        "gpu_oom",
        "i see HF token printed in rank5 log, is it problem? what i do",
        ["hf token", "rotate"],
        ["hf_DemoPlantedTok3nXq7ZpL2mVb9RtYw4KcNs", "Yes: rank 5 is the one"],
    ),
    (
        "time_limit",
        "there's an api key in the output, should I worry?",
        ["no secret-looking value"],
        [],
    ),
    # the backend on a gloo job tagged nccl_*: the tag is a kind, the first rank is to blame
    (
        "checkpoint_oom",
        "Your table says ranks 0 and 2 had an 'nccl_comm_error'. As far as I can tell this job isn't even "
        "on NCCL. Which backend was it really, and does that change who you blame?",
        ["gloo", "rank 1, with a host (cpu) out-of-memory error"],
        [],
    ),
    ("nan_loss", "which backend was this, nccl or gloo?", ["gloo", "rank 1, with a nan/inf loss"], []),
    # inside which collective / which call the other ranks were, with their error line
    (
        "checkpoint_oom",
        "Your collateral table tags ranks 0 and 2 as nccl_comm_error. Was NCCL even involved here? What "
        "exactly did ranks 0 and 2 fail with, and inside which collective?",
        ["gloo", "pair.cc:553", "wait_tensor"],
        [],
    ),
    ("checkpoint_oom", "which collective were ranks 0 and 2 in?", ["wait_tensor"], []),
    (
        "disk_full_save",
        "Ranks 1-3: did they time out waiting for rank 0 or fail immediately? Which call were they "
        "blocked in?",
        ["barrier", "line 177", "pair.cc:553"],
        [],
    ),
    ("disk_full_save", "Which call were they blocked in?", ["barrier", "line 177"], []),
    # the last step logged, with its time
    (
        "host_oom_kill",
        "last training step logged before the crash, and when?",
        ["step was 2000", "03:13:52"],
        [],
    ),
    ("time_limit", "when was the final step logged?", ["step was 150", "03:10:00"], []),  # guard
    ("gpu_oom", "what time was the last training step logged?", ["step was 2001", "03:14:02"], []),  # guard
    ("nan_loss", "last step logged before it died, and at what time?", ["step was 6", "21:36:34"], []),
    # the grace between SIGTERM and SIGKILL
    (
        "time_limit",
        "What signal did the workers get when Slurm cancelled it, and how long was the grace period "
        "before the step was killed?",
        ["SIGTERM", "32 seconds"],
        [],
    ),
    ("time_limit", "how many seconds between the SIGTERM and the kill?", ["32 seconds"], []),
    # the Xid's time for a vendor ticket
    (
        "xid",
        "Opening a vendor ticket: need the driver version, PCI bus id and Xid timestamp.",
        ["550.90.07", "0000:3b:00", "03:14:03"],
        [],
    ),
    ("gpu_oom", "driver version and when did the xid happen?", ["550.90.07", "no xid line"], []),
]
