# ruff: noqa: E501
"""Round 40a: asks whose honest answer is "the logs don't say": the learning rate, fp16/bf16, who holds a
port (a pid, a stale TIME_WAIT socket), the total steps configured, which node each rank was on, who
changed the code, the last checkpoint saved, the model and its size, kernel I/O errors or a node's dmesg
that was never collected.

Why: each matched another intent (the port's command, the memory figures, the rank count, `--time`'s
meaning, the phase, the alternatives) or none (the help text), and never said the fact is missing. Now
`knowledge/answer_unheld.py` names each kind of fact, the line that would print it and the nearest fact
the logs do hold: when no kept, set-up, settings or version line prints it, the reply says "… is not in
the logs" first, then that nearest fact (the last step line, the first failure, the EADDRINUSE line, the
step pace, the ranks a line places, the job's own failing frame, the last save or none); a kind a line
does print is quoted instead of the help text. The kernel-log ask also covers "errors in dmesg" and a
named node whose log was not collected ("kernel log from gpu-01?": only gpu-02's was).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "nan_loss",
        "lr? fp16 or bf16?",
        [
            "not in the logs|not in the log|doesn't say|does not say|no line|not logged|unknown|isn't logged|not shown|not recorded|doesn't show|does not show|no record|not available|not captured|not printed|don't say|do not say|don't show|do not show|no indication|not included|isn't in the logs|aren't in the logs|not present|cannot tell|can't tell|no information|no info|not visible|nothing in the logs|logs don't|logs do not|not reported|no evidence"
        ],
        ["bf16 was enabled", "fp16 was enabled", "ran in fp16", "ran in bf16"],
    ),
    (
        "nan_loss",
        "what learning rate and what precision (fp16/bf16) did this run use?",
        ["not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint"],
        ["bf16 was enabled", "fp16 was enabled", "ran in fp16", "ran in bf16"],
    ),
    (
        "rendezvous_port_in_use",
        "whos holding the port",
        [
            "not in the logs|not in the log|doesn't say|does not say|no line|not logged|unknown|isn't logged|not shown|not recorded|doesn't show|does not show|no record|not available|not captured|not printed|don't say|do not say|don't show|do not show|no indication|not included|isn't in the logs|aren't in the logs|not present|cannot tell|can't tell|no information|no info|not visible|nothing in the logs|logs don't|logs do not|not reported|no evidence",
            "ss -|lsof|netstat|fuser",
        ],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "who has port 54661 bound?",
        ["not in the logs|don't name|don't show|no pid", "54661"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "Do the logs establish which node each of the 8 ranks was on, i.e. how many ranks actually shared gpu-01's host RAM?",
        [
            "not in the logs|not in the log|doesn't say|does not say|no line|not logged|unknown|isn't logged|not shown|not recorded|doesn't show|does not show|no record|not available|not captured|not printed|don't say|do not say|don't show|do not show|no indication|not included|isn't in the logs|aren't in the logs|not present|cannot tell|can't tell|no information|no info|not visible|nothing in the logs|logs don't|logs do not|not reported|no evidence|no mapping|don't map|do not map|no hostnames|no host"
        ],
        [],
    ),
    (
        "fsdp_cpu_save",
        "which host was each rank on? how many ranks were on gpu-01?",
        ["not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint|no host"],
        [],
    ),
    (
        "nan_loss",
        "How should I instrument the next run to find the op or batch that produces the first NaN, and is there any sign in the logs that gradient clipping is active?",
        [
            "set_detect_anomaly|detect_anomaly",
            "not in the logs|not in the log|doesn't say|does not say|no line|not logged|unknown|isn't logged|not shown|not recorded|doesn't show|does not show|no record|not available|not captured|not printed|don't say|do not say|don't show|do not show|no indication|not included|isn't in the logs|aren't in the logs|not present|cannot tell|can't tell|no information|no info|not visible|nothing in the logs|logs don't|logs do not|not reported|no evidence|no sign|no grad_norm|not visible|no clipping",
        ],
        [],
    ),
    (
        "nan_loss",
        "any sign clipping was enabled? and how do I find the op that first makes nan?",
        [
            "set_detect_anomaly|detect_anomaly",
            "not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint",
        ],
        [],
    ),
    (
        "time_limit",
        "What was the total number of training steps the run was configured for? I need it to size --time for the resubmission.",
        [
            "not in the logs|not in the log|doesn't say|does not say|no line|not logged|unknown|isn't logged|not shown|not recorded|doesn't show|does not show|no record|not available|not captured|not printed|don't say|do not say|don't show|do not show|no indication|not included|isn't in the logs|aren't in the logs|not present|cannot tell|can't tell|no information|no info|not visible|nothing in the logs|logs don't|logs do not|not reported|no evidence"
        ],
        ["6000"],
    ),
    (
        "time_limit",
        "how many steps was the run configured for in total? sizing the next --time",
        ["not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint", "150"],
        ["6000"],
    ),
    (
        "xid",
        "Which NVIDIA driver version was loaded, and do we have a kernel log from gpu-01 to check for Xids there too?",
        [
            "550.90.07",
            "no dmesg|no kernel log|only gpu-02|not collected|not in the logs|not in the log|doesn't say|does not say|no line|not logged|unknown|isn't logged|not shown|not recorded|doesn't show|does not show|no record|not available|not captured|not printed|don't say|do not say|don't show|do not show|no indication|not included|isn't in the logs|aren't in the logs|not present|cannot tell|can't tell|no information|no info|not visible|nothing in the logs|logs don't|logs do not|not reported|no evidence|only have|only the gpu-02|only a dmesg|only one dmesg|only for gpu-02|just gpu-02",
        ],
        [],
    ),
    (
        "xid",
        "nvidia driver version? is there a kernel log from gpu-01 as well?",
        ["550.90.07", "no kernel log|not collected|only gpu-02"],
        [],
    ),
    (
        "checkpoint_oom",
        "Was this caused by someone's recent change to the save code? who touched it and when?",
        [
            "not in the logs|doesn't say|does not say|no line|not logged|unknown|not shown|don't show|do not show|doesn't show|does not show|no record|not recorded|can't tell|cannot tell|no information|not available|no indication|isn't in the logs|is not in the logs|not in any log|no evidence",
            "full_state_dict|StateDictOptions|get_state_dict|line 174",
        ],
        [],
    ),
    (
        "checkpoint_oom",
        "who touched the save code recently? git blame?",
        [
            "not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint",
            "full_state_dict|StateDictOptions|get_state_dict|line 174",
        ],
        [],
    ),
    (
        "gpu_oom",
        "How much progress got thrown away - when was the last checkpoint saved?",
        [
            "2000|2001",
            "not in the logs|doesn't say|does not say|no line|not logged|unknown|not shown|don't show|do not show|doesn't show|does not show|no record|not recorded|can't tell|cannot tell|no information|not available|no indication|isn't in the logs|is not in the logs|not in any log|no evidence|no checkpoint|no save",
        ],
        [],
    ),
    (
        "gpu_oom",
        "what's the latest checkpoint we have? how much work is lost?",
        [
            "2000|2001",
            "not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint|no checkpoint save",
        ],
        [],
    ),
    (
        "nan_loss",
        "Whose fault is this - bad data batch or somebody's learning-rate change? plain words.",
        [
            "rank 1",
            "not in the logs|doesn't say|does not say|no line|not logged|unknown|not shown|don't show|do not show|doesn't show|does not show|no record|not recorded|can't tell|cannot tell|no information|not available|no indication|isn't in the logs|is not in the logs|not in any log|no evidence",
        ],
        [],
    ),
    (
        "nan_loss",
        "was it someone's lr change or a bad batch?",
        ["rank 1", "not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint"],
        [],
    ),
    (
        "nan_loss",
        "The learning rate, cuánto era?",
        [
            "not in the logs|doesn't say|does not say|no line|not logged|unknown|not shown|don't show|do not show|doesn't show|does not show|no record|not recorded|can't tell|cannot tell|no information|not available|no indication|isn't in the logs|is not in the logs|not in any log|no evidence"
        ],
        [],
    ),
    (
        "nan_loss",
        "lr cuánto?",
        ["not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint"],
        [],
    ),
    (
        "zero3_save",
        "Which model is this and how many parameters? I don't find it.",
        [
            "not in the logs|doesn't say|does not say|no line|not logged|unknown|not shown|don't show|do not show|doesn't show|does not show|no record|not recorded|can't tell|cannot tell|no information|not available|no indication|isn't in the logs|is not in the logs|not in any log|no evidence"
        ],
        [],
    ),
    (
        "zero3_save",
        "what model was it, how many params?",
        ["not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint"],
        [],
    ),
    (
        "disk_full_save",
        "any kernel EXT4/XFS/NFS I/O errors in dmesg around 21:36:52?",
        [
            "no kernel log|no dmesg|not in the logs|not provided|not included|wasn't provided|missing|doesn't say|does not say|no kernel"
        ],
        [],
    ),
    (
        "disk_full_save",
        "anything from the kernel log about NFS or I/O errors around the save?",
        ["no kernel log|no dmesg|not in the logs"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "which pid / process is holding that port?",
        [
            "not in the logs|doesn't say|does not say|no line|not logged|unknown|not shown|isn't logged|not recorded|no record|don't show|doesn't show|does not show|not mentioned|no mention|doesn't identify|does not identify|no pid"
        ],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "which process had the port? give me the pid",
        ["not in the logs|don't name|don't show|no pid"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "what proves another process holds 54661? could be a stale socket in TIME_WAIT",
        [
            "not in the logs|doesn't say|does not say|no line|not logged|unknown|not shown|isn't logged|not recorded|no record|don't show|doesn't show|does not show|not mentioned|no mention|doesn't identify|does not identify|no pid|can't tell|cannot tell"
        ],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "could it be a stale socket in TIME_WAIT rather than a live process?",
        [
            "not in the logs|doesn't say|does not say|no line|not logged|not shown|no checkpoint|can't tell|cannot tell"
        ],
        [],
    ),
]
