"""Round 36c: asks for one record of the job by name — the kernel's kill line ("quote the kernel line",
"total-vm and UID of the killed proc?"), the launcher's record of the failed process ("why rank 2? the
only traceback is from rank 0", "exit code of the killed one"), whom the launcher sent SIGTERM, a span
of lines the message cites ("the Root Cause block (console.log:107-114): what time?"), the values
logged at named steps, how far the run got ("how many completed?"), the last training step before the
save and when the save began, the deepspeed function and line that made the failed allocation, the
full path of our code's frame, which per-rank stderr.log is empty, and "our code/config or the
cluster?".

Why: the answer for the message's first ask stated the conclusion (a host OOM, rank 2 first, the save,
the shortfall) and left out the record the message asks to see; each step quotes the job's own line
(file:line, time) and its figures, and adds nothing when the job has no such line.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "dataloader_worker_killed",
        "Could you please tell me the loss values logged at step 0 and step 1, and roughly when those"
        " were logged? I'm trying to understand how far the run got.",
        ["1.1507", "1.0193"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "I see lines about 'Sending process ... closing signal SIGTERM'. What does that mean, and which"
        " process ids did the launcher send SIGTERM to?",
        ["22026", "22027", "22029"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "torchrun sent SIGTERM to which processes?",
        ["22026", "22027", "22029"],
        [],
    ),
    (
        "zero3_save",
        "How long was there between the last training step and the start of the checkpoint save? Please"
        " give both timestamps.",
        ["03:06:40", "03:08:20", "100 s"],
        [],
    ),
    (
        "zero3_save",
        "time from final train step to save start?",
        ["03:06:40", "03:08:20"],
        [],
    ),
    ("zero3_save", "last train step before save, and save time, danke", ["step 100", "03:08:20"], []),
    (
        "fsdp_cpu_save",
        "how do u know it's host RAM and not a GPU OOM? quote the kernel line",
        ["oom-killer|Out of memory: Killed process", "3312"],
        [],
    ),
    ("fsdp_cpu_save", "total-vm and UID of the killed proc?", ["402113232", "1000"], []),
    (
        "fsdp_cpu_save",
        "why rank 2? the only traceback is from rank 0",
        ["local_rank: 2|local_rank 2", "3312", "-9"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "why was it rank 2 if only rank 0 printed a traceback?",
        ["local_rank: 2|local_rank 2", "3312"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "saving checkpoint at which step it was? and exit code of the killed one",
        ["step 50", "-9"],
        [],
    ),
    ("zero3_save", "what call in deepspeed actually did the allocation? file line", ["clone", "3466"], []),
    (
        "zero3_save",
        "inside which deepspeed function oom happen, line no?",
        ["_zero3_consolidated_16bit_state_dict", "3466"],
        [],
    ),
    (
        "zero3_save",
        "what function in deepspeed made the allocation that failed?",
        ["clone", "3466"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "how much training did we actually get done before it fell over?",
        ["1/10|step 1"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "world size and total configured steps? how many completed",
        ["world size 4|world_size 4|world size of 4|4 ranks", "1/10|step 1"],
        [],
    ),
    ("dataloader_worker_killed", "how much progress did the run make?", ["1/10|step 1"], []),
    (
        "zero3_save",
        "our code/config or the cluster?",
        ["stage3_gather_16bit_weights_on_model_save|save_16bit_model|16-bit"],
        [],
    ),
    (
        "zero3_save",
        "our setup/config or the cluster's fault?",
        ["stage3_gather_16bit_weights_on_model_save|save_16bit_model|16-bit"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "which rank's stderr.log is empty and which one has the worker death msg",
        ["0/stderr.log", "2/stderr.log"],
        [],
    ),
    ("dataloader_worker_killed", "is any stderr.log empty?", ["0/stderr.log"], []),
    (
        "fsdp_cpu_save",
        "which file + line of our code kicked off the save?",
        ["/workspace/train.py", "301"],
        [],
    ),
    ("fsdp_cpu_save", "what file and line in our code started the save?", ["/workspace/train.py", "301"], []),
    (
        "dataloader_worker_killed",
        "The launcher's Root Cause block (console.log:107-114): what time and which PID does it give for"
        " rank 2? How many files and ranks did you scan?",
        ["21:37:15", "22028", "9 files|files: 9|9 log files"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "console.log:107-114 root cause block - what time does it give?",
        ["21:37:15"],
        [],
    ),
]
