"""Round 41d: a log line pasted into the question ("is this line the cause? `...`", "what does this
mean: `...`", two quoted times "so the save was ~5s in?", "what's the 32s"), and plain explanations
("what does NaN mean? ELI5", "full state dict vs sharded, which kind was this job making").

Why they missed: the cause-or-symptom ask read "is this the cause" but not "is this line the cause" or
"the smoking gun"; a job where no rank failed on its own (the scheduler ended it) had no verdict for a
pasted SIGTERM line; a context line of the first rank was "not an error" without "not the cause", nor
that nothing came after it; the DataLoader-killed line had no meaning of its own (and the set-up step
replaced the meaning with a pid line); two pasted times with "~5s in" were not read as a delta; the
srun wait, NaN and port texts left out SIGKILL, "not a number" and "the logs don't say"; a falling
loss was not called "no sign of divergence"; full vs sharded state dict fell to help; "what were ranks
0 and 2 doing" gave no frame; "rank 0 segfaulted right?" quoted rank 0's traceback without the no.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "checkpoint_oom",
        "is this line the cause? `[default2]:[rank2]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/"
        "gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:37611`",
        ["rank 1|rank1", "not the cause|symptom|collateral"],
        [],
    ),
    (
        "checkpoint_oom",
        "is that error the real problem? `[rank2]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:37611`",
        ["rank 1|rank1", "not the cause|symptom|collateral"],
        [],
    ),
    (
        "time_limit",
        "is this line the cause? `torch.distributed.elastic.agent.server.api: [INFO] Received 15 death "
        "signal, shutting down workers`",
        ["time limit|TIME LIMIT|slurm", "not the cause|consequence"],
        [],
    ),
    (
        "time_limit",
        "is that line the real problem? `Received 15 death signal, shutting down workers`",
        ["time limit|TIME LIMIT|slurm", "not the cause|consequence"],
        [],
    ),
    (
        "gpu_oom",
        "is this the cause? it's right before the OOM: `[2026-11-20 03:13:58,412] [INFO] [rank5] hub mirror: "
        "uploading run artifacts to acme/llama-ft with HF_TOKEN=hf_...` (cut the token)",
        ["not the cause|unrelated"],
        ["hf_DemoPlantedTok3nXq7ZpL2mVb9RtYw4KcNs"],
    ),
    (
        "gpu_oom",
        "was this line the culprit? `[rank5] hub mirror: uploading run artifacts to acme/llama-ft`",
        ["not the cause|unrelated"],
        ["hf_DemoPlantedTok3nXq7ZpL2mVb9RtYw4KcNs"],
    ),
    (
        "flight_recorder",
        "rank2.log only has `[2026-11-20 03:00:02,000] [INFO] [rank2] step 40/100 loss=1.2` and nothing "
        "after. is that line the smoking gun? what did rank 2 do after it",
        ["rank 2|rank2", "nothing|last line"],
        [],
    ),
    (
        "flight_recorder",
        "is this line the real problem? `[2026-11-20 03:00:02,000] [INFO] [rank2] step 40/100 loss=1.2`",
        ["rank 2|rank2", "nothing|last line"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "what does this mean: `[rank2]: RuntimeError: DataLoader worker (pid 22194) is killed by signal: "
        "Killed.`",
        ["rank 2|rank2", "OOM|out of memory|memory"],
        [],
    ),
    (
        "dataloader_worker_killed",
        'whats "RuntimeError: DataLoader worker (pid 22194) is killed by signal: Killed." mean in '
        "plain words?",
        ["rank 2|rank2", "OOM|out of memory|memory"],
        [],
    ),
    (
        "checkpoint_oom",
        "rank 0 prints `Saving checkpoint to .../checkpoint-6.pt` at 21:38:30,286 and then I see the SIGTERM "
        "lines at 21:38:35.082. so the save was ~5s in when it blew up?",
        ["4.8|4.7|5 s|5s|5 seconds|~5"],
        [],
    ),
    (
        "checkpoint_oom",
        "the `Saving checkpoint to` line then the SIGTERM - was the save about 5 seconds in when it died?",
        ["4.8|4.7|5 s|5s|5 seconds|~5"],
        [],
    ),
    (
        "time_limit",
        "`srun: Job step aborted: Waiting up to 32 seconds for job step to finish.` - what's the 32s",
        ["32", "SIGKILL|KillWait|grace"],
        [],
    ),
    ("time_limit", "what is the 32 seconds srun waits for?", ["32", "SIGKILL|KillWait|grace"], []),
    ("nan_loss", "what does NaN mean? ELI5", ["not a number"], []),
    ("nan_loss", "what does nan actually mean? explain simply", ["not a number"], []),
    (
        "nan_loss",
        "rank 0 losses: `step 4/10 loss 1.2209`, `step 5/10 loss 1.0702`, `step 6/10 loss 1.0358`. does that "
        "look like divergence to you?",
        ["no sign|no divergence|going down|not climbing|did not climb"],
        [],
    ),
    (
        "nan_loss",
        "were the losses rank 0 logged trending up before it died, any divergence?",
        ["no sign|no divergence|going down|not climbing|did not climb"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "which process was holding 54661?",
        ["not in the logs|don't say|doesn't say", "ss -ltnp|lsof"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "what was using port 54661, which pid?",
        ["not in the logs|don't say|doesn't say", "ss -ltnp|lsof"],
        [],
    ),
    (
        "checkpoint_oom",
        "can you explain like I'm new what a 'full state dict' is vs a sharded one, and which kind this job "
        "was making?",
        ["full_state_dict|full state dict", "sharded"],
        [],
    ),
    (
        "checkpoint_oom",
        "sharded checkpoint or full state dict here? whats the difference",
        ["full_state_dict|full state dict", "sharded"],
        [],
    ),
    ("segfault", "rank 0 segfaulted right? its log has the big traceback", ["rank 3"], []),
    ("segfault", "so rank 2 was the one that got the SIGSEGV?", ["rank 3"], []),
    (
        "segfault",
        "what were ranks 0 and 2 doing when they got 'Connection reset by peer'?",
        ["backward"],
        [],
    ),
    ("segfault", "what were ranks 0 and 2 doing when rank 3 crashed?", ["backward"], []),
]
