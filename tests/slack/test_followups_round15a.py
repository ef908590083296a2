"""Round 15a: this job's facts for terse, pasted or doubting asks (blind batches 35-38, facts side).

Why, by class:
- "is there a ckpt to resume from?": whether a save exists is the last save the logs show (none here),
  not the restart advice; asked with "can I just resume?", the verdict leads and the save fact follows.
- "which step did it die on" when the failing rank logged no step: ranks step in lockstep, so it failed
  after the last step any rank logged; terse forms ("step when it failed", "… last step") get that step.
- terse yes/no asks: "who went X first", "any ranks start training", "any stall before …": the intent
  they ask, not the list of examples; a launcher failure says the rendezvous (TCPStore) failed first.
- "did our code break?" on a failure before any worker ran: no worker started, the code never ran; a
  paste ending "whats -98?" is an ask too, so both get answered.
- the watchdog's wait said in minutes (600 s (10 min)), not only as 600.012 s.
- a Flight Recorder dump file named ("what is nccl_trace_rank_2, binary?"): a per-rank pickle, read
  with torchfrtrace / pickle.load, then what the dumps say.
- collateral ranks asked about as a group: the collective and line they all waited in; one collateral
  rank's deepest frame with its code line (`loss.backward()`).
- a timeline where the kernel's line names the failure also lists the rank's own error; "X time vs Y"
  asks when, with both times.
- "why only rank N / what's special about it": its per-step memory against the others'.
- "how many gigs/RAM": the memory figure, not a rank count.
- "where does it say …" naming nothing checkable: the verdict is inferred, not printed; a word the reader
  grepped for is checked and said to be absent.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("segfault", "did it get far, and any ckpt we could resume from?", ["no checkpoint save is logged"], []),
    ("dataloader_worker_killed", "at what step did rank 2 blow up?", ["failed after step 1"], []),
    ("nan_loss", "step when it failed", ["step 6 of 10"], []),
    ("segfault", "who hit the segfault first", ["rank 3 on localhost failed first"], []),
    ("rendezvous_port_in_use", "so any workers begin training", ["tcpstore"], []),
    ("gpu_oom", "any stall before it died", ["not a hang"], []),
    ("rendezvous_port_in_use", "did my training script crash?", ["no worker started"], []),
    (
        "rendezvous_port_in_use",
        "`name: EADDRINUSE` whats EADDRINUSE? did the model code fail",
        ["errno 98", "no worker started"],
        [],
    ),
    (
        "flight_recorder",
        "watchdog ran 600012 ms?? when did things actually get stuck",
        ["600 s (10 min)"],
        [],
    ),
    ("flight_recorder", "how do i read nccl_trace_rank_2, cat shows junk", ["pickle", "torchfrtrace"], []),
    (
        "disk_full_save",
        "ranks 1-3 just stuck in a barrier? real or collateral",
        ["were all waiting in `barrier`"],
        [],
    ),
    ("segfault", "rank 2 says connection reset, so was rank 2 hung?", ["loss.backward()"], []),
    ("xid", "sequence of events please", ["unspecified launch failure"], []),
    ("xid", "dmesg time versus the watchdog times", ["03:24:03", "03:14:03"], []),
    ("gpu_oom", "what's special about rank 5 compared to the rest?", ["69.4 GiB"], []),
    ("host_oom_kill", "how many gigs did rank 2 hold when the kernel shot it", ["61.25 GiB"], []),
    (
        "disk_full_save",
        "where does it actually say the disk is full? i can't see it anywhere",
        ["do not print it as such"],
        [],
    ),
    (
        "desync",
        "where is that report? grepped console.log for mismatch, nothing",
        ["`mismatch` is not printed"],
        [],
    ),
]
