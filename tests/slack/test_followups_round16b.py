"""Round 16b: false premises put as questions, and a manager's yes/no (blind batches 39 and 40).

Why: on call, people put the story they already believe: "rank 2 blew up first and took rank 1 down",
"rank 0 got oom killed yeah?", "the switch died, loop in netops?", "restart from the last ckpt",
"memory was creeping up until it blew", "we're halving the micro batch, fine?", "does doubling the GPUs
fix it?". An answer that goes on about what they named leaves the premise standing. Each class here
leads with no (or yes) and the fact of the job that decides it:
- a rank claimed to have started it (took another down, got killed, its disk is the bad one), with
  several ranks named: the rank that did, and where the named collateral rank waited (its collective);
- "what else could it be / what tells them apart / how sure": the check that decides it (the entry's
  command on the failing node; for a silent rank, that it printed nothing and what gets its stack);
- a network or fabric guess at a port clash: the command that shows what holds the port;
- resuming from a checkpoint the logs never show saved: that none is logged, first; "same step
  again?": the step it failed at;
- a planned change put for approval ("halving the batch, fine?"): judged as the what-if it is;
- more GPUs for a training-step GPU OOM: the failing step's own batch, which sets the peak per GPU;
- a leak put as the cause: the rank's memory over the kept steps (flat), against the others, and the
  failing step's batch;
- "check the fix without burning another N steps": the short run that reaches the failing path;
- "an NCCL problem on top of it?" on a gloo job: not NCCL; "did 2 really hang": its launcher exit.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "nan_loss",
        "ranks 0 and 2 have gloo errors, so rank 2 blew up first and took rank 1 down with it?",
        ["no: rank 1 started it", "rank 2 was collateral"],
        ["yes: rank 2"],
    ),
    ("host_oom_kill", "so rank 0 got oom killed, yeah?", ["no: rank 2 started it", "51234"], ["yes: rank 0"]),
    (
        "desync",
        "rank 1 was first to time out so rank 1 is the one that hung?",
        ["no: rank 3", "waiting on rank 3 in `all_reduce` (train.py line 144)"],
        [],
    ),
    (
        "checkpoint_oom",
        "besides host RAM what else could it be, and which command tells them apart?",
        ["what tells them apart", "free -g|MaxRSS"],
        [],
    ),
    (
        "flight_recorder",
        "confidence looks low. what else could it be besides rank 2, and what would rule it out?",
        ["no error and no traceback", "py-spy dump"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "so the switch died? should netops look at it?",
        ["no, not a firewall", "ss -ltnp"],
        ["yes, the switch"],
    ),
    (
        "dataloader_worker_killed",
        "relaunch from the latest checkpoint? which one",
        ["no checkpoint save is logged", "step 1 of 10"],
        [],
    ),
    (
        "desync",
        "requeue as is? wont it hit the same point again",
        ["not as is", "last step any rank logged was step 2"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "we're going to cut the micro batch in half, that fine?",
        ["no: rank 2 ran out of host", "while saving a checkpoint", "rank0_only"],
        ["yes"],
    ),
    (
        "gpu_oom",
        "would doubling the GPU count fix it? yes/no",
        ["only if the model state is sharded", "4 x 16384"],
        [],
    ),
    (
        "gpu_oom",
        "memory was creeping up on rank 5 until it blew, right?",
        ["no sign of a leak", "69.4 gib", "4 x 16384"],
        ["yes, it was leaking"],
    ),
    (
        "fsdp_cpu_save",
        "how can we test the fix quickly without waiting 50 steps?",
        ["run 2-3 steps with a save every step", "rank0_only"],
        [],
    ),
    (
        "disk_full_save",
        "ranks 1-3 show connection errors. is there also an nccl problem? and did 2 really hang",
        ["ran on gloo", "rank 2: exitcode -15 (sigterm)"],
        [],
    ),
]
