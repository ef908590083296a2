"""Question classes whose cue must beat the topic words (held-out batch 7), with phrasings of our own.

"how long between the OOM and the timeouts" is a timing question, not a memory one; "how can we make
sure the node is OK now" asks for the check, not whether it is hardware; "what is NCCL saying" asks for
that library's own line and what it means; "GPU or system RAM?" wants the choice said first; and a
collateral rank's why names whose failure took it down. Real jobs through the real engine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.slack.answers import Answerer
from denpex.core.models import Diagnosis
from tests.slack import factjobs, heldout


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Diagnosis]:
    tmp: Path = tmp_path_factory.mktemp("routing")
    return {name: build(tmp) for name, build in factjobs.JOBS.items()}


@pytest.fixture(scope="module")
def answerers(jobs: dict[str, Diagnosis]) -> dict[str, Answerer]:
    return heldout.answerers(jobs)


@pytest.mark.parametrize(
    ("job", "typed"),
    [
        ("gpu_oom", "whats the gap between the cuda oom and the watchdog timeouts"),
        ("gpu_oom", "how much time passed between rank 5 running out of memory and the rest failing"),
        ("host_oom_kill", "how many minutes after the oom kill did the others die"),
    ],
)
def test_a_timing_cue_beats_the_topic_words(answerers: dict[str, Answerer], job: str, typed: str) -> None:
    reply = answerers[job].answer(typed)
    assert reply.intent == "when"
    assert "10 min" in reply.text


@pytest.mark.parametrize(
    "typed", ["how can we make sure the node is ok now", "how would i confirm the card is fine again"]
)
def test_how_to_check_it_is_healthy_asks_for_the_check(answerers: dict[str, Answerer], typed: str) -> None:
    reply = answerers["xid"].answer(typed)
    assert reply.intent == "verify"
    assert "nvidia-smi" in reply.text


@pytest.mark.parametrize(
    ("job", "typed", "quoted"),
    [
        ("desync", "what does the gloo error say", "Timed out waiting 15000ms"),
        ("gpu_oom", "what is cuda moaning about", "CUDA out of memory"),
        ("host_oom_kill", "what is torchrun telling me", "exitcode: -9"),
    ],
)
def test_what_a_library_says_is_its_line_and_its_meaning(
    answerers: dict[str, Answerer], job: str, typed: str, quoted: str
) -> None:
    reply = answerers[job].answer(typed)
    assert reply.intent == "complaint"
    assert quoted in reply.text
    assert "What it means:" in reply.text and "failed first" in reply.text


def test_a_library_with_no_line_is_said_so(answerers: dict[str, Answerer]) -> None:
    reply = answerers["desync"].answer("what is nccl complaining about")
    assert reply.intent == "complaint"
    assert reply.text.startswith("No line of this failure's evidence names NCCL")


@pytest.mark.parametrize(
    ("job", "typed", "first"),
    [
        ("host_oom_kill", "vram or host ram?", "It was host (system) RAM, not GPU memory."),
        ("checkpoint_oom", "did the cpu side run out or the gpu", "It was host (system) RAM"),
        ("gpu_oom", "system memory or gpu memory that ran out?", "It was GPU memory"),
    ],
)
def test_a_memory_choice_is_answered_first(
    answerers: dict[str, Answerer], job: str, typed: str, first: str
) -> None:
    reply = answerers[job].answer(typed)
    assert reply.intent == "memory"
    assert reply.text.startswith(first)


def test_a_host_kill_says_host_ram_even_unasked(answerers: dict[str, Answerer]) -> None:
    reply = answerers["host_oom_kill"].answer("how big was the process that got killed")
    assert "It was host (system) RAM." in reply.text
    assert "GPU" not in reply.text  # unasked, no GPU is named to be denied


def test_a_collateral_rank_names_whose_failure_took_it_down(answerers: dict[str, Answerer]) -> None:
    reply = answerers["checkpoint_oom"].answer("and rank 2, what took it down?")
    assert reply.intent == "rank_why"
    assert "victim of rank 1 (a host (CPU) out-of-memory error at" in reply.text
    assert "earlier" in reply.text
