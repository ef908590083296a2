"""Round 15b: triage judgements an on-call engineer asks before the relaunch (blind batches 37 and 38).

Why: each class was answered with a glossary line, the verdict again or the wrong handler.
- "usual NCCL timeout noise, safe to ignore?": the others' timeouts only say who waited; the answer is
  the rank they waited for (its failure and time, or what the traces say it never joined), or the
  desync, never a definition of "watchdog".
- "is N ms the default / from our config? just raise it?": the process group's `timeout=` of
  `init_process_group`, PyTorch's default for this backend, then whether a longer wait could help.
- "next time it wedges, what gets its Python stack? where do I set the pg timeout for a debug run?":
  py-spy and faulthandler on the awaited rank, a short `timeout=` — only for a rank that hung.
- "NCCL settings on a gloo job, what instead?": TORCH_DISTRIBUTED_DEBUG=DETAIL, py-spy for a stack.
- "would exporting the allocator setting get us past it?": the reusable memory against what was asked.
- "what goes on the torchrun line so it never collides again?": the port taken, --standalone.
- "minimal change at the line, and how do I test it on a short run?": the edit at the failing rank's
  frame and a run that reaches the code path in minutes (`data/trial.toml`, by category).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "xid",
        "the other ranks' watchdog timeouts, routine noise we can ignore?",
        ["not noise", "rank 5", "03:14:03"],
        [],
    ),
    (
        "hang_before_collective",
        "ranks 0-2 timed out in all_reduce, is that just the normal gloo noise?",
        ["not noise", "rank 3", "10 s"],
        [],
    ),
    (
        "flight_recorder",
        "is that 600000 ms timeout something we set or the stock default? should we raise it?",
        ["init_process_group", "default for nccl"],
        [],
    ),
    (
        "gpu_oom",
        "the 600 s watchdog limit, did our config set that or is it default?",
        ["timeout=timedelta", "default for nccl"],
        [],
    ),
    (
        "hang_before_collective",
        "if rank 3 freezes again, which command shows me its python stack?",
        ["py-spy dump", "faulthandler.register"],
        [],
    ),
    (
        "flight_recorder",
        "for a repro run where do i set the process group timeout, and to what?",
        ["timeout=timedelta(minutes=2)"],
        [],
    ),
    (
        "segfault",
        "we're on gloo, is NCCL_DEBUG even relevant here? what do i set instead",
        ["TORCH_DISTRIBUTED_DEBUG=DETAIL"],
        [],
    ),
    (
        "zero3_save",
        "would exporting expandable_segments get us through the save?",
        ["asked for 2.00 GiB", "1.02 GiB free"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "the summary's 29500 isn't our port, is it? which torchrun flags keep this from colliding again",
        ["54661", "--standalone"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "whats the minimal change at the save so only rank 0 holds the full state, and how do i test it"
        " quickly",
        ["rank0_only=True", "line 301", "ru_maxrss"],
        [],
    ),
    (
        "time_limit",
        "how can i check the requeue-on-signal setup on a short run?",
        ["--time=00:05:00", "--signal=B:USR1@120"],
        [],
    ),
    (
        "zero3_save",
        "quickest way to check the save works on a 2-step run?",
        ["--save_steps 1", "--max_steps 2"],
        [],
    ),
]
