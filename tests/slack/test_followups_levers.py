"""What-if levers beyond the batch and host RAM: the training precision, more GPUs, fewer DataLoader
workers, a bigger /dev/shm (knowledge/answer_whatif_levers.py).

Why: the answer turns on which memory ran out and in which phase, never on the knob named: bf16 trims a
training step's activations but not a save's full copy; more GPUs shrink sharded state but add host
copies when every rank builds a full state dict; a bigger /dev/shm saves a bus error, not a SIGKILL.
Each case states the deciding fact of the job and forbids the opposite verdict.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("gpu_oom", "would bf16 have avoided it?", ["partly", "3.91 GiB", "activations"], ["No:"]),
    ("zero3_save", "would more GPUs have helped?", ["No:", "gathers the full model"], ["Yes"]),
    ("zero3_save", "does bf16 help here?", ["No, not reliably", "already 16-bit"], ["Yes"]),
    ("fsdp_cpu_save", "would bf16 have saved it", ["host (CPU) RAM", "rank0_only"], ["16-bit save", "Yes"]),
    ("fsdp_cpu_save", "would more gpus have helped?", ["more copies"], ["Yes"]),
    ("fsdp_cpu_save", "would fewer dataloader workers have helped", ["in the save", "rank0_only"], ["Yes"]),
    ("host_oom_kill", "would more GPUs fix it?", ["rank 2", "in-memory index"], ["Yes"]),
    ("host_oom_kill", "would fewer workers have avoided this?", ["rank 2 itself", "not a DataLoader"], []),
    ("host_oom_kill", "does a bigger /dev/shm help?", ["same host RAM"], ["Yes"]),
    ("dataloader_worker_killed", "would num_workers=0 have saved it?", ["Likely, yes", "SIGKILL"], []),
    ("dataloader_worker_killed", "would a bigger shm have helped?", ["Probably not", "not a bus error"], []),
    ("dataloader_worker_killed", "would more GPUs help?", ["more worker processes"], ["Yes"]),
    ("gpu_oom", "would a bigger /dev/shm have helped?", ["No:", "GPU memory"], ["not for lack of memory"]),
    ("gpu_oom", "would more GPUs have helped?", ["sharded", "plain DDP"], []),
    ("nan_loss", "would bf16 have avoided the nan?", ["fp16", "rank 1"], []),
    ("xid", "would more gpus have helped", ["gpu-02", "--exclude"], ["Yes"]),
    ("xid", "would bf16 have avoided it?", ["No:", "Xid"], []),
    ("time_limit", "would mixed precision have saved it?", ["No:", "time limit"], []),
    ("time_limit", "would more GPUs have helped?", ["Not by itself", "--time"], []),
    ("desync", "would fewer dataloader workers have avoided it?", ["No:"], ["Yes"]),
]
