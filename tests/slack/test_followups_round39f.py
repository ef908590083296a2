"""Round 39f: storage/collectives engineers' exact-line asks — "last normal training step before the
index build, with its time", "which step failed and which was the last one that completed", "train.py
line with the FSDP.state_dict_type call", "line number of the dist.all_reduce call".

Why: the last-step ask was only read with the words "last (train|good|completed) step", so "last
normal training step" and "the last one that completed" fell to the phase or memory answer, which
names the failing step and the phase's last line but not the last completed step and its time. A
message naming a call by its dotted name was read as a term (FSDP) and got its definition, or got the
verdict's alternatives, without the script line that holds the call: the ranks' saved tracebacks hold
it as a `File "…train.py", line N, in fn` frame followed by the source line with the call.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("gpu_oom", "what step blew up and what was the last one that completed?", ["2001", "2000"], []),
    ("gpu_oom", "failing step vs the last step that finished, numbers pls", ["2001", "2000"], []),
    ("gpu_oom", "last normal training step before the oom + its time", ["2000", "03:13:52"], []),
    ("gpu_oom", "last healthy step before it died, with timestamp", ["2000", "03:13:52"], []),
    (
        "host_oom_kill",
        "last normal train step before the index build began, ts pls",
        ["2000", "03:13:52"],
        [],
    ),
    (
        "host_oom_kill",
        "what was the last clean training step and when was it logged",
        ["2000", "03:13:52"],
        [],
    ),
    ("host_oom_kill", "last one that completed before rank 2 got killed?", ["2000"], []),
    ("host_oom_kill", "rank 2 last normal step and its timestamp", ["2000", "03:13:52"], []),
    ("fsdp_cpu_save", "train.py line no for the FSDP.state_dict_type call?", ["301"], []),
    ("fsdp_cpu_save", "line in train.py where FSDP.state_dict_type is called", ["301"], []),
    ("fsdp_cpu_save", "which line has the FSDP.state_dict_type(...) context manager", ["301"], []),
    ("fsdp_cpu_save", "FSDP.state_dict_type call - what line of the script", ["301"], []),
    ("desync", "line number of the dist.all_reduce call in train.py?", ["144"], []),
    ("desync", "what line is dist.broadcast on in train.py", ["142"], []),
    ("desync", "train.py lines: dist.broadcast vs dist.all_reduce", ["142", "144"], []),
    ("hang_before_collective", "line number of the dist.all_reduce the others sat in", ["all_reduce"], []),
    ("checkpoint_oom", "last normal training step before the save + ts", ["step"], []),
    ("fsdp_cpu_save", "what line of train.py calls FSDP.state_dict_type", ["301"], []),
    ("gpu_oom", "last completed step and which one failed", ["2001", "2000"], []),
    ("host_oom_kill", "last normal training step before the oom kill, with ts", ["2000", "03:13:52"], []),
]
