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

# other levers: the training precision, more GPUs, fewer DataLoader workers, a bigger /dev/shm
NOT_THIS = "No: this job failed with {what} ({ref}), not for lack of memory, so {lever} doesn't bear on it."
PRECISION_GPU = (
    "Partly, at best: rank {rank} ran out of GPU memory in a training step (it asked for {asked} with "
    "{free} free). bf16/fp16 autocast roughly halves the activations, but the fp32 master weights, "
    "gradients and optimizer state stay as they are; a smaller micro-batch or activation checkpointing "
    "is the surer lever."
)
PRECISION_SAVE = (
    "No, not reliably: rank {rank} ran out of {memory} while a save built a full copy of the model, "
    "and that copy grows with the model, not with the precision of the training step{zero3}. The fix is "
    "not to build the copy: {fix}"
)
PRECISION_ZERO3 = " (a ZeRO-3 16-bit save is already 16-bit)"
PRECISION_HOST = (
    "No: rank {rank} was killed for host (system) RAM{rss}, not GPU memory, so the precision of the GPU "
    "math doesn't bear on it. {fix}"
)
PRECISION_NAN = (
    "Possibly, if it ran in fp16: bf16 has fp32's exponent range, so the fp16 overflow that turns a loss "
    "or a gradient into inf/NaN goes away; a NaN from a bad batch or a learning rate that is too high "
    "comes back in bf16 too. Rank {rank} went NaN ({ref}){step}: rerun from the checkpoint before it with "
    "bf16 and see if it passes."
)
SCALE_GPU = (
    "Only if the model state is sharded (ZeRO-3 or FSDP): then each GPU holds 1/N of the parameters, "
    "gradients and optimizer state, and more GPUs lower what rank {rank} needed (it asked for {asked} "
    "with {free} free). With plain DDP every GPU holds a full replica plus its own micro-batch, so more "
    "GPUs change nothing per GPU: lower the micro-batch instead."
)
SCALE_GPU_SHAPE = (
    "Per GPU, the failing step ran {shape}: a shorter `max_seq_len` or micro-batch (or gradient "
    "checkpointing) lowers that peak on any number of GPUs."
)
SCALE_GATHER = (
    "No: the save gathers the full model onto rank {rank} however many GPUs share the training; more GPUs "
    "shrink each shard, not the gathered copy. {fix}"
)
SCALE_SAVE = (
    "No, not as such: rank {rank} ran out of host RAM while saving because each rank on the node built "
    "its own full copy of the state dict ({copies}); more GPUs per node means more copies at once. The "
    "same ranks spread over more nodes would lower the peak per node; the lasting fix: {fix}"
)
SCALE_HOST = (
    "No: rank {rank} was killed for host RAM{rss}{doing}, and every rank builds that on its own, so more "
    "GPUs add copies rather than split them. {fix}"
)
SCALE_XID = (
    "No: a GPU on {node} faulted (an Xid), which is a fault of that node's hardware, not of the job's "
    "size. Exclude the node (`sbatch --exclude={node}`) and resume."
)
SCALE_TIME = (
    "Not by itself: the job was healthy when Slurm cancelled it at its time limit ({ref}). More GPUs "
    "finish the same steps sooner only if it scales; raising `--time` or checkpointing and requeueing "
    "before the limit (`--signal=B:USR1@600`) is the sure fix."
)
WORKERS_KILLED = (
    "Likely, yes: a DataLoader worker of rank {rank} was killed by SIGKILL ({ref}), the signal the OOM "
    "killer sends, and every worker is a separate process holding its own copy of the dataset object and "
    "its prefetched batches in host RAM. Fewer workers (`num_workers`) or a lower `prefetch_factor` lower "
    "the peak; the node's dmesg `Killed process <pid>` line confirms the OOM killer."
)
WORKERS_SHM = (
    "Yes, partly: each worker passes its batches through /dev/shm, so fewer workers use less of it; "
    "the lasting fix for rank {rank}'s worker ({ref}) is a bigger /dev/shm (`--shm-size` / an "
    "emptyDir with medium: Memory)."
)
WORKERS_HOST = (
    "Not by itself: the process the OOM killer ended was rank {rank} itself{rss}{doing}, not a DataLoader "
    "worker. Workers add to the node's total, but the kill is what the rank held. {fix}"
)
WORKERS_GPU = (
    "No: DataLoader workers use host RAM and CPU, not GPU memory, and rank {rank} ran out of GPU memory "
    "(it asked for {asked} with {free} free)."
)
SHM_YES = (
    "Yes: rank {rank}'s DataLoader worker died of a full shared memory (/dev/shm, {ref}). Raise it "
    "(`docker run --shm-size=16g` or `--ipc=host`; on Kubernetes an emptyDir with medium: Memory at "
    "/dev/shm) or lower `num_workers`."
)
SHM_KILLED = (
    "Probably not: rank {rank}'s DataLoader worker was killed by SIGKILL ({ref}), the OOM killer's "
    "signal, not a bus error from a full /dev/shm; /dev/shm is carved from the same host RAM, so a bigger "
    "one doesn't help. Fewer workers or a lower `prefetch_factor` lower the host RAM they hold."
)
SHM_GPU = (
    "No: /dev/shm is host shared memory, and rank {rank} ran out of GPU memory (it asked for {asked} with "
    "{free} free), so its size doesn't bear on it."
)
SCHEDULER = (
    "No: nothing failed — Slurm cancelled the job at its time limit ({ref}) while it was healthy, so "
    "{lever} doesn't bear on it. Raise `--time`, or checkpoint and requeue before the limit "
    "(`--signal=B:USR1@600`)."
)
WORKER_PRECISION = (
    "No: what died was a DataLoader worker process of rank {rank} ({ref}), on the host; the precision of "
    "the GPU math doesn't bear on it."
)
WORKER_SCALE = (
    "No: every rank starts its own DataLoader workers, so more GPUs per node mean more worker processes "
    "on the host, not fewer; rank {rank}'s worker was killed ({ref}). Lower `num_workers` instead."
)
WORKERS_SAVE = (
    "Not by itself: host RAM ran out in the save, where each rank built a full copy of the state dict "
    "({copies}), not in the workers. {fix}"
)
SHM_HOST = (
    "No: /dev/shm is carved from the same host RAM the OOM killer ran out of (rank {rank}{rss}), so a "
    "bigger one doesn't help. {fix}"
)

# a memory lever that may already be on in the run asked about (`answer_whatif_levers.already_on`)
ALREADY_ON = "{name} was already on in this run ({ref}): it is not a lever left to pull."
ALREADY_UNSEEN = (
    "Check first whether bf16 or gradient checkpointing was already on: the lines Denpex kept don't show "
    "the run's settings; `grep -iE 'bf16|fp16|checkpointing' <rank log>` finds the config line the "
    "launcher printed at start-up. A setting that was already on is no lever left."
)

# a question that weighs two levers: each answer led by its lever's name (`answer_whatif._each_lever`)
NAME_SHM = "A bigger /dev/shm"
NAME_WORKERS = "Fewer DataLoader workers"
NAME_PRECISION = "bf16/fp16"
NAME_SCALE = "More GPUs"
LEVER_NAMED = "{name} — {answer}"


# a debug setting weighed as the fix (knowledge.answer_fixordebug)
DEBUG_STEPS: dict[str, str] = {
    "workers0": (
        "A debug step, not the fix: `num_workers=0` loads data in the main process, so a worker's real error "
        "(its exception or native stack) shows there and no worker holds its own copy of the dataset, but "
        "loading becomes serial and every step waits on it."
    ),
    "anomaly": (
        "A debug step, not the fix: `torch.autograd.set_detect_anomaly(True)` names the operation that "
        "first produced a NaN/Inf in the backward pass, and slows every step a lot; run it on a short repro, "
        "not in training."
    ),
    "launch_blocking": (
        "A debug step, not the fix: `CUDA_LAUNCH_BLOCKING=1` makes every kernel launch synchronous, so the "
        "error is raised at the call that caused it; it slows the run and changes nothing about the fault."
    ),
    "dist_debug": (
        "A debug step, not the fix: `TORCH_DISTRIBUTED_DEBUG=DETAIL` checks each collective's type and shape "
        "across ranks and names the one that differs; it slows every collective."
    ),
    "nccl_debug": (
        "A debug step, not the fix: `NCCL_DEBUG=INFO` only logs NCCL's setup and errors (which interface, "
        "which transport); it changes nothing NCCL does."
    ),
}
DEBUG_THE_FIX = "The fix for this job: {fix}."

#: a value to set asked for a setting the logs print or do not ("what lr / clip value should I put in?")
VALUE_LOGGED = "{name}: the logs print {value} ({ref})"
VALUE_NOT_LOGGED = "{names}: not logged: no line of this job prints {pronoun}"
VALUE_LEAD = (
    "{said}, so no number from this run says what to set. "
    "Starting points, not this run's figures: {hints}; then rerun from the last good checkpoint and "
    "watch the loss and grad norm."
)
VALUE_HINTS = {
    "learning rate": "a lower learning rate than you ran with (halve it) or a longer warm-up",
    "gradient clipping": (
        "clip gradients at 1.0 (HF `--max_grad_norm 1.0`, DeepSpeed `gradient_clipping: 1.0`, "
        "`torch.nn.utils.clip_grad_norm_(params, 1.0)`)"
    ),
    "warm-up": "a warm-up of a few hundred to a few thousand steps (`warmup_steps`)",
}
VALUE_GRAD_NORM = "The logged `grad_norm` ({value}, {ref}) is the measured gradient norm, not a clip setting."
