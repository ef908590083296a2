"""Follow-ups whose answer is the job's own story (held-out batches 17 and 18), answered by class.

A job no rank started (the scheduler's time-limit kill, a launcher that failed before any worker),
the entry's mechanism said for this job (a full copy per rank, 8 ranks a node), torchrun's failure
summary (each rank's exit code and pid, the victims and what they were in), the failing line kept in
"the last lines", the state of the checkpoint a save died in, a rank that went silent and what to
run next, drain or not, and the fix fitted to the job (the grep, the micro-batch, fp16 or not). New
phrasings, not the batch questions: each answer must state the job's fact, and never the opposite.
"""

from __future__ import annotations

import pytest

from bot.slack.answers import Answerer
from knowledge.answer_job import length
from tests.slack.helpers import states_facts

CASES = [
    # (job, question, must, must_not)
    # 1. no single rank: the scheduler ended it, or no worker ever ran
    (
        "time_limit",
        "which rank took the job down",
        ["TIME LIMIT", "gpu-01", "no rank failed on its own", "all 4 ranks", "SIGTERM", "step 150"],
        ["No single rank could be singled out", "0 of ?"],
    ),
    ("time_limit", "how long was it running before it got cancelled", ["11 min 36 s", "03:00:04"], []),
    ("time_limit", "what time limit did it have", ["sacct -j 991", "Timelimit"], ["48:00:00 limit"]),
    (
        "time_limit",
        "was it preempted or did it run out of memory",
        ["Not a preemption", "Not an out-of-memory"],
        [],
    ),
    (
        "time_limit",
        "why did rank 1 die",
        ["did not fail on its own", "SIGTERM", "time limit"],
        ["waited on the initiating failure"],
    ),
    ("time_limit", "how far did training get", ["150", "2.4400"], []),
    ("time_limit", "did the loss look ok right up to the end", ["2.44", "time limit"], ["loss went nan"]),
    (
        "rendezvous_port_in_use",
        "how many ranks died",
        ["No rank failed", "before any worker started", "nothing was lost"],
        ["0 of ?"],
    ),
    (
        "rendezvous_port_in_use",
        "did we lose any work, or is it just a relaunch",
        ["No training was lost"],
        [],
    ),
    ("rendezvous_port_in_use", "who is sitting on that port", ["54661", "ss -ltnp"], []),
    ("rendezvous_port_in_use", "how do i avoid picking a port that's taken", ["localhost:0"], []),
    # 2. the entry's mechanism, for this job
    (
        "fsdp_cpu_save",
        "fsdp is sharded, so how did system ram run out on the save",
        ["rank0_only", "offload_to_cpu", "8 ranks ran on gpu-01", "8 copies"],
        [],
    ),
    ("fsdp_cpu_save", "how much ram would that node need for the save", ["8 × 239.60 GiB", "1.87 TiB"], []),
    (
        "checkpoint_oom",
        "why did a 16 MiB allocation fail",
        ["last small allocation", "full_state_dict", "4 copies"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "so rank 0 is the culprit?",
        ["No: rank 0", "rank 2 started it", "8 copies"],
        [],
    ),
    # 3. torchrun's failure summary and launcher lines
    ("dataloader_worker_killed", "what pid did the training process of rank 2 have", ["22028"], []),
    (
        "hang_before_collective",
        "exit codes of all ranks?",
        ["pid 32029", "exitcode -15 (SIGTERM)", "exitcode 1"],
        ["Rank 3 exited with -15 (its own error)"],
    ),
    (
        "disk_full_save",
        "ranks 1-3 in the barrier: victims? what exit codes",
        ["collateral", "`barrier`", "-15 (SIGTERM)"],
        [],
    ),
    ("zero3_save", "rank 4 timed out at 03:18:20, was that the real failure", ["victim", "03:08:20"], []),
    # 4. the failing line, the checkpoint, the silent rank, drain or not
    (
        "gpu_oom",
        "show the lines rank 5 logged before it crashed",
        ["OutOfMemoryError", "step 2001"],
        [],
    ),
    ("checkpoint_oom", "is checkpoint-6.pt usable", ["may be missing or partial"], []),
    (
        "flight_recorder",
        "rank 2 just stopped logging, no traceback. what should i check",
        ["03:00:02", "step 40", "py-spy dump", "dmesg", "sacct"],
        [],
    ),
    (
        "hang_before_collective",
        "when did rank 3 stop",
        ["no error of its own", "step 3", "21:44:00"],
        [],
    ),
    ("host_oom_kill", "should we drain gpu-01", ["No need to drain"], ["drain gpu-01"]),
    (
        "xid",
        "give me the drain commands for that node",
        ["scontrol update nodename=gpu-02", "dcgmi diag"],
        [],
    ),
    # 5. the fix fitted to the job
    ("fsdp_cpu_save", "how do i find every other FullStateDictConfig in our code", ["grep -rn"], []),
    (
        "zero3_save",
        "what should stage3_gather_16bit_weights_on_model_save be set to",
        ["false", "zero_to_fp32"],
        [],
    ),
    (
        "gpu_oom",
        "how do i relaunch with a smaller micro batch and keep the global batch",
        ["gradient_accumulation_steps", "per_device_train_batch_size"],
        [],
    ),
    ("nan_loss", "is this an fp16 overflow? should we go bf16", ["No fp16 loss-scale", "clip"], []),
]


@pytest.mark.parametrize(("job", "question", "must", "never"), CASES)
def test_the_answer_states_this_jobs_fact(
    answerers: dict[str, Answerer], job: str, question: str, must: list[str], never: list[str]
) -> None:
    states_facts(answerers[job].answer(question), None, must, never, answered=True)


@pytest.mark.parametrize(
    ("seconds", "said"), [(40, "40 s"), (696, "11 min 36 s"), (600, "10 min"), (7500, "2 h 5 min")]
)
def test_a_run_length_is_said_as_people_say_it(seconds: float, said: str) -> None:
    assert length(seconds) == said
