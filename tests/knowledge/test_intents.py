"""The follow-up intent matcher, the glossary the fixes need, and the numbers read from evidence lines."""

from __future__ import annotations

import pytest

from knowledge import evidence_numbers as num
from knowledge.glossary import find, fix_terms, load_glossary
from knowledge.intents import IntentMatcher
from knowledge.schema import load_entries


@pytest.fixture(scope="module")
def matcher() -> IntentMatcher:
    return IntentMatcher()


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("which rank failed first?", "which_rank"),
        ("which GPU was it on?", "which_rank"),
        ("where did it die", "which_rank"),
        ("who is the culprit here", "which_rank"),
        ("why did rank 3 fail?", "rank_why"),
        ("what killed rank 2?", "rank_why"),
        ("when did it fail?", "when"),
        ("how long after the first error did the rest die?", "when"),
        ("how many ranks were hit?", "ranks_count"),
        ("did all ranks die?", "ranks_count"),
        ("what was rank 7 doing?", "phase"),
        ("was it saving a checkpoint?", "phase"),
        ("what step did it reach?", "phase"),
        ("how far over the memory was it?", "memory"),
        ("how big was the allocation", "memory"),
        ("show me the traceback", "show_lines"),
        ("show rank 12's last lines", "show_lines"),
        ("is this a bad gpu?", "hardware"),
        ("can we just rerun it?", "restart"),
        ("is it safe to restart as is?", "restart"),
        ("what should I change?", "fix"),
        ("how do I verify the fix?", "verify"),
        ("how long will the fix take?", "fix_time"),
        ("what else could it be?", "alternatives"),
        ("are you sure it's not the network?", "alternatives"),
        ("what was each rank doing?", "activity"),
        ("what does NCCL_DEBUG mean?", "explain"),
        ("what happened on gpu-07?", "node"),
    ],
)
def test_phrasings_find_their_intent(matcher: IntentMatcher, question: str, intent: str) -> None:
    assert matcher.match(question, ["gpu-07"]).intent == intent


def test_unrelated_questions_match_nothing(matcher: IntentMatcher) -> None:
    for q in ("thanks!", "was the job preempted?", "lunch at noon?", "nice weather today"):
        assert matcher.match(q).intent is None, q


def test_matching_is_deterministic_and_reads_ranks_and_nodes(matcher: IntentMatcher) -> None:
    first = matcher.match("Why did Rank 12's process die on GPU-07?", ["gpu-07"])
    assert [matcher.match("Why did Rank 12's process die on GPU-07?", ["gpu-07"]) for _ in range(3)] == [
        first
    ] * 3
    assert first.rank == 12 and first.node == "gpu-07"


def test_every_term_a_fix_uses_is_in_the_glossary() -> None:
    glossary = load_glossary()
    missing = sorted(
        f"{e.id}: {term}" for e in load_entries() for term in fix_terms(e) if term.lower() not in glossary
    )
    assert not missing, missing
    assert find("what does pytorch_cuda_alloc_conf do", glossary) is not None
    assert find("what is --max_steps", glossary).name == "--max_steps"  # type: ignore[union-attr]


def test_cuda_oom_figures() -> None:
    line = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 2 has a total capacity "
        "of 79.15 GiB of which 820.00 MiB is free. Including non-PyTorch memory, this process has 78.32 GiB "
        "memory in use. Of the allocated memory 70.02 GiB is allocated by PyTorch, and 6.41 GiB is reserved "
        "by PyTorch but unallocated."
    )
    oom = num.cuda_oom(line)
    assert oom is not None and oom.gpu == 2 and oom.asked_gib == 3.5 and oom.total_gib == 79.15
    assert oom.free_gib == pytest.approx(0.801, abs=1e-3) and oom.short_gib == pytest.approx(2.699, abs=1e-3)
    assert oom.reserved_unallocated_gib == 6.41 and oom.by_torch_gib == 70.02
    old = num.cuda_oom(
        "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; "
        "14.56 GiB already allocated; 3.75 MiB free; 14.73 GiB reserved in total by PyTorch)"
    )
    assert old is not None and old.gpu == 0 and old.total_gib == 15.78
    cpu = "DefaultCPUAllocator: can't allocate memory: you tried to allocate 16777216 bytes."
    assert num.cuda_oom(cpu) is None and num.host_alloc(cpu) == pytest.approx(0.016, abs=1e-3)


def test_watchdog_kill_exit_and_xid_figures() -> None:
    wd = num.watchdog(
        "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48213, "
        "OpType=_REDUCE_SCATTER_BASE, NumelIn=5, NumelOut=6, Timeout(ms)=600000) ran for 600031 milliseconds"
    )
    assert wd == num.Watchdog(48213, "_REDUCE_SCATTER_BASE", 600.0, 600.031)
    assert num.watchdog("Timed out waiting 15000ms for recv operation") == num.Watchdog(
        None, None, 15.0, None
    )
    kill = num.oom_kill("Out of memory: Killed process 51234 (python) total-vm:9kB, anon-rss:64223412kB, x")
    assert kill == num.OomKill(51234, "python", 61.25)
    assert num.exit_status("failed (exitcode: -9) local_rank: 2 (pid: 51)") == num.Exit(-9, "SIGKILL")
    assert num.exit_status("slurm: JobState=FAILED ExitCode=0:9") == num.Exit(0, "SIGKILL")
    xid = num.xid("NVRM: Xid (PCI:0000:3b:00): 79, pid=45121, name=python, GPU has fallen off the bus.")
    assert xid is not None and (xid.code, xid.pci) == (79, "0000:3b:00")
    assert num.read(["nothing here"]) == num.Numbers()
