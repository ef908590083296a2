"""Follow-up intents answered from the diagnosis and its knowledge entry (no model)."""

from __future__ import annotations

import re

import pytest

from bot.slack.answers import Answerer
from tests.slack import helpers


@pytest.fixture(scope="module")
def answerer() -> Answerer:
    entries = helpers.entries()
    return Answerer(helpers.diagnosis(), entries["zero3-checkpoint-gather-oom"], entries)


@pytest.mark.parametrize(
    ("question", "intent", "expect"),
    [
        ("which rank failed first and why?", "which_rank", "Rank 0 on gpu-01 failed first"),
        ("show rank 12's last lines", "show_lines", "rank 12 line 19"),
        ("can I see the logs of rank 3?", "show_lines", "rank 3 line 5"),
        ("is this hardware or software?", "hardware", "oftware"),
        ("how do I verify the fix?", "verify", "grep -n stage3_gather ds_config.json"),
        ("what else could it be?", "alternatives", "CUDA OOM in a training step"),
        ("what happened on gpu-07?", "node", "NVRM: Xid 79"),
        ("how long will the fix take?", "fix_time", ""),
        ("how do I fix it?", "fix", "stage3_gather_16bit_weights_on_model_save"),
        ("will it recur after a restart?", "restart", ""),
    ],
)
def test_intents(answerer: Answerer, question: str, intent: str, expect: str) -> None:
    answer = answerer.answer(question)
    assert answer.intent == intent, answer.text
    assert expect in answer.text
    assert answer.known and answer.material


def test_answers_are_escaped(answerer: Answerer) -> None:
    for question in ("which rank failed first?", "what happened on gpu-07?"):
        text = answerer.answer(question).text
        assert not re.search(r"<[!@]|<https?:", text), text


def test_unmatched_questions_get_examples_fitted_to_the_job(answerer: Answerer) -> None:
    """No FAQ paragraph for a question no intent matches: what it can answer, for this job."""
    for q in ("what's the weather in Paris tomorrow", "does this happen in inference too?"):
        answer = answerer.answer(q)
        assert not answer.known and answer.intent == "help"
        assert "why did rank 0 fail?" in answer.text and "Mostly training" not in answer.text
    missing = answerer.answer("show rank 99's last lines")
    assert not missing.known and "0,3,12" in missing.text
    node = answerer.answer("what happened on gpu-99?")
    assert not node.known and "gpu-07" in node.text


def test_fix_time_and_hardware_use_the_entry(answerer: Answerer) -> None:
    entry = helpers.entries()["zero3-checkpoint-gather-oom"]
    assert answerer.answer("how long will the fix take?").material == [entry.faq.fix_time]
    hardware = answerer.answer("is it a bad gpu?")
    assert entry.faq.hardware_or_software in hardware.material
    assert hardware.text.startswith("No sign of hardware")  # this job's evidence first
