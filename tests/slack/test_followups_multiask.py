"""Messages that ask two things, compare two ranks, deny a fact or ask what changed (held-out batch 5).

People type "which rank went first and why did the rest get SIGTERM'd" or "did rank 5 die before or
after rank 0?"; the first ask is answered, then the second; two named ranks get their times compared;
"it wasn't an OOM right?" is answered from the facts, never flipped. Real jobs through the real engine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.slack.answers import Answerer
from denpex.core.models import Diagnosis
from knowledge.intents import asks, named_ranks, normalise
from knowledge.jobfacts_answers import launcher_exits
from tests.slack import factjobs, heldout


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Diagnosis]:
    tmp: Path = tmp_path_factory.mktemp("multiask")
    return {name: build(tmp) for name, build in factjobs.JOBS.items()}


@pytest.fixture(scope="module")
def answerers(jobs: dict[str, Diagnosis]) -> dict[str, Answerer]:
    return heldout.answerers(jobs)


@pytest.mark.parametrize(
    ("typed", "parts"),
    [
        ("which pid and which node", ["which pid", "which node"]),
        ("ok so rank 5 oomd but why did the rest time out, was it the network?", None),
        ("which file and line should i look at", ["which file and line should i look at"]),
        ("rank 3, why", ["why"]),  # one ask: the message is answered whole
    ],
)
def test_a_message_is_split_into_its_asks(typed: str, parts: list[str] | None) -> None:
    expected = parts if parts is not None else ["why did the rest time out", "was it the network"]
    assert asks(normalise(typed)) == expected


def test_every_named_rank_is_read_in_order() -> None:
    assert named_ranks(normalise("did r5 die before or after rank 0 (and rank 5 again)")) == (5, 0)


def test_two_ranks_are_compared_earlier_first(answerers: dict[str, Answerer]) -> None:
    for text in ("did rank 0 die before or after rank 5?", "which rank crashed first, rank 0 or rank 5?"):
        answer = answerers["gpu_oom"].answer(text)
        assert answer.intent == "when"
        assert "Rank 5 failed first" in answer.text and "600 s" in answer.text


def test_the_second_ask_is_answered_after_the_first(answerers: dict[str, Answerer]) -> None:
    answer = answerers["host_oom_kill"].answer("which pid and which node")
    assert "51234" in answer.text and "gpu-01" in answer.text
    answer = answerers["checkpoint_oom"].answer("which rank went first and why did the rest get SIGTERM'd")
    assert answer.intent == "which_rank"
    assert "Rank 1" in answer.text and "SIGTERM" in answer.text


def test_a_denied_fact_is_answered_from_the_facts(answerers: dict[str, Answerer]) -> None:
    xid = answerers["xid"].answer("it wasn't an OOM right? rank 5 just died?").text
    assert "Xid" in xid or "fallen off the bus" in xid
    assert "CUDA out of memory" not in xid
    oom = answerers["gpu_oom"].answer("it wasn't the gpu right?").text.lower()
    assert "out of memory" in oom or "oom" in oom


def test_what_changed_says_only_this_run_is_read(answerers: dict[str, Answerer]) -> None:
    answer = answerers["gpu_oom"].answer("what changed since yesterday? it was running fine")
    assert answer.intent == "changed"
    assert "can't say what changed" in answer.text and "Rank 5" in answer.text


def test_resuming_says_what_it_replays(answerers: dict[str, Answerer]) -> None:
    answer = answerers["gpu_oom"].answer("can we resume from the last checkpoint or do we start over")
    assert answer.intent == "restart"
    assert "Resuming from the last saved checkpoint" in answer.text and "Not as is" in answer.text


def test_escalation_questions_get_the_hardware_verdict(answerers: dict[str, Answerer]) -> None:
    answer = answerers["gpu_oom"].answer("should we page nvidia or open a ticket with the infra team?")
    assert answer.intent == "hardware" and "The GPU is healthy" in answer.text


def test_the_launcher_summary_says_how_collateral_ranks_ended(jobs: dict[str, Diagnosis]) -> None:
    exits = launcher_exits(jobs["checkpoint_oom"])
    stopped = {e.rank: (e.code, e.signal) for e in exits if e.signal}
    assert stopped and all(v == (-15, "SIGTERM") for v in stopped.values())
    assert 1 not in stopped  # rank 1 exited with 1 (its own error), no signal
    assert launcher_exits(jobs["gpu_oom"]) == []


@pytest.mark.parametrize(
    ("raw", "read"),
    [
        ("<@U0423ABCD> how many MB short?", "how many mb short?"),
        (
            "see <https://wiki.example.com/nccl|the runbook> - which rank hung",
            "see the runbook - which rank hung",
        ),
        ("<!here> dumps &amp; stuck? <#C12|ops-oncall>", "dumps & stuck? ops-oncall"),
        ("<https://x.example/z> which rank", "which rank"),
    ],
)
def test_slack_markup_is_read_as_text(raw: str, read: str) -> None:
    assert normalise(raw) == read


def test_a_question_in_slack_markup_is_answered(answerers: dict[str, Answerer]) -> None:
    text = "<@U01> see <https://wiki.example.com/runbooks/nccl-hang|runbook> &amp; tell me which rank hung"
    assert "rank 2" in answerers["flight_recorder"].answer(text).text.lower()
