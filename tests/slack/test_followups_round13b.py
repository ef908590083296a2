"""Round 13b: the judgement a thread asks for before the next run (an on-call engineer deciding).

Why, by class:
- A drain, hardware or restart answer says what to change in THIS job before the rerun (the entry's
  step that removes the cause, next to the job's line it acts on: the code line that builds a copy per
  rank, the failing step's batch, the data line) or, when the logs hold no stack of the cause (a
  native crash, a rank that stalled), what to set up so the rerun shows it.
- A message that asks "drain or rerun?" or "what's going on" next to another ask or a pasted line gets
  that decision too, not only the answer its first words pick.
- A what-if naming two levers answers each; a lever that may already be on is checked first.
- "With a longer timeout it goes through, right?" for a desync: no, every rank must make the same call.
- "The diagnosis says X: does that fit this run?" is held against the job's facts (a NaN with no
  rising loss does not fit "resume from before the rise": find the batch instead).
- "Anything left to kill before I relaunch?" when no worker ever started: nothing of the job's, and
  the command that shows what holds the port.
- "What changes do we make to the job script …" is a fix question (the scheduler's warning signal).
- A quick repro is a short relaunch with the debug switch that names the cause.
- "Which line of our code?" for a rank killed without a traceback: the line another rank's traceback
  names, when every rank runs the same code there.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "checkpoint_oom",
        "faulty ram on that box? should we pull it from the pool?",
        # the FSDP entry (since the tenth session) changes the save, not the memory request
        ["before the rerun", "--mem|save sharded|cpu_offload=True"],
        [],
    ),
    ("flight_recorder", "bad hardware on that node, or just kick it off again?", ["py-spy"], []),
    (
        "disk_full_save",
        "is the disk hardware failing? drain the box?",
        ["before the rerun", "free space"],
        [],
    ),
    ("nan_loss", "ok to requeue it unchanged?", ["before the rerun", "clip gradients"], []),
    (
        "zero3_save",
        "what did rank 0 run out of, and can i just rerun it?",
        ["not as is", "stage3_gather_16bit_weights_on_model_save"],
        [],
    ),
    (
        "checkpoint_oom",
        "rank1 `DefaultCPUAllocator: can't allocate memory` while saving, what's going on",
        ["collateral"],
        [],
    ),
    (
        "checkpoint_oom",
        "`can't allocate memory` on rank 1: bad dimm, or just resubmit?",
        ["before the rerun"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "would a bigger /dev/shm or fewer workers have saved it?",
        ["/dev/shm", "num_workers"],
        [],
    ),
    ("gpu_oom", "does switching to bf16 avoid this?", ["already"], []),
    ("desync", "so with a 2 hour timeout it'd go through fine?", ["would not help", "every rank"], []),
    ("fsdp_cpu_save", "does that advice actually fit our run?", ["fitted to this run", "rank0_only"], []),
    (
        "nan_loss",
        "you suggest going back to before the loss went up with a lower lr. does that apply to this job?",
        ["did not", "sample indices"],
        ["resume from a checkpoint saved before the loss started to rise"],
    ),
    (
        "rendezvous_port_in_use",
        "any stray processes from this job i should clean up before relaunching?",
        ["left to kill", "ss -ltnp"],
        [],
    ),
    (
        "time_limit",
        "what changes should we make to the job script so the next limit doesn't cost us progress?",
        ["--signal"],
        [],
    ),
    (
        "desync",
        "fastest way to reproduce this on one box with the mismatch named?",
        ["TORCH_DISTRIBUTED_DEBUG"],
        [],
    ),
    ("fsdp_cpu_save", "where in our code does rank 2's host memory go?", ["line 301"], []),
]
