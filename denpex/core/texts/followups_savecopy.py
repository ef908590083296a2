"""Texts of the answers about a save that builds a full copy of the state dict on every rank: the
library frames below the user's call, the call that builds the copy, the sharded save as the lever,
the copy as the root cause, and the fix in torch.distributed.checkpoint's own API
(`knowledge.answer_libframes`, `knowledge.answer_save_copy`, `knowledge.answer_dcp_api`).

Plain sentences (the Slack renderer escapes them); the knowledge layer fills in this job's facts.
"""

from __future__ import annotations

# ---------------------------------------------------------------- the library frames below the user's call
LIB_FRAMES = (
    "Below {call}, rank {rank}'s saved frames ({ref}, innermost last): {walk};"
    " the error follows them ({err})."
)
LIB_FRAMES_NO_CALL = (
    "Rank {rank}'s saved library frames ({ref}, innermost last): {walk}; the error follows them ({err})."
)
BELOW_CALL = "`{func}` ({file} line {line})"
COLLECTIVE = (
    "{so} rank {rank} was inside a collective: `{op}`, an all-gather that collects every rank's shard into"
    " one full tensor on each rank — {inside}."
)
COLLECTIVE_OTHER = "{so} rank {rank} was inside a collective: `{op}` — {inside}."
INSIDE_ALLOC = "the failed allocation was made inside it"
INSIDE_ERROR = "its error was raised inside it"
SO_YES = "So yes,"
SO = "So"
GATHER_NOT_WRITE = (
    "That is the gather that builds the full state dict, not a file write: no `torch.save` or writer frame"
    " is in its traceback, so rank {rank} failed before writing anything."
)

# ---------------------------------------------------------------- the call that builds the copy
CALL_BUILDS = (
    "Yes: rank {rank} failed inside `{call}` ({where}), and that call is what built the copy that filled"
    " {memory}: `{code}`{opt} — {copies}. Rank {rank}'s {ended} inside that call ({ref})."
)
CALL_OPTION = ", where `{option}` gathers a full, unsharded copy of the state dict on every rank"
CALL_CHANGE = "What to change there: {step}"

# ---------------------------------------------------------------- the sharded save, as the lever
SHARDED_YES = (
    "{verdict}: {culprit} is what made every rank build a full, unsharded copy of the state dict in"
    " {memory} ({copies}); rank {rank}'s {ended} while building it ({ref}). {lever} {how}"
)
#: the verdict, by what was asked: "would it fix it?" (yes), "would it still OOM?" (no)
VERDICT_FIXES = "Yes"
VERDICT_STILL = "No, not from this copy"
LEVER_SHARDED = (
    "Saving sharded removes that copy: each rank writes only its own shard, so no rank ever holds the"
    " whole model."
)
LEVER_RANK0 = (
    "Gathering on rank 0 only leaves one copy, on rank 0, instead of one per rank (enough as long as one"
    " full copy fits in {memory})."
)
SHARDED_CULPRIT_OPTION = "`{option}` in `{code}` ({at})"
SHARDED_CULPRIT_CALL = "the full-state-dict gather at `{code}` ({at})"
SHARDED_RANK0 = (
    "Short of sharding, `{option}` keeps the gathered copy on rank 0 only (the other ranks get an"
    " empty state dict), so save on rank 0 only."
)
# the copy as the root cause, in one clause ("one-liner root cause for the report")
ROOT_COPY = (
    "Root cause: each of the {n} ranks on {node} built its own full copy of the state dict in {memory}"
    " at `{code}` ({at}); {failed} is {ref}{where}."
)

#: how the rank's failure ended, as the blame and the lever say it, and as the root cause cites its line
ENDED_ALLOC = ("allocation failed", "the allocation that failed")
ENDED_KILL = ("process was killed by the OOM killer", "the OOM kill")
ENDED_OTHER = ("save failed", "the failure")

# ---------------------------------------------------------------- torch.distributed.checkpoint's own API
DCP_CAUSE = (
    "The checkpoint calls torch.distributed.checkpoint's `{func}` with"
    " `StateDictOptions(full_state_dict=True)` and without `cpu_offload=True`, so every rank gathers its"
    " own full, unsharded copy of the {what}."
)
DCP_FIX_RANK0 = (
    "This job calls torch.distributed.checkpoint's `{func}` ({at}), not FSDP's `FullStateDictConfig`;"
    " there the same fix is `StateDictOptions(full_state_dict=True, cpu_offload=True)`: the gathered copy"
    " then stays on rank 0 only (the other ranks get an empty state dict), so save on rank 0 only."
)
DCP_FIX_SHARDED = (
    "Or drop `full_state_dict=True` and save sharded with `torch.distributed.checkpoint.save` (`dcp.save`),"
    " each rank writing only its own shard; make one file offline with `dcp_to_torch_save` if you need it."
)
#: the sharded save alone, when the answer already gives the rank-0-only form in the job's API
DCP_SHARDED_ALONE = (
    "In this job's API (`{func}`, {at}) you can also save sharded: drop `full_state_dict=True` and save"
    " with `torch.distributed.checkpoint.save` (`dcp.save`), each rank writing only its own shard; make"
    " one file offline with `dcp_to_torch_save` if you need it."
)
DCP_SNIPPET = """\
# this job's API: torch.distributed.checkpoint.state_dict (train.py's get_state_dict call)
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict

# full copy gathered, kept on rank 0 only (cpu_offload=True: the other ranks get an empty dict)
opts = StateDictOptions(full_state_dict=True, cpu_offload=True)
state, optim_state = get_state_dict(model, optim, options=opts)
if dist.get_rank() == 0:
    torch.save({"model": state, "optim": optim_state}, path)
dist.barrier()

# or no full copy at all: each rank writes its own shard
import torch.distributed.checkpoint as dcp
state, optim_state = get_state_dict(model, optim)  # full_state_dict=False: sharded
dcp.save({"model": state, "optim": optim_state}, checkpoint_id=ckpt_dir)
"""
DCP_SNIPPET_FSDP1 = "# FSDP1 (FullyShardedDataParallel wrapper) form of the same fix:"
#: the lever's name when a question weighs two ("more GPUs or a sharded save?")
NAME_SHARDED = "A sharded save"

# a full state dict against a sharded one, and this job's kind
STATEDICT_WHAT = (
    "A full (unsharded) state dict gathers every parameter's whole tensor, from all the ranks' shards, "
    "into one process's memory, so it saves as one ordinary file but needs the whole model (and "
    "optimizer state) in memory at once; a sharded state dict leaves each rank only its own shard and "
    "saves the shards side by side (torch.distributed.checkpoint), so no rank holds the whole model."
)
STATEDICT_FULL = "This job was making a full state dict: `{name}` ({ref})."
STATEDICT_SHARDED = "This job was making a sharded state dict: `{name}` ({ref})."
STATEDICT_UNSAID = "Which kind this job was making the logs don't say: no kept line names either."
