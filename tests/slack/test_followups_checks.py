"""Follow-ups that test a guess or ask about one fragment of the logs, each answered from the job.

"Could it be the network instead?", "is it even NCCL?", "would raising the timeout help?", "did rank 0
do anything wrong?", "what does 'unexpected pos 1088 vs 982' mean?", "what port was it?", "where was
it writing to?", "did we leak creds?", "what nccl version?": the answer says yes or no first, with the
fact that decides it, and never the opposite.
"""

from __future__ import annotations

import pytest

from bot.slack.answers import Answerer
from tests.slack.helpers import states_facts

CASES = [
    # (job, question, intent, must, must_not)
    (
        "checkpoint_oom",
        "could it be the network instead?",
        "alternatives",
        ["Not the network", "rank 1"],
        ["Yes, it points"],
    ),
    ("desync", "is it even NCCL?", "backend", ["gloo"], []),
    ("desync", "would raising the timeout help?", "timeout_help", ["would not help", "broadcast"], []),
    ("gpu_oom", "did rank 0 do anything wrong?", "rank_why", ["No: rank 0 was collateral", "rank 5"], []),
    ("gpu_oom", "so rank 5 is the culprit?", "rank_why", ["Yes: rank 5"], ["No: rank 5"]),
    (
        "disk_full_save",
        "what does 'unexpected pos 1088 vs 982' mean",
        "quote",
        ["unexpected pos 1088 vs 982", "console.log:37", "disk"],
        [],
    ),
    ("rendezvous_port_in_use", "what port was it", "port", ["54661"], []),
    (
        "rendezvous_port_in_use",
        "which rank failed first?",
        "which_rank",
        ["No rank", "before any worker"],
        [],
    ),
    ("disk_full_save", "where was it writing to?", "path", ["checkpoint-4.pt"], ["train.py"]),
    (
        "gpu_oom",
        "did we just leak creds in the logs?",
        "secrets",
        ["hf token", "rank5.log:206", "rotate"],
        ["hf_Demo"],
    ),
    ("checkpoint_oom", "any secrets in the logs?", "secrets", ["No secret-looking value"], []),
    ("flight_recorder", "what nccl version was this", "versions", ["2.21.5"], []),
    ("xid", "what driver version is on the node", "versions", ["550.90.07", "gpu-02"], []),
    (
        "segfault",
        "show me rank 3's stack trace",
        "show_lines",
        ["no Python traceback", "PYTHONFAULTHANDLER"],
        [],
    ),
    ("hang_before_collective", "did rank 3 crash or hang?", "rank_why", ["SIGTERM", "stuck"], []),
    ("nan_loss", "why is rank 1 exitcode 1 but the other three -15", "rank_why", ["-15", "SIGTERM"], []),
]


@pytest.mark.parametrize(
    ("job", "question", "intent", "must", "never"), CASES, ids=[c[1][:40] for c in CASES]
)
def test_a_guess_or_a_fragment_is_answered_from_the_job(
    answerers: dict[str, Answerer], job: str, question: str, intent: str, must: list[str], never: list[str]
) -> None:
    states_facts(answerers[job].answer(question), intent, must, never)
