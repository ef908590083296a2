"""Round 20a: figures a question asks for (or its premise needs) that the answer left out.

Why: each class below is answered from this job's own lines, but the answer of the ask's kind did not
carry the figure. "did torchrun SIGTERM anyone, or did they exit by themselves? codes and when?" is the
launcher's failure summary, its `time :` fields too; "which collective were they stuck in, and how big
was it?" is the watchdog's NumelIn ("it" is the collective the message names); a message whose premise
is the other ranks' watchdog timeouts or the time they died ("ranks 1-7 timed out at 03:18:20. fabric?",
"died ten minutes after the kill. node sick?", "why so late?") gets their watchdog line: OpType, SeqNum,
Timeout(ms), after whose failure; "GPU bad or just full? numbers pls" gets the memory error's figures
beside the hardware verdict; "which volume do I tell infra to clean up?" is the path it was writing;
"how much compute did this cost us?" says how far the run got (its last "step N/M" line); the kernel
OOM killer's kill is a SIGKILL (signal 9); "did checkpoint-6 get written?" is the save the failure cut
short, with the step reached; "how much did we lose?" says when the first rank failed after that step.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the launcher's summary: who got SIGTERM, codes, and the summary's own times
    (
        "desync",
        "Did torchrun SIGTERM anyone this time, or did all 4 workers exit by themselves? "
        "What codes and when?",
        ["exitcode 1", "21:36:22"],
        ["exitcode -15", "exitcode: -15"],
    ),
    (
        "dataloader_worker_killed",
        "did the launcher kill the other ranks or did they die by themselves? exit codes and times?",
        ["exitcode -15", "2026-12-01_21:37:16", "2026-12-01_21:37:15"],
        [],
    ),
    # "how big was it": the collective the message names, its NumelIn
    (
        "flight_recorder",
        "Which collective exactly were ranks 0,1,3 stuck in, and how big was it?",
        ["all_reduce", "1048576", "#5"],
        [],
    ),
    (
        "host_oom_kill",
        "which collective did ranks 0,1,3 hang in and how large was it",
        ["allgather", "numelin=1048576"],
        [],
    ),
    # the other ranks' timeouts or death time as the premise: their watchdog line
    (
        "host_oom_kill",
        "Ranks 0, 1, 3 died at 03:24:06, ten minutes after the kill. Was gpu-01 itself sick?",
        ["timeout(ms)=600000", "allgather (seqnum 9120)"],
        [],
    ),
    (
        "xid",
        "Everyone else died at 03:24:03, ten minutes after rank 5. "
        "Why so late, and how much progress did I lose?",
        ["timeout(ms)=600000", "2000"],
        [],
    ),
    (
        "zero3_save",
        "Ranks 1-7 all logged NCCL watchdog timeouts at 03:18:20. Fabric problem between the nodes?",
        ["rank 0", "600 s (10 min)", "allreduce (seqnum 4512)"],
        [],
    ),
    (
        "zero3_save",
        "ranks 1 to 7 all have NCCL watchdog timeouts, so did the network die during the save?",
        ["rank 0", "03:18:20"],
        ["network failure caused", "yes, the network"],
    ),
    (
        "gpu_oom",
        "the other ranks all hit nccl timeouts, is the network bad?",
        ["_reduce_scatter_base (seqnum 48213)", "03:24:02"],
        ["yes, the network"],
    ),
    # "bad or just full? numbers": the memory error's figures beside the hardware verdict
    (
        "zero3_save",
        "GPU 0 bad or just full? numbers pls",
        ["2.00 GiB", "1.02 GiB", "79.15 GiB"],
        [],
    ),
    (
        "checkpoint_oom",
        "bad node or just full? numbers",
        ["16 mib", "not a hardware problem"],
        [],
    ),
    # "which volume": the path it was writing
    (
        "disk_full_save",
        "which volume do I tell infra to clean up?",
        ["/tmp/realjob-disk_full_save-cmzq89u_"],
        [],
    ),
    (
        "checkpoint_oom",
        "what filesystem should infra look at?",
        ["/tmp/realjob-cpu_oom_checkpoint_gather-hg2uj_w5"],
        [],
    ),
    # GPU time with how far the run got
    (
        "gpu_oom",
        "how much compute did this cost us?",
        ["03:24:02", "step 2000/6000"],
        [],
    ),
    (
        "xid",
        "gpu hours burned on this one?",
        ["gpu-hours", "step 2000/6000"],
        [],
    ),
    # the kernel OOM killer's signal
    (
        "host_oom_kill",
        "the logs show mem_alloc=61GiB everywhere, so this was the GPU running out of memory?",
        ["sigkill", "oom killer"],
        ["cuda out of memory on rank 2", "yes, the gpu"],
    ),
    (
        "host_oom_kill",
        "was it system memory or vram that ran out?",
        ["signal 9", "host (system) ram"],
        [],
    ),
    # "did checkpoint-N get written?": the save cut short, the step reached
    (
        "checkpoint_oom",
        "did checkpoint-6 get written? can we resume from it or not",
        ["checkpoint-6", "step 6 of 10"],
        ["yes, checkpoint-6", "checkpoint-6 was written successfully", "you can resume from checkpoint-6"],
    ),
    (
        "checkpoint_oom",
        "was checkpoint-6.pt saved or not, and could we resume from it?",
        ["checkpoint-6.pt", "step 6 of 10", "may be missing or partial"],
        ["checkpoint-6.pt was written successfully"],
    ),
    (  # guard: the saving rank logged its own step, so the phase answer already says it
        "disk_full_save",
        "did the checkpoint get saved? can I pick up from it?",
        ["checkpoint-4.pt", "step 4 of 10", "may be missing or partial"],
        ["checkpoint-4.pt was written successfully"],
    ),
    # "how much did we lose": the step reached, then when the first rank failed after it
    (
        "zero3_save",
        "how much did we lose, and is there a checkpoint to resume from?",
        ["step 100", "03:08:20"],
        ["yes, the checkpoint at step 100", "the step 100 checkpoint was saved successfully"],
    ),
    (
        "gpu_oom",
        "how much progress did we lose?",
        ["step 2001 of 6000", "rank 5 failed at 2026-11-20 03:14:02 utc"],
        [],
    ),
]
