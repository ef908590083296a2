"""Follow-up answers state this job's facts (and never contradict them), over six diagnosed jobs.

Each case: a job (tests/slack/factjobs.py, real-looking logs through the real engine), a question,
the intent, the facts the answer must state and the claims it must not make. The answer layer is
called directly here; `test_through_slack` sends a subset through the real Slack app.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.slack.answers import Answer, Answerer
from bot.slack.render import BlockKitRenderer
from denpex.core.models import Diagnosis
from knowledge.schema import load_entries
from tests.slack import factjobs, helpers
from tests.slack.test_followups_http import bot_replies, question, scale
from workers.ports import QuotaDecision
from workers.posting import SlackPoster
from workers.store import Store

Case = tuple[str, str, str, list[str], list[str]]
CASES: list[Case] = [
    # --- gpu_oom: rank 5 CUDA OOM at step 2001 on gpu-02, the others' watchdogs 600 s later
    (
        "gpu_oom",
        "which rank failed first?",
        "which_rank",
        ["Rank 5", "gpu-02", "03:14:02", "rank5.log:222"],
        ["Rank 0 on", "checkpoint"],
    ),
    ("gpu_oom", "which node and GPU was it on?", "which_rank", ["gpu-02", "GPU 5"], ["gpu-01 ("]),
    ("gpu_oom", "who started it?", "which_rank", ["Rank 5", "0-4,6,7"], []),
    (
        "gpu_oom",
        "what was rank 7 doing?",
        "phase",
        ["Rank 7", "_REDUCE_SCATTER_BASE", "rank 5", "600 s", "48213", "rank7.log:206"],
        ["saving a checkpoint"],
    ),
    (
        "gpu_oom",
        "how far over the memory was it?",
        "memory",
        ["3.91 GiB", "1.21 GiB", "2.70 GiB short", "79.15 GiB", "2.41 GiB"],
        ["may be enough"],
    ),
    ("gpu_oom", "how much was free on the GPU?", "memory", ["1.21 GiB free", "GPU 5"], []),
    ("gpu_oom", "what step did it reach?", "phase", ["step 2001", "training"], ["checkpoint_save"]),
    (
        "gpu_oom",
        "was it saving a checkpoint?",
        "phase",
        ["No, it was not saving a checkpoint", "training"],
        [],
    ),
    (
        "gpu_oom",
        "how long after the first error did the rest die?",
        "when",
        ["600 s", "03:14:02", "03:24:02"],
        [],
    ),
    ("gpu_oom", "when did it fail?", "when", ["03:14:02 UTC"], []),
    ("gpu_oom", "show the stack", "show_lines", ["rank5.log:214", "rank5.log:222", "CUDA out of memory"], []),
    ("gpu_oom", "show rank 2's last lines", "show_lines", ["rank2.log", "step 2000"], []),
    (
        "gpu_oom",
        "how many ranks were hit?",
        "ranks_count",
        ["8 of 8", "rank 5 first", "7 collateral", "0-4,6,7", "gpu-01, gpu-02"],
        ["PyTorch, DeepSpeed"],
    ),
    (
        "gpu_oom",
        "why did rank 3 fail?",
        "rank_why",
        ["Rank 3 was collateral", "rank 5", "600 s", "rank3.log:206"],
        ["Rank 3 started"],
    ),
    (
        "gpu_oom",
        "why did rank 5 fail?",
        "rank_why",
        ["Rank 5 started it", "CUDA out-of-memory", "rank5.log:222"],
        [],
    ),
    ("gpu_oom", "why did rank 12 fail?", "rank_why", ["no rank 12", "0-7"], []),
    (
        "gpu_oom",
        "is it hardware?",
        "hardware",
        ["No sign of hardware", "GPU is healthy"],
        ["Yes, likely hardware"],
    ),
    (
        "gpu_oom",
        "is it safe to restart as is?",
        "restart",
        ["Not as is", "step 2001", "2.70 GiB short"],
        ["Yes, probably"],
    ),
    (
        "gpu_oom",
        "what should I change?",
        "fix",
        ["2.70 GiB", "GPU 5", "fragmentation would not cover", "per_device_train_batch_size"],
        [],
    ),
    (
        "gpu_oom",
        "how do I verify the fix?",
        "verify",
        ["expandable_segments", "rank 5 gets past step 2001"],
        [],
    ),
    (
        "gpu_oom",
        "what else could it be?",
        "alternatives",
        ["Nothing else scored close", "ZeRO-3 Checkpoint Save", "0.27", "0.88"],
        [],
    ),
    (
        "gpu_oom",
        "what does PYTORCH_CUDA_ALLOC_CONF mean?",
        "explain",
        ["caching allocator", "This job's fix uses"],
        [],
    ),
    ("gpu_oom", "what is expandable_segments?", "explain", ["fragmentation"], []),
    (
        "gpu_oom",
        "what was each rank doing?",
        "activity",
        ["No Flight Recorder dumps", "0-4,6,7", "_REDUCE_SCATTER_BASE", "Rank 5"],
        [],
    ),
    (
        "gpu_oom",
        "tell me a joke",
        "help",
        ["why did rank 5 fail?", "how far over the memory"],
        ["Deterministic", "PyTorch, DeepSpeed"],
    ),
    ("gpu_oom", "does this happen in inference too?", "help", ["Try:"], ["KV-cache"]),
    ("gpu_oom", "how long did the job run?", "when", ["02:00:41", "03:24:05", "83 min"], []),
    ("gpu_oom", "what went wrong?", "rank_why", ["Rank 5 started it", "rank5.log:222"], []),
    ("gpu_oom", "what batch size should I use?", "fix", ["2.70 GiB", "per_device_train_batch_size"], []),
    (
        "gpu_oom",
        "which host was rank 3 on?",
        "which_rank",
        ["Rank 3 ran on gpu-01", "collateral"],
        ["gpu-02"],
    ),
    # --- checkpoint_oom: rank 1 host OOM while saving (real torchrun job)
    (
        "checkpoint_oom",
        "which rank failed first?",
        "which_rank",
        ["Rank 1", "saving a checkpoint", "console.log:84"],
        ["CUDA"],
    ),
    (
        "checkpoint_oom",
        "was it saving a checkpoint?",
        "phase",
        ["Rank 1 was saving a checkpoint"],
        ["No, it was not"],
    ),
    ("checkpoint_oom", "how much memory did it need?", "memory", ["host memory", "16 MiB"], ["GPU", "short"]),
    ("checkpoint_oom", "how many ranks failed?", "ranks_count", ["4 of 4", "rank 1 first", "0,2,3"], []),
    (
        "checkpoint_oom",
        "what else could it be?",
        "alternatives",
        ["runner-up", "Host RAM Exhausted Saving, Exporting or Loading a Checkpoint", "0.65"],
        ["Nothing else scored close"],
    ),
    ("checkpoint_oom", "is it safe to restart as is?", "restart", ["Not as is", "Deterministic"], []),
    ("checkpoint_oom", "is it a bad GPU?", "hardware", ["No sign of hardware"], ["Xid 79"]),
    ("checkpoint_oom", "how long after the first error did the rest die?", "when", ["4.7 s later"], []),
    ("checkpoint_oom", "show the traceback", "show_lines", ["save_checkpoint", "DefaultCPUAllocator"], []),
    (
        "checkpoint_oom",
        "what is low_cpu_mem_usage?",
        "explain",
        ["second full copy"],  # the FSDP entry's fix does not use it (the earlier entry's did)
        [],
    ),
    # --- desync: rank 3 entered another collective; ranks 0-2 timed out (gloo, real torchrun job)
    ("desync", "which rank failed first?", "which_rank", ["Rank 3", "console.log:64"], ["Rank 1 on"]),
    ("desync", "what was rank 1 doing?", "phase", ["Rank 1 was waiting", "rank 3"], ["saving a checkpoint"]),
    ("desync", "why did rank 0 fail?", "rank_why", ["Rank 0 was collateral", "15 s timeout"], []),
    ("desync", "how many ranks were affected?", "ranks_count", ["4 of 4", "rank 3 first", "0-2"], []),
    (
        "desync",
        "what was each rank doing?",
        "activity",
        ["No Flight Recorder dumps", "Ranks 0-2", "Rank 3"],
        [],
    ),
    ("desync", "what else could it be?", "alternatives", ["Workers Torn Down", "0.23"], []),
    ("desync", "what does TORCH_DISTRIBUTED_DEBUG mean?", "explain", ["DETAIL"], []),
    ("desync", "is it hardware?", "hardware", ["No sign of hardware"], ["Yes"]),
    ("desync", "what's the launcher's exit code for rank 9?", "rank_why", ["no rank 9"], []),
    # rank 3's traceback is in broadcast, the others' in all_reduce: a desync in the code, which recurs
    ("desync", "who was late?", "which_rank", ["Rank 3", "`broadcast`", "`all_reduce`"], ["desync report"]),
    ("desync", "is it safe to restart?", "restart", ["Not as is", "same call"], ["Maybe"]),
    ("desync", "what was rank 3 doing?", "phase", ["Rank 3 was training"], ["console.log:17"]),
    # --- xid: Xid 79 on gpu-02 (PCI 0000:3b:00), rank 5's GPU; the others' watchdogs 600 s later
    (
        "xid",
        "is it hardware?",
        "hardware",
        ["Yes, likely hardware", "Xid 79", "gpu-02", "0000:3b:00", "rank 5's GPU", "node-gpu-02.dmesg:2"],
        ["rank 1's GPU", "No sign"],
    ),
    ("xid", "which GPU was it?", "which_rank", ["Rank 5", "gpu-02", "0000:3b:00"], []),
    ("xid", "is it safe to restart as is?", "restart", ["Not as is", "drain gpu-02"], ["Yes, probably"]),
    (
        "xid",
        "what happened on gpu-02?",
        "node",
        ["On gpu-02", "rank 5 initiating", "Xid (PCI:0000:3b:00): 79"],
        [],
    ),
    ("xid", "what happened on gpu-09?", "node", ["no evidence from node", "gpu-02"], []),
    ("xid", "what was rank 0 doing?", "phase", ["Rank 0 was waiting in ALLREDUCE", "rank 5", "600 s"], []),
    (
        "xid",
        "how far over the memory was it?",
        "memory",
        ["no memory figures", "GPU hardware fault"],
        ["GiB short"],
    ),
    ("xid", "what does Xid mean?", "explain", ["NVIDIA driver error"], []),
    ("xid", "how many ranks were hit?", "ranks_count", ["8 of 8", "rank 5 first"], []),
    ("xid", "what should we change?", "fix", ["GPU hardware fault", "rank 5"], []),
    ("xid", "which ranks were on gpu-02?", "node", ["On gpu-02 (ranks 4-7)", "rank 5 initiating"], []),
    ("xid", "show the dmesg", "node", ["On gpu-02", "node-gpu-02.dmesg:2"], []),
    ("xid", "did the GPU fall off the bus?", "hardware", ["Yes, likely hardware", "Xid 79"], []),
    # --- host_oom_kill: the OOM killer killed rank 2 (pid 51234, 61.25 GiB anon-rss) on gpu-01
    (
        "host_oom_kill",
        "which rank failed first?",
        "which_rank",
        ["Rank 2", "gpu-01", "host out-of-memory kill"],
        ["CUDA"],
    ),
    (
        "host_oom_kill",
        "how much memory did it use?",
        "memory",
        ["pid 51234", "61.25 GiB", "anon-rss", "rank 2"],
        ["GPU"],
    ),
    ("host_oom_kill", "what killed rank 2?", "rank_why", ["Rank 2 started it", "SIGKILL", "-9"], []),
    (
        "host_oom_kill",
        "why did rank 1 fail?",
        "rank_why",
        ["Rank 1 was collateral", "rank 2", "ALLGATHER"],
        [],
    ),
    ("host_oom_kill", "how long after the first error did the rest die?", "when", ["601 s", "03:14:05"], []),
    ("host_oom_kill", "what is the OOM killer?", "explain", ["Linux kernel"], []),
    ("host_oom_kill", "is the GPU broken?", "hardware", ["No sign of hardware"], ["Yes"]),
    ("host_oom_kill", "how many ranks were hit?", "ranks_count", ["4 of 4", "rank 2 first", "0,1,3"], []),
    ("host_oom_kill", "how much RAM did rank 2 use?", "memory", ["61.25 GiB", "on gpu-01"], []),
    ("host_oom_kill", "was it the dataloader?", "alternatives", ["runner-up"], ["Nothing else scored:"]),
    ("host_oom_kill", "what should I change?", "fix", ["pid 51234", "61.25 GiB"], []),
    # --- flight_recorder: rank 2 never entered all_reduce #5 (NCCL dumps), the others timed out
    (
        "flight_recorder",
        "what was each rank doing?",
        "activity",
        ["4 Flight Recorder dump", "Ranks 0,1,3: all_reduce #5", "Rank 2: all_reduce #4"],
        [],
    ),
    (
        "flight_recorder",
        "which rank failed first?",
        "which_rank",
        ["Rank 2 is the likely start", "never entered all_reduce #5"],
        ["failed first"],
    ),
    (
        "flight_recorder",
        "why did rank 0 fail?",
        "rank_why",
        ["Rank 0 was collateral", "ALLREDUCE", "SeqNum 5"],
        [],
    ),
    (
        "flight_recorder",
        "when did the timeout hit?",
        "when",
        ["no time in the logs", "0,1,3", "03:10:01"],
        [],
    ),
    ("flight_recorder", "what should I do?", "fix", ["rank 2 is the likely start"], ["watchdog) on rank 2"]),
    (
        "flight_recorder",
        "why did rank 2 fail?",
        "rank_why",
        ["likely start", "never entered"],
        ["timeout (watchdog) at"],
    ),
]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Diagnosis]:
    tmp: Path = tmp_path_factory.mktemp("factjobs")
    return {name: build(tmp) for name, build in factjobs.JOBS.items()}


@pytest.fixture(scope="module")
def answerers(jobs: dict[str, Diagnosis]) -> dict[str, Answerer]:
    entries = {e.id: e for e in load_entries()}
    return {
        name: Answerer(d, entries.get(d.entry.id) if d.entry else None, entries) for name, d in jobs.items()
    }


def check(answer: Answer, intent: str, must: list[str], never: list[str]) -> None:
    assert answer.intent == intent, answer.text
    for fact in must:
        assert fact in answer.text, f"missing {fact!r} in:\n{answer.text}"
    for claim in never:
        assert claim not in answer.text, f"false claim {claim!r} in:\n{answer.text}"


def test_enough_cases() -> None:
    assert len(CASES) >= 60 and len({c[0] for c in CASES}) >= 5


@pytest.mark.parametrize(("job", "question", "intent", "must", "never"), CASES)
def test_answers_state_the_jobs_facts(
    answerers: dict[str, Answerer], job: str, question: str, intent: str, must: list[str], never: list[str]
) -> None:
    check(answerers[job].answer(question), intent, must, never)


def test_the_lead_answers_first(answerers: dict[str, Answerer]) -> None:
    """The first sentence carries the fact; the lines that show it come after it."""
    text = answerers["gpu_oom"].answer("what was rank 7 doing?").text
    first = text.split("\n")[0]
    assert first.startswith("Rank 7 was waiting in _REDUCE_SCATTER_BASE") and "rank 5" in first
    assert text.index("rank7.log:206") > text.index("rank 5")


def test_material_is_what_the_answer_says(answerers: dict[str, Answerer]) -> None:
    answer = answerers["gpu_oom"].answer("how far over the memory was it?")
    assert any("2.70 GiB short" in m for m in answer.material)
    assert any(m.startswith("rank5.log:222 ") for m in answer.material)


SLACK_CASES = [
    c
    for c in CASES
    if (c[0], c[1])
    in {
        ("gpu_oom", "what was rank 7 doing?"),
        ("gpu_oom", "how far over the memory was it?"),
        ("gpu_oom", "how many ranks were hit?"),
        ("gpu_oom", "what else could it be?"),
        ("gpu_oom", "tell me a joke"),
        ("xid", "is it hardware?"),
        ("xid", "is it safe to restart as is?"),
        ("host_oom_kill", "how much memory did it use?"),
        ("checkpoint_oom", "was it saving a checkpoint?"),
        ("flight_recorder", "what was each rank doing?"),
        ("desync", "what was rank 1 doing?"),
    }
]


async def test_through_slack(slack_stack: Any, redis_client: Any, jobs: dict[str, Diagnosis]) -> None:
    """The same answers through the real Slack app: signed events in, posts to the fake Slack out."""
    assert len(SLACK_CASES) >= 10
    scale(redis_client)
    threads = {}
    for name in sorted({c[0] for c in SLACK_CASES}):
        threads[name] = await asyncio.to_thread(_post, slack_stack.fake, redis_client, name, jobs[name])
    asked: dict[str, int] = {}
    for job, q, _intent, must, never in SLACK_CASES:
        ts = threads[job]
        asked[job] = asked.get(job, 0) + 1
        await slack_stack.event(question(q, ts))
        replies = await bot_replies(slack_stack.fake, ts, asked[job])
        text = replies[asked[job] - 1]["text"]
        for fact in must:
            assert fact.replace("&", "&amp;") in text, f"{q}: missing {fact!r} in {text}"
        for claim in never:
            assert claim not in text, f"{q}: false claim {claim!r} in {text}"


def _post(fake: Any, redis_client: Any, name: str, diagnosis: Diagnosis) -> str:
    key = f"files:ci:{name}"
    store = Store(redis_client, result_ttl=3600)
    store.save_diagnosis(key, diagnosis)
    poster = SlackPoster(fake.web_client(), "C0ALERTS", store, BlockKitRenderer(helpers.entries()))
    _, ts = poster.post(key, helpers.job(name), diagnosis, QuotaDecision(allowed=True, plan="scale"))
    return str(ts)


def test_the_diagnosis_keeps_each_ranks_facts(jobs: dict[str, Diagnosis]) -> None:
    """`Diagnosis.facts`, filled by the engine (knowledge.rankfacts) and kept through JSON (Redis)."""
    facts = Diagnosis.model_validate_json(jobs["gpu_oom"].model_dump_json()).facts
    assert facts.world_size == 8 and facts.nodes == ["gpu-01", "gpu-02"] and facts.launcher == "deepspeed"
    assert facts.start == "2026-11-20T02:00:41.000Z" and facts.end == "2026-11-20T03:24:05.000Z"
    five, seven = facts.ranks[5], facts.ranks[7]
    assert (five.node, five.category, five.phase, five.last_step) == ("gpu-02", "gpu_oom", "train", 2001)
    assert five.first_line is not None and (five.first_line.source, five.first_line.line) == (
        "rank5.log",
        222,
    )
    assert (seven.category, seven.first_time, seven.last_step) == (
        "nccl_timeout",
        "2026-11-20T03:24:02.011Z",
        2000,
    )
    gpus = {r.rank: r.gpu for r in jobs["xid"].facts.ranks}
    assert gpus[5] == "0000:3b:00" and gpus[1] == "0000:3b:00" and gpus[4] == "0000:18:00"
    assert [r.node for r in jobs["xid"].facts.ranks if r.gpu == "0000:3b:00"] == ["gpu-01", "gpu-02"]


#: other phrasings of the same questions: the facts must still be stated
PHRASINGS: list[tuple[str, str, list[str]]] = [
    ("gpu_oom", "which rank blew up?", ["Rank 5"]),
    ("gpu_oom", "what device ran out of memory", ["GPU 5"]),
    ("gpu_oom", "by how much did it exceed the GPU memory?", ["2.70 GiB"]),
    ("gpu_oom", "how much free memory was left", ["1.21 GiB"]),
    ("gpu_oom", "at what step did rank 5 crash", ["2001"]),
    ("gpu_oom", "what were the others waiting for", ["rank 5"]),
    ("gpu_oom", "how long did rank 7 wait?", ["600"]),
    ("gpu_oom", "give me rank 5's stack trace", ["rank5.log:222"]),
    ("gpu_oom", "is the GPU faulty?", ["No sign of hardware"]),
    ("gpu_oom", "can I relaunch without changes?", ["Not as is"]),
    ("gpu_oom", "what knob should I turn?", ["2.70 GiB"]),
    ("gpu_oom", "what would you check after fixing?", ["rank 5 gets past step 2001"]),
    ("gpu_oom", "could it be a checkpoint problem?", ["ZeRO-3"]),
    ("gpu_oom", "what is gradient checkpointing?", ["recompute"]),
    ("gpu_oom", "which node was rank 5 on", ["gpu-02"]),
    ("gpu_oom", "how many GPUs were in the job", ["8"]),
    ("xid", "what Xid was it?", ["Xid 79"]),
    ("xid", "is the card dead?", ["hardware"]),
    ("xid", "which PCI address?", ["0000:3b:00"]),
    ("xid", "should we put gpu-02 back in service?", ["gpu-02"]),
    ("xid", "why did rank 3 time out", ["rank 5"]),
    ("host_oom_kill", "what pid got killed", ["51234"]),
    ("host_oom_kill", "how big was the RSS", ["61.25 GiB"]),
    ("host_oom_kill", "which node hit OOM", ["gpu-01"]),
    ("host_oom_kill", "what signal killed rank 2", ["SIGKILL"]),
    ("desync", "which rank was out of sync?", ["Rank 3"]),
    ("desync", "how long was the timeout", ["15 s"]),
    ("checkpoint_oom", "did it die during the save?", ["saving a checkpoint"]),
    ("checkpoint_oom", "what is weights_only?", ["torch.load"]),
    ("flight_recorder", "which op was everyone stuck in?", ["all_reduce #5"]),
    ("flight_recorder", "what was the last collective rank 2 finished?", ["#4"]),
    ("flight_recorder", "who didn't show up", ["Rank 2"]),
]

PHRASINGS += [
    ("gpu_oom", "who crashed first?", ["Rank 5"]),
    ("gpu_oom", "on which machine did the OOM happen", ["gpu-02"]),
    ("gpu_oom", "how much did rank 5 try to allocate?", ["3.91 GiB"]),
    ("gpu_oom", "was this fragmentation?", ["2.41 GiB"]),
    ("gpu_oom", "what was the last step before the crash", ["2001"]),
    ("gpu_oom", "why did rank 0 die", ["collateral", "rank 5"]),
    ("gpu_oom", "when did rank 7 die?", ["03:24:02"]),
    ("gpu_oom", "give me the last lines of rank 4", ["rank4.log"]),
    ("gpu_oom", "should I just resubmit?", ["Not as is"]),
    ("gpu_oom", "how do I avoid this next time?", ["2.70 GiB"]),
    ("gpu_oom", "what's the runner-up?", ["ZeRO-3"]),
    ("gpu_oom", "what does --gradient_accumulation_steps do?", ["micro-batches"]),
    ("gpu_oom", "were all 8 ranks affected?", ["8 of 8"]),
    ("xid", "did the hardware fail?", ["Yes, likely hardware"]),
    ("xid", "which GPU died?", ["0000:3b:00"]),
    ("xid", "what happened on gpu-01?", ["On gpu-01"]),
    ("xid", "can I restart on the same node?", ["drain gpu-02"]),
    ("host_oom_kill", "why was rank 2 killed?", ["Rank 2 started it", "SIGKILL"]),
    ("host_oom_kill", "how much memory did the killed process hold?", ["61.25 GiB"]),
    ("host_oom_kill", "when did the oom killer fire?", ["03:14:05"]),
    ("host_oom_kill", "what were the other ranks doing?", ["ALLGATHER"]),
    ("desync", "which ranks timed out?", ["0-2"]),
    ("desync", "why did rank 2 fail?", ["collateral"]),
    ("checkpoint_oom", "what was rank 1 doing when it failed", ["saving a checkpoint"]),
    ("checkpoint_oom", "how many ranks died?", ["4 of 4"]),
    ("flight_recorder", "what does the FR dump show?", ["all_reduce #5"]),
    ("flight_recorder", "which rank hung?", ["Rank 2"]),
    ("flight_recorder", "what was rank 3 waiting for?", ["rank 2"]),
    ("flight_recorder", "how many dumps were there?", ["4"]),
]


@pytest.mark.parametrize(("job", "question", "must"), PHRASINGS)
def test_other_phrasings(answerers: dict[str, Answerer], job: str, question: str, must: list[str]) -> None:
    text = answerers[job].answer(question).text
    assert all(fact in text for fact in must), text
