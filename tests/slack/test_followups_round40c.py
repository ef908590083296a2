"""Round 40c: specific facts of the job that sit in its lines, asked beside or instead of the usual ask:
a rank's last lines before its failure ("anything weird in the last lines"), the rank's own error from
"the app side", a collateral rank's empty stderr and the SIGTERM that explains it, the process id of the
rank that crashed, the rendezvous "setup", the last loss printed, whose losses were logged, the
backend when an NCCL version is asked of a gloo job, a code pattern to replace building an index in RAM
on every rank, "is it the dataset or the model loading", and what "full state dict" means.

Why they missed: the tail look-back kept only progress lines, so the `hub mirror: uploading …` line
between step 2000 and the failing step was dropped even when the message asks what else the last lines
show; "from the app side" was not read as the rank's own log (not the kernel's); the empty-file answer
said which file was empty but not that the launcher's SIGTERM ended that rank; "process ID" was not read
as "pid"; "rendezvous setup" was not a rendezvous-backend ask, and the backend fact trailed a generic
complaint answer; the last loss and whose losses were logged had no answer beside another ask; the
version answer said "no NCCL version printed" for a job that ran on gloo; "replacement for building that
index in RAM" was not a data-code ask; the data-pipeline guess said "not the data pipeline" for a rank
killed while building its data index.

Left: "explain 'full state dict'" (a glossary alias made the explain answer drop the asked figures of
fsdp_cpu_save's "what is FSDP and what does 'full state dict' do … how big was the process": reverted);
the torchrun agent's own pid (23211) and the Flight Recorder entries' `input_sizes` are not in what the
diagnosis keeps (the agent's glog lines and the dumps' sizes are dropped by the engine).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "gpu_oom",
        "wat was r5 doing rite before the oom, anything weird in the last lines",
        ["upload|hub mirror|acme/llama-ft"],
        ["hf_DemoPlantedTok3nXq7ZpL2mVb9RtYw4KcNs", "hf_DemoPlanted"],
    ),
    (
        "gpu_oom",
        "what was rank 5 doing before it crashed, anything unusual?",
        ["upload|hub mirror|acme/llama-ft"],
        ["hf_DemoPlanted"],
    ),
    ("nan_loss", "r3 stderr empty, is that bad", ["sigterm|-15|terminated"], []),
    ("nan_loss", "rank 3's stderr.log is empty, should I worry?", ["sigterm|-15|terminated"], []),
    ("xid", "r5 last error line from the app side pls", ["unspecified launch failure"], []),
    ("xid", "rank 5 python-side error?", ["unspecified launch failure"], []),
    (
        "host_oom_kill",
        "Recommend a concrete replacement for building that index in RAM on every rank, ideally with a code"
        " pattern I can drop in.",
        ["mmap|memmap|memory-map|memory map|arrow"],
        [],
    ),
    (
        "host_oom_kill",
        "what should we use instead of building the index in memory on each rank? snippet pls",
        ["mmap|memmap|memory-map|memory map|arrow"],
        [],
    ),
    (
        "nan_loss",
        "My guard at train.py line 207 raises ValueError(f'Loss is {loss.item()}, stopping training'). Which"
        " rank tripped it, and were any other ranks' losses logged, i.e. can we tell whether the NaN was"
        " local to that rank's batch?",
        ["rank 1|rank1|rank-1", "only rank 0|rank 0 only|not logged|aren't logged"],
        [],
    ),
    ("nan_loss", "do all ranks log their loss?", ["only rank 0|rank 0 only|not logged|aren't logged"], []),
    (
        "checkpoint_oom",
        "For the incident ticket: what was the process ID of the process that actually crashed?",
        ["23264"],
        [],
    ),
    ("checkpoint_oom", "process id of the rank that died first?", ["23264"], []),
    ("rendezvous_port_in_use", "What rendezvous setup was torchrun using here?", ["static"], []),
    ("rendezvous_port_in_use", "which kind of rendezvous did the launcher use", ["static"], []),
    (
        "host_oom_kill",
        "Is it really the dataset or maybe the model loading? Was steht im Log?",
        ["1.2B|in-memory index|1.2 billion"],
        [],
    ),
    ("host_oom_kill", "was it the dataset, or the model load?", ["1.2B|in-memory index|1.2 billion"], []),
    ("desync", "what NCCL version was this running? checking for the known hang bug", ["gloo"], []),
    ("desync", "nccl ver?", ["gloo"], []),
    (
        "checkpoint_oom",
        "last loss printed before it died, and how long until the agent killed everything?",
        ["1.2337", "4.8|~5 s|5 s|5s|about 5|4.79"],
        [],
    ),
    ("checkpoint_oom", "final loss before the crash, and when did torchrun kill the rest?", ["1.2337"], []),
]
