"""Round 25b: "the logs don't show that" asks in new phrasings, and asks wrapped in "explain simply".

Why: "which process was sitting on the port?" is answered with the fact that no line names it, in
words that say the logs do not show it; "the log says 'No space left on device', right?" gets a plain
"it does not appear" before what the logs say instead; "what was the --time? forgot what i put" asks
the limit's value (not logged), not what to put in the fix; "is <setting> actually on in our config?
can u see it in the logs" asks the setting's value in this job (printed, implied by a kept line, or
not in the logs), not the glossary alone; "explain simply: was it host RAM like the FSDP one?" asks
for plain words, so the ask after the prefix is answered (GPU memory, not host RAM), not the glossary
entry of a term it only compares with.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the holder of a port is not in the logs, said in those words
    ("rendezvous_port_in_use", "does the log say which process was holding the port?", ["don't show"], []),
    ("rendezvous_port_in_use", "which process was sitting on the port?? 😤", ["don't show"], []),
    ("rendezvous_port_in_use", "who had the port? can you see the pid in the logs?", ["don't show"], []),
    # a message the reader puts as printed, that no kept line prints
    (
        "disk_full_save",
        "the log says 'No space left on device', right? I want to grep for ENOSPC",
        ["does not appear", "unexpected pos 1088 vs 982"],
        [],
    ),
    ("disk_full_save", "does anything actually say ENOSPC?", ["does not appear"], []),
    # the --time value, asked with "forgot what i put"
    (
        "time_limit",
        "what was the --time on this job? forgot what i put 🙏",
        ["not in the logs", "Timelimit"],
        [],
    ),
    ("time_limit", "what was --time set to? forgot what i put", ["not in the logs", "Timelimit"], []),
    ("time_limit", "what time limit did I set?", ["not in the logs"], []),  # guard
    # a setting's value in this job, asked "on in our config? can u see it"
    (
        "zero3_save",
        "is `stage3_gather_16bit_weights_on_model_save` actually on in our config? can u see it in the logs",
        ["_zero3_consolidated_16bit_state_dict"],
        [],
    ),
    (
        "zero3_save",
        "stage3_gather_16bit_weights_on_model_save — can you see it in the logs?",
        ["_zero3_consolidated_16bit_state_dict"],
        [],
    ),  # guard
    # "explain simply" wraps an ask: the ask is answered
    (
        "zero3_save",
        "explain simply: was it host RAM that ran out during the save like the FSDP one?",
        ["GPU memory", "not host RAM"],
        ["host RAM ran out"],
    ),
    (
        "gpu_oom",
        "in simple terms, was it host RAM like the FSDP one?",
        ["GPU memory", "not host RAM"],
        [],
    ),  # guard
    ("zero3_save", "was it host RAM that ran out?", ["GPU memory"], []),  # guard
]
