"""Follow-ups answered from the saved lines beyond the verdict's (batches 13 and 14 of the held-out set):
the loss before a NaN, what is missing to confirm, a SIGKILL nobody explained, the time between two
named events, the torchrun default port, the collateral ranks' own lines, a span of ranks in shorthand.

Each asserts the fact the answer must state and the claim it must not make, on the real fact jobs.
"""

from __future__ import annotations

import pytest

from bot.slack.answers import Answer, Answerer
from knowledge.intents import normalise

JOBS = ("nan_loss", "checkpoint_oom", "dataloader_worker_killed", "rendezvous_port_in_use", "desync")


def ask(answerers: dict[str, Answerer], job: str, question: str) -> Answer:
    return answerers[job].answer(question)


def test_the_loss_before_a_nan_is_the_logged_values(answerers: dict[str, Answerer]) -> None:
    a = ask(answerers, "nan_loss", "did it spike before going nan?")
    assert a.intent == "loss"
    assert "1.0358" in a.text and "step 6" in a.text  # the last logged value, as logged
    assert "No spike" in a.text and "rank 1" in a.text  # the NaN came after it, on rank 1
    assert "spike at" not in a.text


def test_what_is_missing_names_the_kernel_log_and_the_scheduler(answerers: dict[str, Answerer]) -> None:
    a = ask(answerers, "checkpoint_oom", "anything missing to confirm this? what should i pull off the node")
    assert a.intent == "gaps"
    assert "dmesg" in a.text and "sacct" in a.text


def test_a_sigkill_without_a_kernel_log_is_not_called_a_non_memory_error(
    answerers: dict[str, Answerer],
) -> None:
    for question in ("killed by who, oom?", "'is killed by signal: Killed' -- that a sigkill? 9?"):
        a = ask(answerers, "dataloader_worker_killed", question)
        assert "SIGKILL" in a.text and "signal 9" in a.text and "dmesg" in a.text
        assert "not a memory error" not in a.text
        assert "don't show who sent it" in a.text  # the sender is not claimed


def test_the_time_between_two_named_events(answerers: dict[str, Answerer]) -> None:
    a = ask(
        answerers, "checkpoint_oom", "how long between the save starting and torchrun tearing everything down"
    )
    assert a.intent == "when"
    low = a.text.lower()
    assert "about 5 s" in low and "21:38:30.286" in a.text and "whole second" in low


def test_the_port_against_torchruns_default_and_who_holds_it(answerers: dict[str, Answerer]) -> None:
    default = ask(answerers, "rendezvous_port_in_use", "is 54661 the torchrun default?")
    assert "29500" in default.text and "54661" in default.text
    holder = ask(answerers, "rendezvous_port_in_use", "could an old run still be hanging onto the port")
    assert "leftover" in holder.text and "ss -ltnp" in holder.text
    assert "EADDRINUSE" in ask(answerers, "rendezvous_port_in_use", "code -98?").text


def test_named_collateral_ranks_show_their_own_lines(answerers: dict[str, Answerer]) -> None:
    a = ask(answerers, "checkpoint_oom", "did r0 and r2 oom too or what")
    assert "no memory error of their own" in a.text and "closed by peer" in a.text.lower()


def test_which_checkpoint_and_which_line_against_the_others(answerers: dict[str, Answerer]) -> None:
    ckpt = ask(answerers, "checkpoint_oom", "was it saving when it died? which ckpt")
    assert "checkpoint-6.pt" in ckpt.text
    code = ask(answerers, "desync", "what line of train.py is rank 3 sitting on vs the others")
    assert "line 142" in code.text and "line 144" in code.text


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("where were r1-r3", "where were ranks 1-3"),
        ("rank 0 to 2 doing?", "ranks 0-2 doing?"),
        ("r5-r0 gap", "rank 5-r0 gap"),  # not a span: high to low
        ("rank 3 - 11 stuck?", "ranks 3-11 stuck?"),
        ("why did rank 3's -11 come first", "why did rank 3 -11 come first"),  # an exit code, not 3 to 11
        ("cmd to check space", "command to check space"),
        ("tb on r0", "traceback on rank 0"),
    ],
)
def test_shorthand_spans_and_words(typed: str, meant: str) -> None:
    assert normalise(typed) == meant
