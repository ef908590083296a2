"""A question that puts a cause forward is never answered with a fact of another job kind.

"Are you sure it isn't the OOM killer?" asked of every fact job: where no kill is in the evidence the
answer says so, and it says the rank's own allocation was refused only where the failure was one (a
CUDA or host out-of-memory error); a segfault, a timeout or a scheduler's kill is named as what it was.
"""

from __future__ import annotations

import pytest

from bot.slack.answers import Answerer
from tests.slack import factjobs

ALLOCATION = {"gpu_oom", "checkpoint_oom", "zero3_save"}  # the jobs whose failure was a refused allocation
KILLED = {"host_oom_kill", "fsdp_cpu_save", "dataloader_worker_killed"}  # a SIGKILL is in their evidence


@pytest.mark.parametrize("job", sorted(factjobs.JOBS))
def test_the_oom_killer_challenge_states_only_this_jobs_failure(
    answerers: dict[str, Answerer], job: str
) -> None:
    text = answerers[job].answer("are you sure it isn't the OOM killer?").text
    refused = "allocation was refused" in text
    assert refused == (job in ALLOCATION), text
    assert "rank ?" not in text
    if job not in KILLED:
        assert "Not the kernel OOM killer" in text, text
