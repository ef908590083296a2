"""Round 34e: a checkpoint save that ran the host out of RAM, asked about from the traceback and the
fix's API — "where in the torch stack, gather or file write?", "inside a collective?", "is
full_state_dict=True the culprit, would sharded fix it?", "it's the get_state_dict call right?",
"16777216 bytes seems tiny", "one-liner root cause", "drain localhost?".

Why: the answers named the user's frame and the entry's FSDP1 text, and left out what the job's own
evidence says: rank 1's saved frames below `get_state_dict` (`_to_replicate_tensor` →
`all_gather_single` → `all_gather_into_tensor`: the gather, no file write), that the call it was in
is the one that builds the copy (yes, change it), that saving sharded removes the copy, what the
allocator's errno 12 means (host RAM), and that the job calls torch.distributed.checkpoint's
`get_state_dict(options=StateDictOptions(full_state_dict=True))`, not FSDP1's `FullStateDictConfig`:
its fix is `StateDictOptions(full_state_dict=True, cpu_offload=True)` (only rank 0 keeps the copy,
torch/distributed/checkpoint/state_dict.py) or a sharded DCP save.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the allocator's line in plain words
    (
        "checkpoint_oom",
        "what does `DefaultCPUAllocator: can't allocate memory: you tried to allocate 16777216 bytes."
        " Error code 12` mean in plain words? 16777216 bytes seems tiny",
        ["host|ram|system memory|cpu memory", "16 MiB|16777216", "ENOMEM|cannot allocate memory"],
        [],
    ),
    (
        "checkpoint_oom",
        "alloc_cpu.cpp:127 error code 12 — translate that for me",
        ["host|ram", "ENOMEM|cannot allocate memory"],
        [],
    ),
    # the call the first rank was in is the one that builds the copy: yes, change it
    (
        "checkpoint_oom",
        "what do I change in save_checkpoint so this doesn't blow host RAM again — it's the get_state_dict"
        " call right?",
        ["full_state_dict", "cpu_offload|shard|dcp", "line 174"],
        ["no, not by this job's evidence"],
    ),
    (
        "checkpoint_oom",
        "so the edit goes on the get_state_dict line in save_checkpoint, correct? what do I change there",
        ["full_state_dict", "cpu_offload=True|sharded", "line 174"],
        ["no, not by this job's evidence"],
    ),
    # drain the node: no, and what it was doing
    (
        "checkpoint_oom",
        "do we need to drain localhost or can other jobs keep landing there?",
        ["checkpoint|save", "no need to drain"],
        [],
    ),
    (
        "checkpoint_oom",
        "should ops drain localhost after this?",
        ["saving a checkpoint", "software|configuration"],
        [],
    ),
    # a root cause in one line: the cause, not only who failed
    (
        "checkpoint_oom",
        "one-liner root cause for the report pls, plus the file:line of the alloc failure so I can cite it",
        ["full_state_dict|get_state_dict", "host RAM|host memory", "console.log:84"],
        [],
    ),
    (
        "checkpoint_oom",
        "root cause in one sentence for the postmortem?",
        ["get_state_dict|full_state_dict", "host RAM|host memory"],
        [],
    ),
    # the library frames below the user's call: the gather, a collective
    (
        "checkpoint_oom",
        "the traceback goes redistribute -> all_gather_single -> all_gather_into_tensor. so rank 1 was"
        " literally inside a collective when it ran out of host mem? which line of train.py started it",
        ["all_gather_into_tensor|all_gather_single", "line 174"],
        [],
    ),
    (
        "checkpoint_oom",
        "was rank 1 inside a collective when the allocation failed?",
        ["all_gather_single|all_gather_into_tensor", "_to_replicate_tensor|placement_types.py"],
        [],
    ),
    (
        "checkpoint_oom",
        "where in the torch stack was rank 1 when the alloc failed, gather or the actual file write?",
        ["all_gather", "gather", "not in a file write|no file write|not the file write|before"],
        [],
    ),
    (
        "checkpoint_oom",
        "did it die while writing checkpoint-6.pt to disk or before that?",
        ["all_gather|gather", "get_state_dict|line 174"],
        [],
    ),
    (
        "checkpoint_oom",
        "which torch frame was rank 1 in when the cpu alloc failed — inside the all-gather for the"
        " DTensor redistribute?",
        ["all_gather_single|all_gather_into_tensor|_to_replicate_tensor", "line 609|line 209"],
        [],
    ),
    (
        "checkpoint_oom",
        "where do rank 0's and rank 1's torch stacks differ?",
        ["all_gather_single", "wait_tensor"],
        [],
    ),
    (
        "checkpoint_oom",
        "innermost torch frames of rank 1 pls",
        ["all_gather_single", "_ops.py"],
        [],
    ),
    # the setting as the culprit, and the sharded save as the lever
    (
        "checkpoint_oom",
        "so is full_state_dict=True the culprit? would saving sharded fix it",
        ["shard|DCP|distributed checkpoint", "full_state_dict", "yes"],
        [],
    ),
    (
        "checkpoint_oom",
        "if we switch to a sharded DCP save, would it still OOM?",
        ["shard", "full_state_dict|full copy", "dcp.save|torch.distributed.checkpoint"],
        [],
    ),
    (
        "checkpoint_oom",
        "would rank-0-only saving with cpu_offload have avoided this?",
        ["cpu_offload=True", "rank 0"],
        [],
    ),
    # the fix and the cause in this job's API (torch.distributed.checkpoint), not only FSDP1's
    (
        "checkpoint_oom",
        "how do I fix it?",
        ["StateDictOptions(full_state_dict=True, cpu_offload=True)", "dcp.save|sharded"],
        [],
    ),
    (
        "checkpoint_oom",
        "give me a code snippet for the fix",
        ["get_state_dict(model, optim, options=opts)", "dcp.save("],
        [],
    ),
    (
        "checkpoint_oom",
        "why did it run out of memory?",
        ["get_state_dict", "full_state_dict=True"],
        ["the checkpoint uses `statedicttype.full_state_dict`"],
    ),
    # a job whose code does use FSDP1's API keeps the FSDP1 fix, without the DCP form
    (
        "fsdp_cpu_save",
        "how do I fix it?",
        ["rank0_only=True"],
        ["This job calls torch.distributed.checkpoint's"],
    ),
]
