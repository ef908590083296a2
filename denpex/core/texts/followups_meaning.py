"""What a failure's name means, in plain words, for "what does 'fell off the bus' mean here?".

One or two sentences per failure kind (`knowledge.answer_meaning` adds this job's own facts after it):
a new engineer asks what the summary's words mean *and* what they mean for this run (whose fault,
what to do), so each says both in words a newcomer knows. Kept apart from `followups.py`, which is full.
"""

from __future__ import annotations

#: the failure kinds (verdict categories) explained, each a plain-words meaning and what it implies
MEANINGS: dict[str, str] = {
    "gpu_hardware_xid": (
        "\u201cFell off the bus\u201d (Xid 79) means the GPU stopped answering on the PCIe bus and the "
        "driver lost it: a hardware, power or driver fault on that one GPU, not your code."
    ),
    "gpu_oom_checkpoint_gather": (
        "A ZeRO-3 checkpoint save gathers the weights, sharded across every rank during training, into "
        "one full copy on rank 0's GPU before writing it: training can fit while that gather does not, "
        "so the run died saving, not training."
    ),
    "cpu_oom_checkpoint": (
        "It means the machine's RAM (host/CPU memory), not the GPUs' memory, ran out: a save copies the "
        "model's state from the GPUs into host memory before writing the file, so the GPUs can be fine "
        "while the host runs out."
    ),
    "nccl_timeout": (
        "A hang means nothing failed on an error of its own: one rank got stuck (or went into a "
        "different call) and never reached the collective the others were waiting in, so they stalled "
        "there until the watchdog's timeout ended them."
    ),
    "segfault": (
        "A segfault (SIGSEGV, signal 11) means native code (C/C++/CUDA in PyTorch, an extension or a "
        "driver) touched memory it must not, and the OS killed the process at once: no Python "
        "exception is raised, which is why there is no Python traceback."
    ),
    "nan_divergence": (
        'NaN is "not a number": `Loss is nan` means the loss stopped being a number: training diverged '
        "(learning rate too high, exploding gradients without clipping, fp16 overflow or a bad batch), "
        "and the trainer stopped rather than go on training on garbage."
    ),
    "dataloader_worker_killed": (
        "`DataLoader worker (pid N) is killed by signal: Killed` means one of the DataLoader's worker "
        "processes (the ones that load batches) was sent SIGKILL from outside: almost always the kernel's "
        "out-of-memory (OOM) killer, because the host ran out of memory (RAM or a cgroup limit); the "
        "training process that owned the worker then raised this error."
    ),
    "scheduler_kill": (
        "`scheduler_kill` means the scheduler (Slurm, Kubernetes) ended the job from outside (its time "
        "limit, a preemption or a cancel), not a crash in the training."
    ),
}
#: said of a scheduler kill when no rank failed on its own: the run was fine until it was stopped
NOTHING_BROKE = "Nothing broke: no rank failed on its own before the scheduler stopped it."
#: this job's facts after the meaning ("Here: rank 5 on gpu-02 failed first at …")
HERE = "Here: {facts}"

#: an exit code asked about: which rank's process exited with it, by the launcher's summary
EXITED_HERE = "Here: {who} exited with {code}{signal} ({ref})."
EXITED_WHO = "rank {rank}'s process (pid {pid})"
EXITED_WHO_NO_PID = "rank {rank}'s process"
#: the other codes in the same summary, so the asked one is read against them
EXITED_OTHERS = "The others: {rows}."
#: an exit code no term explains: a negative one is the signal that ended the process
EXIT_SIGNAL = (
    "Exit code {code} means the process was ended by signal {num}{signal}, not by an exit of its own."
)

#: a Flight Recorder dump file named and asked what it is, or why `cat` shows binary
DUMP_FILE = (
    "`{name}` is {whose} Flight Recorder dump: when a collective times out, PyTorch's NCCL Flight "
    "Recorder writes each rank's last collectives (op, sequence number, state, Python stack) to the "
    "file `TORCH_NCCL_DEBUG_INFO_TEMP_FILE` names plus the rank, as a Python pickle, not text, so `cat` "
    "shows binary. Read all ranks' dumps together with PyTorch's analyzer, `torchfrtrace <dump dir> -p "
    "{prefix}` (`fr_trace` in `torch.distributed.flight_recorder`), or one with `pickle.load`."
)
DUMP_WHOSE = "rank {rank}'s"
DUMP_WHOSE_UNKNOWN = "one rank's"

#: an exit code read against another one the ask names ("is -11 like -9?"): what each signal says
EXIT_VERSUS = "Not the same as {other}: {other} {other_means}; {code} {means}."
#: what each signal that ends a worker says about who ended it
SIGNAL_MEANS = {
    6: "is SIGABRT, the process aborted itself (a failed check or abort() in native code)",
    7: "is SIGBUS, a bad memory access in native code (often /dev/shm or a mapped file)",
    9: "is SIGKILL, sent from outside and not catchable (the kernel's OOM killer, a scheduler or `kill -9`)",
    11: (
        "is SIGSEGV, the process's own native crash (a bad pointer in C/C++/CUDA code), not a kill "
        "from outside"
    ),
    15: "is SIGTERM, a request to stop sent from outside (torchrun after another worker failed, or Slurm)",
}
