"""Round 14b: judgement asks that name their subject loosely, or weigh a lever against the real fix.

Why: blind batches 35 and 36 asked these classes and got the help text, a figure, or the wrong part:
- what the failure cost, asked yes or no ("did we lose anything?", "i lose everything??"): the last
  step reached against the last save (or that no worker ran), as "how much did we lose" is answered;
- the taken port asked with a pronoun ("who's squatting on it?"), and a fixed port proposed for the
  next run ("--master_port 29400 next time, ok?"): its holder's command; fine only if that port is free;
- what to put in the job spec so jobs don't collide, "what i change in X", "which value instead",
  "how we still get one model file": the fix, not a rank or phase answer;
- raising the memory limit weighed against the real fix ("bump --mem or is that a band-aid?");
- whether NCCL, or its settings, matter for a job whose collectives ran on gloo: no, and what it is;
- a network guess on a single-node job, or over the others' timeouts: every rank on one node, and the
  timeout the others waited for the failed rank;
- reproducing the failing batch on one box: the failing rank's shard (a distributed sampler gives each
  rank its own slice), up to the last step logged, with the steps that name the batch;
- the advice's premise doubted ("the advice assumes the loss climbed"): held to the job's losses.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("disk_full_save", "did we lose any work on this one?", ["step 4"], []),
    ("gpu_oom", "did we lose much here?", ["2001"], []),
    ("time_limit", "did i lose all of it?", ["150"], []),
    ("rendezvous_port_in_use", "who's squatting on it? need to kill it", ["ss -ltnp", "54661"], []),
    (
        "rendezvous_port_in_use",
        "if I hardcode --master_port 29400 on the next run, will that be ok?",
        ["29400", "--standalone"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "what goes in the pod spec so the two jobs dont clash?",
        ["rdzv-endpoint"],
        [],
    ),
    (
        "zero3_save",
        "what we need to edit in the ds config?",
        ["stage3_gather_16bit_weights_on_model_save"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "if we go sharded, how we still get one consolidated model file at the end?",
        ["merge-weights"],
        [],
    ),
    ("checkpoint_oom", "should we just bump --mem, or is that a band-aid?", ["rank 0 only"], []),
    (
        "checkpoint_oom",
        "raise the container memory limit, or is that just papering over it?",
        ["lasting fix"],
        [],
    ),
    ("checkpoint_oom", "would NCCL_DEBUG=INFO even matter for this run?", ["gloo", "do nothing"], []),
    ("desync", "is nccl even involved, and what is this really?", ["gloo", "desync"], []),
    ("segfault", "is this the network again? we had IB trouble last month", ["one node"], []),
    ("dataloader_worker_killed", "could it be a flaky network between the gpus?", ["one node"], []),
    ("xid", "0-4 and 6,7 show nccl timeouts, so is it also a network problem?", ["600 s"], []),
    (
        "gpu_oom",
        "how do I track down the batch that blew it up, on a single gpu?",
        ["num_replicas=8", "rank=5"],
        [],
    ),
    (
        "nan_loss",
        "the advice assumes the loss was climbing. is that even in the log?",
        ["1.0358", "not for this run"],
        [],
    ),
]
