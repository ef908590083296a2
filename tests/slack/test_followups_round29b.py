"""Round 29b: a topic named in passing in a postmortem or how-to message — "impact: step lost, nodes
involved, any checkpoint?", "how far did it get, and the cheapest repro command", "what's the gap",
"where do I set it", "which line in train.py do I change", "what num_workers was it running with".

Why: the splitter sees one ask in a listed clause, so the answer spoke to its first topic only. Each
topic now fetches its own fact with a plain ask (`knowledge.answer_topics`), added only when it is
another kind of answer; a data-loader setting asked for is said to be in no line when none prints it;
the save path names the rank whose log holds it; "first thing to do before relaunching" is the fix;
"should they be …" points back at the ranks just named, and "cite the lines" is an ask.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "disk_full_save",
        "which rank was writing the checkpoint and to what path? want to go check that volume",
        ["rank 0|rank0", "checkpoint-4.pt|checkpoint-4"],
        [],
    ),
    (
        "disk_full_save",
        "who was doing the write, and where did it go?",
        ["rank 0", "checkpoint-4"],
        [],
    ),  # guard
    (
        "disk_full_save",
        "is the checkpoint it was writing usable or do i need to go back further? what's the first thing "
        "to do before relaunching",
        ["checkpoint-4|step 4", "df -h|du -sh|free space"],
        [],
    ),
    ("disk_full_save", "what's the first thing to do before relaunching?", ["df -h|free space"], []),
    (
        "gpu_oom",
        "impact: step lost, nodes involved, and was there any checkpoint saved in this run that we can "
        "resume from?",
        ["2001", "gpu-02", "no checkpoint|no save|not show|no sign|not in the logs|no line"],
        ["hf_DemoPlantedTok3n"],
    ),
    (
        "gpu_oom",
        "for the incident doc: which nodes were affected, and was any checkpoint written we could resume?",
        ["gpu-02", "no checkpoint save"],
        [],
    ),  # guard
    (
        "xid",
        "impact: how many ranks/nodes went down, last completed step, and the op they hung in",
        ["8 ranks|all 8|8 of 8|0-7", "2000", "ALLREDUCE|48213"],
        [],
    ),
    (
        "xid",
        "the other ranks show watchdog timeouts at 03:24 — is that a second failure? what's the gap",
        ["03:14:03", "03:24:03", "600 s|10 min"],
        [],
    ),
    (
        "segfault",
        "how far did it get, step-wise, and what's the cheapest repro command",
        ["step 1|1/10", "--max_steps"],
        [],
    ),
    ("segfault", "what step did it reach, and the quickest repro cmd?", ["step 1", "--max_steps"], []),
    (
        "segfault",
        "ranks 0 and 2 both show connection reset errors — should they be in the root cause or listed as "
        "collateral? cite the lines",
        ["collateral|victim", "console.log:25|console.log:40|pair.cc:537"],
        [],
    ),
    (
        "flight_recorder",
        "what's the current NCCL timeout? the logs say it ran for ~600s — if I raise it, to what and where "
        "do I set it",
        ["600000|600 s", "init_process_group|timeout="],
        [],
    ),
    (
        "hang_before_collective",
        "did rank 3 leave ANY error or stack trace? where should I look to find out what it was doing",
        ["no traceback|no error", "py-spy|faulthandler|dmesg|sacct"],
        [],
    ),
    (
        "nan_loss",
        "rank 0 printed normal losses up to step 6, so where did the nan come from? what were the last "
        "values",
        ["1.0358", "rank 0"],
        [],
    ),
    (
        "checkpoint_oom",
        "what exact line in train.py do I change so the save stops building a full copy on every rank?",
        ["line 174", "full_state_dict"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "what num_workers was this running with? i want to halve it",
        ["num_workers", "not in the logs"],
        [],
    ),
    ("dataloader_worker_killed", "which num_workers did it use?", ["num_workers is not in the logs"], []),
    (
        "dataloader_worker_killed",
        "quick repro idea: can I just run one rank with num_workers=0 to see the real error? how far did it "
        "get before dying (step #)?",
        ["num_workers=0", "step 1"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "did any training actually run / any steps lost? or did it die at launch",
        ["before any rank|no rank|never started|at launch|before training"],
        [],
    ),
    ("gpu_oom", "what step was lost?", ["2001"], []),  # guard
    ("xid", "how many ranks went down?", ["8 of 8"], []),  # guard
]
