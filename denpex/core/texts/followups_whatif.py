"""Texts for "what if" follow-ups: would a lever (a smaller batch, more host RAM, a longer NCCL timeout,
a requeue elsewhere) have changed THIS job's outcome. Each leads with yes / no / the logs can't tell,
then the fact of the job that decides it, then what fixes it instead when the answer is no."""

from __future__ import annotations

# a smaller batch / shorter sequences / activation checkpointing
BATCH_YES = (
    "Yes, very likely: rank {rank} ran out of GPU memory in a training step — it asked for {asked} with "
    "only {free} free{shape}, and activation memory scales with the micro-batch and sequence length. "
    "Halve `per_device_train_batch_size` (or `max_seq_len`) and raise gradient accumulation to keep the "
    "global batch."
)
BATCH_SHAPE = " on a batch of {shape} ({ref})"
BATCH_SAVE = (
    "No: rank {rank} ran out of {memory} while saving a checkpoint, not in a training step — the save "
    "gathers a full copy of the model (the consolidated state dict) whatever the batch size is. {fix}"
)
BATCH_HOST = (
    "No: the OOM killer killed rank {rank} for host (system) RAM{rss}{doing}, not GPU memory, so the batch "
    "size doesn't bear on it. {fix}"
)
BATCH_UNKNOWN = (
    "The logs can't tell, and nothing points that way: rank {rank} died of {what}, and no line ties it "
    "to memory or to the batch. {decide}"
)
BATCH_NOT_MEMORY = (
    "No: this job failed with {what}, not an out-of-memory error, so the batch size doesn't bear on it."
)
DECIDE_NATIVE = (
    "A native backtrace decides it (gdb or `PYTHONFAULTHANDLER=1` and a core dump): it names the "
    "library that crashed."
)

# more host RAM
RAM_HOST = (
    "Only partly: more RAM would postpone the kill, but rank {rank} was killed holding{rss} in host "
    "RAM{doing}, and an index held whole in RAM grows with the data. The fix is not to hold it all: "
    "memory-map or stream the index (or shard it per rank) instead."
)
RAM_SAVE = (
    "Yes, it would likely get the save through: rank {rank} ran out of host RAM while saving, because "
    "every rank on the node builds its own full copy of the state dict ({copies}). The lasting fix "
    "is to stop the copies: {fix}"
)
RAM_GPU = (
    "No: rank {rank} ran out of GPU memory (it asked for {asked} with {free} free on its GPU), not host "
    "RAM, so more host RAM doesn't bear on it."
)

# a longer NCCL / watchdog timeout
TIMEOUT_SCHEDULER = (
    "No: no watchdog or NCCL timeout ended this job — Slurm's time limit did ({ref}), so a longer NCCL "
    "timeout changes nothing. Raise `--time`, or checkpoint and requeue before the limit "
    "(`--signal=B:USR1@600`)."
)
TIMEOUT_PORT = (
    "No: nothing timed out — the rendezvous could not bind {port} (address already in use, {ref}), so no "
    "collective ever ran. Pick a free port (`--rdzv-endpoint=localhost:0` or `--standalone`)."
)
TIMEOUT_CRASHED = (
    "No: rank {rank} had crashed ({what}) before the others gave up, so the collective they waited in could "
    "never finish — a longer timeout only makes them wait longer. Fix rank {rank}'s failure instead."
)
TIMEOUT_SILENT = (
    "The logs can't tell: only if rank {rank} was slow rather than stuck or dead. {fact} It left no error "
    "of its own, so nothing shows which. {next}"
)

# a requeue / resubmit elsewhere
AGAIN_DETERMINISTIC = (
    "Yes, it will very likely happen again on any node: {what} comes from the job itself (its code, "
    "config or data), not the node."
)
AGAIN_AT_STEP = " Expect it again around step {step}."
AGAIN_XID = (
    "Probably not, if {node} is excluded: a GPU Xid is a fault of that node's GPU, not of the job "
    "(`sbatch --exclude={node}`)."
)
AGAIN_TIME = (
    "Yes: resubmitted as is it will hit the same time limit ({ref}) and be cancelled again, unless you "
    "raise `--time` or make it checkpoint and requeue before the limit (`--signal=B:USR1@600`)."
)
