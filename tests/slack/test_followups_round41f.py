"""Round 41f: specific facts of the job asked directly: a field an error line prints ("DistNetworkError
fields: useIpv6 and code?", "gfp_mask in the oom-killer line?"), whether an NCCL setting applies to a
gloo job with the setting as the subject ("would TORCH_NCCL_ASYNC_ERROR_HANDLING have changed anything
here?"), CUDA_VISIBLE_DEVICES (never printed), the host's total RAM (never printed), what a rank was in
the middle of (forward, backward, data), which DeepSpeed frame OOMed, and `--standalone`'s free port.

Why: the field ask matched no intent (help text) though the line prints the value; the NCCL-setting ask
only matched with "that/this/it" as its subject; CUDA_VISIBLE_DEVICES and the node's total RAM were
answered around (the local rank, "the limit is not printed") without saying the logs don't have them;
"forward, backward, fetching data?" got the phase without the rank's frames (`loss.backward()`); "which
DeepSpeed engine frame OOMed?" matched no intent, so its frames came after the help text (now they are
the answer). Left: "did it manage to save a checkpoint before it got killed?" (time_limit): a first check
answering "no checkpoint save is logged" was tried and dropped, because it took the sub-ask of a many-
part message ("impact: step lost, nodes involved, and was there any checkpoint saved…") from the lost-
work answer.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("rendezvous_port_in_use", "DistNetworkError fields: useIpv6 and code?", ["false", "-98"], []),
    (
        "rendezvous_port_in_use",
        "what errno code and useIpv6 value did the store print?",
        ["false", "-98"],
        [],
    ),
    ("disk_full_save", "would TORCH_NCCL_ASYNC_ERROR_HANDLING have changed anything here?", ["gloo"], []),
    ("disk_full_save", "does setting NCCL_DEBUG=INFO help with this one?", ["gloo"], []),
    (
        "xid",
        "what's rank 5's local_rank, and what was CUDA_VISIBLE_DEVICES for it?",
        ["local_rank 1|local_rank=1", "not in the logs"],
        [],
    ),
    (
        "xid",
        "rank 3: CUDA_VISIBLE_DEVICES and local rank?",
        ["local_rank 3|local_rank=3", "not in the logs"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "how much host RAM does gpu-01 have total? trying to decide if we can just bump --mem",
        ["not in the logs"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "how much RAM does gpu-01 have in total? could we raise --mem",
        ["not in the logs"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "what was rank 2 actually in the middle of when it blew up - forward, backward, fetching data?",
        ["backward"],
        [],
    ),
    ("dataloader_worker_killed", "was rank 2 in forward or backward when the worker died?", ["backward"], []),
    (
        "rendezvous_port_in_use",
        "would --standalone have avoided this, and why?",
        ["free port|ephemeral"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "would using --standalone have stopped the clash?",
        ["free port|ephemeral"],
        [],
    ),
    (
        "zero3_save",
        "which DeepSpeed engine frame OOMed and on what tensor op?",
        ["_zero3_consolidated_16bit_state_dict", "clone"],
        [],
    ),
    (
        "zero3_save",
        "what deepspeed function ran out of memory, and on which op?",
        ["_zero3_consolidated_16bit_state_dict", "clone"],
        [],
    ),
    ("fsdp_cpu_save", "gfp_mask in the oom-killer line?", ["0x140cca"], []),
    ("fsdp_cpu_save", "what order and gfp_mask did the oom-killer print?", ["0x140cca", "order=0"], []),
]
