"""Round 7b: step pace from the step lines' times, a rank's own printed error, how the ranks ended
(the last to fail, the others' watchdog wait, memory per rank) and the PCI slot with the versions."""

from __future__ import annotations

from bot.slack.answers import Answerer

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # step pace: per-step time, the asked step against the usual, the silence after the last step
    ("time_limit", "what was the step time, were we just going slowly?", ["4 s a step"], []),
    (
        "time_limit",
        "did the final few steps get slower before the kill?",
        ["03:10:00", "03:11:40", "100 s"],
        [],
    ),
    ("gpu_oom", "did step 2000 take longer than usual?", ["not slower", "2000", "2.1 s"], []),
    ("host_oom_kill", "were the steps slowing down on rank 2 near the end?", ["not slower", "1.2B"], []),
    ("zero3_save", "how long between step 100 and the checkpoint save starting?", ["03:08:20", "100 s"], []),
    # what the rank printed itself, not the kernel's line
    ("xid", "what did rank 5 itself log when it died", ["unspecified launch failure"], []),
    # how the ranks ended
    ("gpu_oom", "which one was the last rank to fail?", ["rank 7", "03:24:02"], []),
    ("zero3_save", "why did the rest wait so long before they died", ["600000", "03:18:20"], []),
    (
        "gpu_oom",
        "was rank 5 holding more memory than the others?",
        ["69.4", "61"],
        ["fell off the bus"],
    ),
    # the slot next to the driver version
    ("xid", "what driver is on that node, and which pci bus id", ["550.90.07", "3b:00"], []),
]


WAITING: list[tuple[str, str, list[str], list[str]]] = [
    # no watchdog line: where the others sat (their traceback's collective) says why they waited
    ("disk_full_save", "which rank started it, and were the rest of them just waiting?", ["barrier"], []),
    # a fix question that asks what the batch was: the failing step's batch line in the fix answer
    ("gpu_oom", "how do we fix it, and what was the batch on the failing step like?", ["16384"], []),
    # how far, not how fast: the pace answer stays out
    ("gpu_oom", "how many steps did it take before it died?", ["2001"], ["a step since step"]),
]


def test_native_crash_without_a_backtrace_says_how_to_get_one(answerers: dict[str, Answerer]) -> None:
    """The library of a segfault is only named from a native frame; with none, the answer says so and
    how to get one (wired by the router; tested here on the function)."""
    from knowledge import answer_mechanism

    ctx = answerers["segfault"].answerer.ctx
    said, lines = answer_mechanism.crashed_library(ctx, "any idea what library segfaulted")
    assert said.startswith("No") and "gdb" in said and "faulthandler" in said.lower() and not lines
    assert answer_mechanism.crashed_library(answerers["gpu_oom"].answerer.ctx, "which library crashed") == (
        "",
        [],
    )


def test_a_data_loading_guess_gets_the_ranks_own_data_line(answerers: dict[str, Answerer]) -> None:
    """The host OOM came right after rank 2 started building its index: a data-loading guess is met
    with that line (wired by the router into the alternatives answer; tested here on the function)."""
    from knowledge import answer_more

    ctx = answerers["host_oom_kill"].answerer.ctx
    said, lines = answer_more.data_fact(ctx, "could the dataset have done it?")
    assert "1.2B samples" in said and lines
    assert answer_more.data_fact(answerers["gpu_oom"].answerer.ctx, "could the dataset have done it?") == (
        "",
        [],
    )
