"""Round 11a: counterfactual ("what if") follow-ups — would a lever have changed THIS job's outcome.

Each answer leads with yes / no / the logs can't tell, decided from the diagnosis (category, phase, the
figures), then the fact that decides it, then what fixes it instead when the answer is no.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # a smaller batch / shorter sequences
    (
        "gpu_oom",
        "if we'd halved the micro batch, would rank 5 have survived?",
        ["Yes", "3.91 GiB", "1.21 GiB", "4 x 16384"],
        ["No:"],
    ),
    ("gpu_oom", "would shorter sequences have avoided this?", ["Yes", "per_device_train_batch_size"], []),
    (
        "host_oom_kill",
        "would a lower batch size have prevented the kill?",
        ["No:", "host (system) RAM", "in-memory index", "memory-map"],
        ["Yes"],
    ),
    (
        "zero3_save",
        "would reducing the batch have kept rank 0 alive?",
        ["No:", "saving a checkpoint", "stage3_gather_16bit_weights_on_model_save"],
        ["Yes"],
    ),
    (
        "checkpoint_oom",
        "would a smaller micro-batch have prevented this?",
        ["No:", "host (CPU) RAM", "saving a checkpoint"],
        ["Yes"],
    ),
    (
        "fsdp_cpu_save",
        "would a smaller batch have helped here?",
        ["No:", "saving a checkpoint", "rank0_only"],
        ["Yes"],
    ),
    (
        "segfault",
        "if we cut the batch size would it still segfault?",
        ["can't tell", "segmentation fault", "backtrace"],
        ["Yes,"],
    ),
    # more host RAM
    (
        "host_oom_kill",
        "if we'd asked for more --mem would it have made it?",
        ["Only partly", "61.25 GiB", "memory-map or stream"],
        [],
    ),
    (
        "checkpoint_oom",
        "would a node with more RAM have got the save through?",
        ["Yes", "every rank", "4 copies", "rank 0 only"],
        [],
    ),
    ("gpu_oom", "would more system RAM on gpu-02 have helped?", ["No:", "GPU memory", "3.91 GiB"], ["Yes"]),
    # a longer NCCL timeout
    (
        "time_limit",
        "would bumping the nccl timeout have kept it alive?",
        ["No:", "time limit", "--time"],
        ["Yes"],
    ),
    (
        "rendezvous_port_in_use",
        "would a longer timeout have let it come up?",
        ["No:", "54661", "address already in use"],
        ["Yes"],
    ),
    (
        "zero3_save",
        "would increasing the collective timeout have let ranks 1-7 ride out rank 0's save?",
        ["No:", "rank 0 had crashed", "out-of-memory"],
        ["Yes"],
    ),
    (
        "flight_recorder",
        "if we doubled the NCCL timeout would it have recovered?",
        ["can't tell", "rank 2", "slow rather than stuck"],
        ["No:"],
    ),
    (
        "hang_before_collective",
        "would a higher timeout have saved the run?",
        ["can't tell", "rank 3", "10 s"],
        [],
    ),
    # a requeue / resubmit
    (
        "nan_loss",
        "if we resubmit it on a different node will it nan again?",
        ["Yes", "not the node", "NaN"],
        ["Probably not"],
    ),
    (
        "time_limit",
        "if we requeue it unchanged will it get cancelled again?",
        ["Yes", "time limit", "--time"],
        [],
    ),
    (
        "zero3_save",
        "if i relaunch this on fresh nodes will the save blow up again?",
        ["Yes", "not the node", "rank 0"],
        [],
    ),
    (
        "xid",
        "if I resubmit excluding gpu-02 will it happen again?",
        ["Probably not", "gpu-02", "--exclude"],
        ["Yes, it will"],
    ),
]
