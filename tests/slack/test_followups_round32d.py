"""Round 32d: "anything sensitive in rank5.log before I paste it?" and terse one-liners ("nccl?",
"sig?", "err code", "dmesg cmd?", "odd rank out?", "which rnak hung").

Why: a question about sensitive content that did not say "token" or "leak" went to the rank's last
lines; the secrets answer now names each masked line (source:line), the key it was set on and the
masking rule, never the value, says to rotate it, and says only the lines Denpex kept were checked,
with a command to scan the whole file the message names. Terse one-liners got the help text: a
short message that matched no intent is rewritten in full words (typos fixed, the bare noun made its
question) and asked again, kept only when that reaches a real answer.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "gpu_oom",
        "before I paste rank5.log into the incident doc — anything sensitive in there?",
        ["HF_TOKEN", "rank5.log:206", "hf_token", "rotate", "only checked"],
        ["hf_DemoPlanted"],
    ),
    (
        "gpu_oom",
        "ok to share rank5.log with the vendor or is there anything confidential?",
        ["HF_TOKEN", "rank5.log:206", "rotate"],
        ["hf_DemoPlanted"],
    ),
    (
        "gpu_oom",
        "is rank0.log safe to paste in the public channel?",
        ["rank0.log", "rank5.log:206", "only checked"],
        ["hf_DemoPlanted"],
    ),
    ("hang_before_collective", "nccl?", ["gloo"], []),
    ("hang_before_collective", "which rnak hung", ["rank 3"], []),
    ("desync", "nccl?", ["gloo"], []),
    ("segfault", "sig?", ["SIGSEGV|-11|signal 11"], []),
    ("rendezvous_port_in_use", "err code", ["-98|EADDRINUSE"], []),
    ("rendezvous_port_in_use", "errno?", ["-98|EADDRINUSE"], []),
    ("dataloader_worker_killed", "dmesg cmd?", ["dmesg", "pt_data_worker|killed process|oom-kill"], []),
    ("desync", "odd rank out?", ["rank 3", "broadcast"], []),
]
