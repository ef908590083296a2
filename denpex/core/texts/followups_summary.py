"""Texts for questions about the summary's own wording: its confidence, 'at or after', 'Also possible',
the rank a kill was tied to, a node it does not name, and what its Verify command shows."""

from __future__ import annotations

CONF_LEAD = "The confidence is {conf:.2f} ({level})."
CONF_RUNNER_UP = " The runner-up, *{title}*, scored {alt:.2f}: {why}."
CONF_NO_RUNNER_UP = " No other cause scored on these lines; the figure is held down by what the logs lack."
CONF_INFERRED = (
    " Rank {rank} never reported an error of its own: it is named by elimination (the others timed out"
    " waiting on it), not by a line of its own."
)
CONF_NO_STACK = (
    " The log shows the signal and the exit code, but no native stack (no backtrace, no core): it does not"
    " say where or why native code crashed."
)
CONF_MISSING = " Missing: {items}."
CONF_DIRECT = " The verdict rests on {ref}, rank {rank}'s line."

BORROWED = (
    "Rank {rank}'s own line ({ref}) has no time of its own, so the summary borrows the time of the nearest"
    " earlier line that has one ({time}) and says 'at or after':"
    " it is a lower bound, not the moment it failed."
)
BORROWED_OTHERS = (
    " {who} ≥{time} is borrowed the same way (their lines have no time of their own): both are"
    " lower bounds taken from different earlier lines, so they do not order the events. Rank {rank} is"
    " named first from what the lines say (the others only waited on it), not from these times."
)
OWN_TIME = "Rank {rank}'s line ({ref}) carries its own time, {time}: the summary gives it as is."

ALSO_LEAD = (
    "'Also possible' lists another failure mode that fits some of these lines but scored lower than the"
    " verdict, *{verdict}* ({conf:.2f})."
)
#: the alternative asked about scored as high as the verdict: a tie, not a lower score
ALSO_LEAD_TIED = (
    "'Also possible' lists another failure mode that fits some of these lines and here scored as high as"
    " the verdict, *{verdict}* ({conf:.2f}): a tie the logs do not break."
)
ALSO_ONE = " *{title}* ({id}) scored {alt:.2f}: {why}."
ALSO_CHECK = " To tell them apart: the verdict's check is `{verify}`; for *{title}*: {shows}"
ALSO_LINE = " The verdict rests on rank {rank}'s {ref}: `{text}`."

NO_NODE = (
    "The logs don't name the host rank {rank} ran on: no line of this job prints a hostname for it (no"
    " launcher line with a node, no dmesg), so the summary leaves the node out rather than guess."
    " To find it: `sacct -j <jobid> -o JobID,NodeList` (Slurm) or `kubectl get pod -o wide` (Kubernetes)."
)

VERIFY_LEAD = "The Verify command is `{verify}`."
VERIFY_EXPECT = " What to expect: {expect}"

#: what a Verify command's part shows, by a word of the command (first match of each kept, in order)
VERIFY_PARTS: tuple[tuple[str, str], ...] = (
    (
        "Timelimit",
        "State TIMEOUT (or CANCELLED by the limit) with Elapsed equal to Timelimit means the job hit its"
        " time limit; after the fix, State COMPLETED with Elapsed below Timelimit.",
    ),
    (
        "ReqMem",
        "MaxRSS close to ReqMem (State OUT_OF_MEMORY) means the job used the memory it asked for; after the"
        " fix, MaxRSS stays well under it.",
    ),
    (
        "df -h",
        "`df -h` showing Use% at or near 100% on the checkpoint volume (or `df -i` IUse% 100%: out of inodes)"
        " confirms a full disk; after the fix, free space above the checkpoint's size.",
    ),
    (
        "killed process",
        "an `Out of memory: Killed process <pid>` line from the kernel means the OOM killer sent the SIGKILL;"
        " none after the fix.",
    ),
    (
        "zero_to_fp32",
        "`zero_to_fp32.py` consolidates the ZeRO shards into one fp32 model offline, on the CPU: the way to"
        " get a full model without `stage3_gather_16bit_weights_on_model_save`, which gathers the whole model"
        " onto one GPU during the save. It should write the consolidated weights without a GPU OOM.",
    ),
    (
        "stage3_gather_16bit_weights_on_model_save",
        "the `grep` shows whether `stage3_gather_16bit_weights_on_model_save` is still on in ds_config.json"
        " (it should be false after the fix).",
    ),
    (
        "gdb",
        "`gdb ... bt` prints the native backtrace: the library and function that crashed,"
        " which the log lacks.",
    ),
    (
        "xid",
        "the kernel's Xid lines for that GPU (none after a reset or swap), and `nvidia-smi`"
        " listing it healthy.",
    ),
    (
        "TORCH_DISTRIBUTED_DEBUG",
        "with `TORCH_DISTRIBUTED_DEBUG=DETAIL` a mismatch is reported by name (which rank called which"
        " collective); after the fix the run finishes with no mismatch report.",
    ),
)
