"""Round 24 (c2): terse on-call commands and judgement asks answered with the help reply.

Why: "list the ranks that timed out" is the ranks' tally (who started it, who waited), not examples;
"node + gpu for the bad rank" is the initiating rank's node and device, and when no line records either
the answer says so ("not in the logs"), never a guess from the rank number; "timeline pls" starts where
the job did (its first line), not at the last good step; "last step logged before the crash" is the last
step line any rank logged, with its loss, even when the failing rank itself logged no step, and it is an
ask of its own before ", and which rank initiated?"; "model team or infra ticket?" is who owns it, said
with this job's cause (a desync is the training script's, an Xid the cluster's, an unexplained timeout
undecided); "exact config line that caused it" is the job's own line that sets the cause (the
FullStateDictConfig call) with what it leaves out (rank0_only), not "no traceback of its own".
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # whose ticket, with this job's cause
    ("desync", "model team or infra ticket?", ["model team", "different collectives"], ["hardware fault"]),
    ("desync", "infra or ml team ticket for this one", ["model team", "broadcast"], []),
    ("xid", "which team gets the ticket?", ["infra", "Xid", "gpu-02"], ["model team: "]),
    ("fsdp_cpu_save", "who owns this, model team or platform?", ["model team", "rank0_only"], []),
    ("flight_recorder", "model team or infra ticket?", ["don't settle"], ["infra ticket:"]),
    # the ranks that timed out, listed
    ("flight_recorder", "list the ranks that timed out", ["0,1,3", "rank 2 first"], ["rank 2 timed out"]),
    ("hang_before_collective", "name the ranks that timed out", ["rank 3 first", "collateral"], []),
    # node and GPU of the failing rank, none recorded
    ("flight_recorder", "node + gpu for the bad rank", ["rank 2", "not in the logs", "don't say"], []),
    ("flight_recorder", "host/gpu of the failing rank?", ["rank 2", "not in the logs"], []),
    ("segfault", "node + gpu for the bad rank", ["rank 3", "local_rank 3"], []),
    # the timeline starts at the job's start
    ("hang_before_collective", "timeline pls", ["21:43:40", "21:43:47", "21:44:00"], []),
    ("segfault", "timeline", ["first line (start)", "21:39:04"], []),
    ("gpu_oom", "timeline pls", ["first line (start)"], []),
    # the last step any rank logged, with its loss
    ("segfault", "last step logged before the crash", ["step 1", "loss 1.0193"], []),
    ("dataloader_worker_killed", "last step logged before it died", ["step 1", "rank 0, loss"], []),
    (
        "dataloader_worker_killed",
        "last step logged before it died, and which rank initiated?",
        ["step 1", "rank 2"],
        ["rank 1 initiated", "rank 3 initiated"],
    ),
    ("hang_before_collective", "last step printed before the error", ["step 3"], []),
    # the job's own line that sets the cause
    (
        "fsdp_cpu_save",
        "exact config line that caused it",
        ["FullStateDictConfig(offload_to_cpu=True)", "rank0_only"],
        ["no line of your code is named"],
    ),
    (
        "fsdp_cpu_save",
        "which line caused it?",
        ["FullStateDictConfig(offload_to_cpu=True)", "rank0_only"],
        [],
    ),
    ("checkpoint_oom", "offending line?", ["train.py", "line 174"], []),
]
