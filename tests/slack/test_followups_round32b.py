"""Round 32b: a newcomer asks what a value of THIS job means, by its key — "what is SeqNum 48213?",
"what is SeqNum=5?", "what does exitcode -9 mean here?", "what is the OOM killer and who did it kill?".

Why: the glossary line alone ("SeqNum: the sequence number of a collective") left out the value the
asker quoted; `knowledge/answer_values.py` finds the job's lines that hold the value and says what
they say: which collective the number was, who reported it, the last one that completed and the
collective traces' reading; whose process exited with the code (local rank, pid) and the kernel's
kill of that pid on its node; the OOM killer's kill line when the message names the OOM killer.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("gpu_oom", "what is SeqNum 48213?", ["_REDUCE_SCATTER_BASE", "48212"], []),
    ("gpu_oom", "whats seqnum=48213 in the watchdog line", ["_REDUCE_SCATTER_BASE", "48212"], []),
    ("flight_recorder", "what is SeqNum=5?", ["ALLREDUCE|all_reduce", "rank 2"], []),
    ("flight_recorder", "what does SeqNum 5 mean here", ["ALLREDUCE|all_reduce", "rank 2"], []),
    ("host_oom_kill", "what does exitcode -9 mean here?", ["SIGKILL|signal 9", "51234", "gpu-01"], []),
    ("fsdp_cpu_save", "what does exitcode -9 mean here?", ["SIGKILL|signal 9", "3312"], []),
    ("host_oom_kill", "what is the OOM killer and who did it kill?", ["51234", "gpu-01"], []),
    ("fsdp_cpu_save", "what's the oom killer, which process did it kill", ["3312", "gpu-01"], []),
]
