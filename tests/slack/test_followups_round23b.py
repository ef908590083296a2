"""Round 23b: wrong premises corrected with the job's facts, figures the logs do not hold, and how sure
an inferred starting rank is.

Why: "rank 0 on gpu-01 OOMed, confirm?" and "so rank 3 ran out of GPU memory, right?" put a rank and a
cause to be checked: when another rank (on another node) started it, or the failure had no memory error
at all (a desync), the answer says no first, with the rank, node and cause that did; "rank 0 got killed
because it's the one writing the checkpoint?" is also told that every rank built its own full copy.
"How much RAM did the node have?", "what does df say?", "which process is squatting on the port, my old
job?" and "did it save a checkpoint before it got killed?" ask for what no kept line holds: the answer
says the logs don't show it (or that no save is logged), and where to read it. "How sure are you?" about
a rank named by elimination (no error of its own, only the launcher's SIGTERM) says it is inferred, on
what basis, and the diagnosis's low confidence, never a bare "Yes".
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # a rank and a cause put to be checked
    (
        "fsdp_cpu_save",
        "rank 0 got killed because it's the one writing the checkpoint, yeah?",
        ["rank 2", "every rank"],
        ["rank 0 was killed", "rank 0 got killed"],
    ),
    (
        "fsdp_cpu_save",
        "rank 0 died since it's the one saving the model, right?",
        ["rank 2", "every rank"],
        ["rank 0 was killed"],
    ),
    ("gpu_oom", "rank 0 on gpu-01 OOMed i think, can you confirm?", ["rank 5", "gpu-02"], ["rank 0 ran out"]),
    ("gpu_oom", "rank 3 ran out of GPU memory, right?", ["No:", "rank 5", "gpu-02"], ["rank 3 ran out"]),
    (
        "checkpoint_oom",
        "rank 0 ran out of memory right?",
        ["No:", "rank 1"],
        ["rank 0 ran out of memory while"],
    ),
    (
        "desync",
        "so rank 3 ran out of GPU memory and fell behind, right?",
        ["did not run out of memory", "broadcast"],
        ["rank 3 ran out of GPU memory", "Yes:"],
    ),
    ("xid", "rank 5 went oom i think?", ["No:", "rank 5 did not run out of memory"], []),
    # figures no kept line holds: say so, and where to read them
    (
        "checkpoint_oom",
        "how much RAM did the node have and how much was the job using when it failed?",
        ["logs don't show"],
        [],
    ),
    ("host_oom_kill", "what was the total RAM on the box?", ["logs don't show", "free -g"], []),
    ("fsdp_cpu_save", "how much memory does the node have?", ["logs don't show", "free -g"], []),
    ("disk_full_save", "how full was the disk exactly? what does df say?", ["logs don't show", "df -h"], []),
    ("disk_full_save", "how much space was left on the volume?", ["logs don't show", "df -h"], []),
    (
        "rendezvous_port_in_use",
        "which process is squatting on the port? is it my old job?",
        ["logs don't name", "ss -ltnp"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "who was holding 54661, was it our previous run?",
        ["logs don't name", "54661"],
        [],
    ),
    (
        "time_limit",
        "did it save a checkpoint before it got killed so I can resume?",
        ["no checkpoint save is logged"],
        [],
    ),
    ("time_limit", "was a checkpoint saved before the kill?", ["no checkpoint save is logged"], []),
    (
        "host_oom_kill",
        "did the job write a checkpoint before it died?",
        ["no checkpoint save is logged"],
        [],
    ),
    # how sure, of a rank named without an error of its own
    (
        "hang_before_collective",
        "you say rank 3 but none of the evidence lines are from rank 3. how sure are you and why?",
        ["by elimination", "0.36", "low"],
        [],
    ),
    (
        "hang_before_collective",
        "how confident are you that rank 3 is the culprit?",
        ["inferred", "0.36"],
        ["Yes: rank 3"],
    ),
    ("flight_recorder", "how sure are you about rank 2?", ["inferred", "0.45"], []),
    ("gpu_oom", "how sure are you it was rank 5?", ["0.88"], []),  # guard
]
