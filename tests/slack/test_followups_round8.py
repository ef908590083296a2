"""Round 8: a pasted (or described) line asked "cause or symptom?" gets the rank that printed it and
its part in the failure; a pasted line's meaning names the signal it carries and how the job ended;
terse asks ("node?", "config key?") keep every part."""

from __future__ import annotations

_WATCHDOG_R3 = (
    "[2026-11-20 03:24:02,007] [E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=48213, OpType=_REDUCE_SCATTER_BASE, NumelIn=524288000, NumelOut=65536000, "
    "Timeout(ms)=600000) ran for 600031 milliseconds before timing out."
)
_GLOO_R2 = (
    "[default2]:[rank2]: RuntimeError: "
    "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] "
    "Connection closed by peer [127.0.0.1]:37611."
)

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # a collateral rank's pasted timeout: a symptom, and who failed first
    (
        "gpu_oom",
        f"{_WATCHDOG_R3}\nroot cause, or just fallout?",
        ["symptom", "rank 3", "rank 5", "out-of-memory"],
        ["the failure that started this job"],
    ),
    # a collateral rank's gloo error: which rank printed it, and that it is not the problem
    ("checkpoint_oom", f"{_GLOO_R2}\nwho printed that, is it the real problem?", ["rank 2", "symptom"], []),
    # the initiating rank's own failure: the cause
    ("gpu_oom", "that `torch.OutOfMemoryError` on r5, cause or side effect?", ["the cause", "rank 5"], []),
    # described, not pasted: the other ranks' timeouts are fallout
    (
        "flight_recorder",
        "ranks 0 1 3 all logged watchdog timeouts, separate issue or fallout?",
        ["symptom", "rank 2"],
        [],
    ),
    # a line naming a signal by number: the signal, and how the job ended
    (
        "time_limit",
        "`Received 15 death signal, shutting down workers` what's that about",
        ["sigterm", "scheduler"],
        [],
    ),
    # a meaning checked and the fix asked in one message: both answered
    (
        "dataloader_worker_killed",
        "what should i change for the next run? that 'killed by signal: Killed' means the oom killer right",
        ["sigkill", "num_workers"],
        [],
    ),
    # another failure offered as the same: no Xid in a CUDA OOM job
    ("gpu_oom", "is this just that xid 79 one from last week again?", ["no gpu fault", "out-of-memory"], []),
    # -11 against the OOM killer's -9: a native crash
    ("segfault", "the oom ones exited -9, why is this one different?", ["segmentation fault", "native"], []),
    # terse asks keep every part
    ("gpu_oom", "rank 5 ran out of memory? which node?", ["gpu-02"], []),
    ("zero3_save", "ds config setting?", ["stage3_gather_16bit_weights_on_model_save"], []),
]
